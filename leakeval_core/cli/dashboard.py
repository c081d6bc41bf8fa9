"""`leakeval app`: the dashboard from the installed package, on a folder of experiments.

Streamlit runs in a child process (`python -m streamlit run`), so the core never imports the
app or Streamlit, and Ctrl-C stops both. The server binds 127.0.0.1 unless `--host` names
another address, which is said on stderr with what it exposes (leakeval has no
authentication: docs/serving.md puts a proxy in front), and is told everything the
checkout's `.streamlit/config.toml` says, because an installed package has no such file
where Streamlit looks for it; a test holds the two together.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

from leakeval_core.cli.common import progress
from leakeval_core.errors import LeakevalError

__all__ = ["STREAMLIT_OPTIONS", "default_data_dir", "exposure_warning", "register"]

STREAMLIT_OPTIONS = {
    "browser.gatherUsageStats": "false",
    "server.address": "127.0.0.1",
    "server.headless": "true",
    "server.disconnectedSessionTTL": "30",
    "server.fileWatcherType": "none",
    "client.toolbarMode": "minimal",
    "client.showErrorLinks": "false",
    "client.showErrorDetails": "none",
    "runner.magicEnabled": "false",
}
"""No telemetry, no browser opened on the server's machine, no links out of error boxes and
no tracebacks in them, no source watcher (with a virtualenv below it, it keeps a core
busy), no magic (pages never use it); a closed tab's session, and the runs uploaded in it,
kept 30 s for a reconnection, not Streamlit's 120. `--server.port` comes from `--port`;
the server sets its upload limit from leakeval's (`leakeval_app.serve`)."""


LOOPBACK = "127.0.0.1"
"""Where the server listens unless `--host` says otherwise: this machine only."""


def default_data_dir() -> Path:
    """Where `leakeval app` keeps the demo when no folder is named: the user's data folder."""
    if env := os.environ.get("LEAKEVAL_DATA"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "leakeval"


def register(sub) -> None:
    app = sub.add_parser(
        "app",
        help="open the dashboard on an experiment folder (default: the demo)",
        description="Serve the dashboard at http://HOST:PORT/ (127.0.0.1: this machine only, "
        "unless --host) until Ctrl-C. Without a "
        "path it shows the simulated demo, generated on first start in the user's data "
        "folder ($LEAKEVAL_DATA, else $XDG_DATA_HOME/leakeval or ~/.local/share/leakeval). "
        "To serve a lab, see the docs' page 'Serving a lab': leakeval has no authentication.",
    )
    app.add_argument(
        "path",
        nargs="?",
        help="an experiment folder (with experiment.toml), or a folder of them",
    )
    app.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    app.add_argument(
        "--host",
        default=LOOPBACK,
        metavar="ADDRESS",
        help=f"address to bind (default {LOOPBACK}, this machine only); any other is said on "
        "stderr with a warning: leakeval has no authentication",
    )
    app.add_argument(
        "--no-uploads",
        action="store_true",
        help="a read-only room: readers cannot upload runs (sets LEAKEVAL_NO_UPLOADS)",
    )
    app.add_argument(
        "--present", action="store_true", help="open in presentation mode (large type, no controls)"
    )
    app.set_defaults(handler=_cmd_app)


def exposure_warning(host: str, uploads: bool = True) -> str | None:
    """What binding `host` exposes, to say on stderr; None for a loopback address, which
    only this machine reaches. `uploads`: whether readers may upload runs."""
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = host.lower() == "localhost"
    if loopback:
        return None
    where = "every network this machine is on" if host in ("0.0.0.0", "::") else host
    return (
        f"leakeval: warning: serving on {host} ({where}): anyone who reaches it reads every "
        f"experiment served{', uploads runs' if uploads else ''} and starts computations; "
        "leakeval has no authentication: put an authenticating reverse proxy in front "
        "(docs: Serving a lab)"
    )


def _cmd_app(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.manifest import find_experiments

    if not 0 < args.port < 65536:
        raise LeakevalError(f"--port {args.port}: a port is a number from 1 to 65535")
    if args.path is not None:
        root = Path(args.path).resolve()
        if not root.is_dir():
            raise LeakevalError(f"{args.path}: no such folder")
        if not find_experiments(root):
            raise LeakevalError(
                f"{args.path}: no experiment.toml in this folder or a folder directly below it "
                "(data/README.md and the docs' page 'Your own study' show one; `leakeval app` "
                "alone shows the demo)"
            )
    else:
        root = default_data_dir().resolve()
        if not find_experiments(root):
            from leakeval_core.demo.generator import generate_demo

            print(f"leakeval: first start: generating the demo in {root / 'demo'}", file=sys.stderr)
            generate_demo(root / "demo", progress=progress("generating demo", unit="step"))
    if warning := exposure_warning(args.host, uploads=not args.no_uploads):
        print(warning, file=sys.stderr)
    bare = args.host.strip("[]")  # an IPv6 address, bracketed in a URL only
    url = f"http://{f'[{bare}]' if ':' in bare else bare}:{args.port}/"
    print(f"leakeval: dashboard at {url}{'?present=1' if args.present else ''}", file=sys.stderr)
    print("leakeval: Ctrl-C stops it", file=sys.stderr)
    if find_spec("leakeval_app") is None:
        raise LeakevalError("the dashboard is not installed (pip install leakeval)")
    # the app's own server process: `streamlit run` on the entry file beside its pages
    command = [sys.executable, "-m", "leakeval_app.serve"]
    options = {**STREAMLIT_OPTIONS, "server.address": bare, "server.port": args.port}
    command += [f"--{name}={value}" for name, value in options.items()]
    env = {
        **os.environ,
        "LEAKEVAL_DATA": str(root),
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    }
    if args.no_uploads:
        env["LEAKEVAL_NO_UPLOADS"] = "1"
    return serve(command, env)


def serve(command: list[str], env: dict[str, str]) -> int:
    """Run the server until it exits; Ctrl-C (SIGINT), SIGTERM or SIGHUP stop it promptly.

    Ctrl-C in a terminal reaches the whole process group, but a signal sent to this process
    alone (a supervisor, `kill -INT`, a test tearing down) would otherwise leave the server
    running, orphaned, holding its port and a core's worth of threads. So each is passed on
    as a SIGTERM, and a server that has not stopped within `GRACE` seconds is killed.
    """
    server: subprocess.Popen | None = None

    def stop(signum: int, frame: object) -> None:
        if server is None:  # not started yet: nothing to stop
            raise SystemExit(128 + signum)
        server.terminate()

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stop)
    server = subprocess.Popen(command, env=env)
    try:
        return server.wait()
    except KeyboardInterrupt:
        # the server may have had the same Ctrl-C, or none (SIGINT sent to this process)
        return _stop(server)


GRACE = 5.0
"""Seconds a stopping server has to close its connections before it is killed."""


def _stop(server: subprocess.Popen) -> int:
    """Stop the server (SIGTERM, then SIGKILL after GRACE s); 130, as a shell reports an
    interrupted command, unless it had already failed."""
    server.terminate()
    while True:
        try:
            code = server.wait(timeout=GRACE)
            break
        except subprocess.TimeoutExpired:
            server.kill()
        except KeyboardInterrupt:  # another Ctrl-C: the user is in a hurry
            server.kill()
    return code if code not in (0, -signal.SIGTERM, -signal.SIGINT) else 130
