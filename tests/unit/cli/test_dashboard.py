"""`leakeval app`: what it serves, how, and what it refuses, without starting a server (the
browser tests start it for real)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tomllib

import pytest

from leakeval_core.cli import dashboard, main
from tests.support import ROOT


def test_the_server_is_told_what_the_checkouts_config_says():
    """An installed package has no .streamlit/config.toml where Streamlit looks, so the
    command passes every setting; the two cannot drift apart."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    flat = {
        f"{section}.{name}": str(value).lower()
        for section, values in config.items()
        for name, value in values.items()
    }
    assert flat == dashboard.STREAMLIT_OPTIONS


@pytest.fixture
def served(monkeypatch):
    """The command `leakeval app` would run, and its environment, instead of running it."""
    calls = []
    monkeypatch.setattr(dashboard, "serve", lambda command, env: calls.append((command, env)) or 0)
    return calls


def test_a_folder_of_experiments_is_served_on_localhost(demo_dir, served, capsys):
    assert main(["app", str(demo_dir.parent), "--port", "8765", "--present"]) == 0
    ((command, env),) = served
    assert command[1:3] == ["-m", "leakeval_app.serve"]
    assert "--server.address=127.0.0.1" in command and "--server.port=8765" in command
    assert "--browser.gatherUsageStats=false" in command
    assert env["LEAKEVAL_DATA"] == str(demo_dir.parent.resolve())
    assert "http://127.0.0.1:8765/?present=1" in capsys.readouterr().err


@pytest.mark.slow
def test_without_a_path_the_demo_is_generated_once_in_the_users_data_folder(
    tmp_path, served, monkeypatch
):
    monkeypatch.delenv("LEAKEVAL_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["app"]) == 0
    demo = tmp_path / "xdg" / "leakeval" / "demo"
    assert (demo / "experiment.toml").is_file()
    made = (demo / "experiment.toml").stat().st_mtime_ns
    assert main(["app"]) == 0  # the second start finds it
    assert (demo / "experiment.toml").stat().st_mtime_ns == made
    assert [env["LEAKEVAL_DATA"] for _, env in served] == [str(demo.parent)] * 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["app", "missing"], "missing: no such folder"),
        (["app", "."], ".: no experiment.toml in this folder or a folder directly below it"),
        (["app", "--port", "70000"], "--port 70000: a port is a number from 1 to 65535"),
    ],
)
def test_what_cannot_be_served_is_one_line(args, message, tmp_path, served, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"leakeval: {message}") and "\n" not in err
    assert served == []


def test_stopping_leakeval_app_stops_its_server():
    """A SIGTERM sent to `leakeval app` alone (a supervisor, a test's teardown) must not leave
    the server it started running as an orphan."""
    server = "import os, time; print(os.getpid(), flush=True); time.sleep(600)"
    app = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys; from leakeval_core.cli.dashboard import serve; "
            f"sys.exit(serve([sys.executable, '-c', {server!r}], dict(os.environ)))",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    server_pid = int(app.stdout.readline())  # the server is up, and the handler is set
    app.send_signal(signal.SIGTERM)
    app.wait(timeout=120)  # a guard against a hang: it returns once the server has exited
    with pytest.raises(ProcessLookupError):
        os.kill(server_pid, 0)


def test_the_server_process_imports_ahead_what_the_first_page_needs():
    """`leakeval_app.serve` names modules to import while the browser loads: each exists."""
    from leakeval_app import serve

    for name in serve.AHEAD:
        assert importlib.util.find_spec(name) is not None, name
