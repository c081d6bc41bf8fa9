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


@pytest.mark.parametrize("then", ["NO_SESSIONS_CONNECTED", "STOPPED"])
def test_the_server_imports_ahead_only_once_it_answers(then, monkeypatch, tmp_path):
    """The imports wait for the server's start (they share its interpreter lock): polled
    while the runtime starts, they run once it serves, and what is alive then is frozen,
    collected first; a server that stops before it ever answered imports nothing."""
    import sys
    import threading

    from streamlit import runtime

    from leakeval_app import collector, serve

    state = {"now": runtime.RuntimeState.INITIAL, "looks": 0}
    looked = threading.Event()

    class Runtime:
        @property
        def state(self):
            state["looks"] += 1
            if state["looks"] >= 3:
                looked.set()
            return state["now"]

    probe = "leakeval_import_ahead_probe"
    (tmp_path / f"{probe}.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, probe, raising=False)
    frozen = []
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime, "get_instance", Runtime)
    monkeypatch.setattr(serve, "READY_POLL", 0.001)
    monkeypatch.setattr(serve, "AHEAD", (probe,))
    monkeypatch.setattr(
        collector, "freeze_long_lived_objects", lambda: frozen.append(probe in sys.modules)
    )
    worker = threading.Thread(target=serve.import_ahead, daemon=True)
    worker.start()
    looked.wait()  # the import thread has looked at a starting runtime three times
    assert probe not in sys.modules  # still starting: nothing imported
    state["now"] = getattr(runtime.RuntimeState, then)
    worker.join()
    served = then != "STOPPED"
    assert (probe in sys.modules) is served
    assert frozen == ([True] if served else [])  # frozen once, after the imports


@pytest.mark.parametrize("setting, kept", [(None, True), ("0", False)])
def test_the_server_keeps_parsed_runs_unless_told_not_to(setting, kept, tmp_path, monkeypatch):
    """Readers of one server rescore the same files at other settings: the server process
    keeps them parsed (`LEAKEVAL_RUN_MEMORY_MB`, 0: never)."""
    from leakeval_app import serve
    from leakeval_core.evaluation import parsed_runs

    if setting is None:
        monkeypatch.delenv("LEAKEVAL_RUN_MEMORY_MB", raising=False)
    else:
        monkeypatch.setenv("LEAKEVAL_RUN_MEMORY_MB", setting)
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 d1 1 2.0 t\n")
    try:
        serve.keep_parsed_runs()
        assert (parsed_runs.read_run_table(run) is parsed_runs.read_run_table(run)) is kept
    finally:
        parsed_runs.keep(0)


@pytest.mark.parametrize("setting", ["lots", "-1", "nan"])
def test_a_bad_memory_setting_is_one_clear_error(setting, monkeypatch):
    from leakeval_app import serve
    from leakeval_core.errors import LeakevalError

    monkeypatch.setenv("LEAKEVAL_RUN_MEMORY_MB", setting)
    with pytest.raises(LeakevalError, match=f"LEAKEVAL_RUN_MEMORY_MB='{setting}': expected a"):
        serve.keep_parsed_runs()


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_a_loopback_address_is_served_without_a_warning(host):
    assert dashboard.exposure_warning(host) is None


@pytest.mark.parametrize(
    ("host", "where"),
    [
        ("0.0.0.0", "every network this machine is on"),
        ("::", "every network this machine is on"),
        ("192.168.1.20", "192.168.1.20"),
        ("lab.example.org", "lab.example.org"),
    ],
)
def test_any_other_address_is_warned_about(host, where):
    warning = dashboard.exposure_warning(host)
    assert warning.startswith(f"leakeval: warning: serving on {host} ({where}): anyone")
    assert "no authentication" in warning and "Serving a lab" in warning
    assert "uploads runs" in warning
    assert "uploads" not in dashboard.exposure_warning(host, uploads=False)


def test_leakeval_app_binds_the_host_asked_for_and_serves_a_read_only_room(
    tmp_path, served, capsys
):
    """Nothing is bound here (`served` records the command): the address reaches the server,
    the warning stderr, and --no-uploads the server's environment."""
    (tmp_path / "experiment.toml").write_text('name = "x"\n')
    assert main(["app", str(tmp_path), "--host", "0.0.0.0", "--port", "8600", "--no-uploads"]) == 0
    [(command, env)] = served
    assert "--server.address=0.0.0.0" in command and "--server.port=8600" in command
    assert env["LEAKEVAL_NO_UPLOADS"] == "1"
    err = capsys.readouterr().err
    assert dashboard.exposure_warning("0.0.0.0", uploads=False) in err.splitlines()
    assert "leakeval: dashboard at http://0.0.0.0:8600/" in err
    served.clear()
    assert main(["app", str(tmp_path)]) == 0
    [(command, env)] = served
    assert "--server.address=127.0.0.1" in command and "LEAKEVAL_NO_UPLOADS" not in env
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("setting", "uploads", "streamlit_mb"),
    [
        ({}, True, 400),
        ({"LEAKEVAL_MAX_UPLOAD_MB": "50.5"}, True, 101),
        ({"LEAKEVAL_MAX_UPLOAD_MB": "0.00001"}, True, 1),
        ({"LEAKEVAL_NO_UPLOADS": "1"}, False, 0),
        ({"LEAKEVAL_NO_UPLOADS": "0"}, True, 400),
    ],
)
def test_streamlits_upload_limit_is_set_from_leakevals_at_server_start(
    setting, uploads, streamlit_mb, monkeypatch
):
    """At or just above twice leakeval's limit, in Streamlit's megabytes (10^6 bytes in the
    browser, 2^20 on its server), so a file just past leakeval's limit reaches leakeval,
    whose own check refuses it with its message; none taken when uploads are off."""
    from leakeval_app import limits, serve

    for name in ("LEAKEVAL_MAX_UPLOAD_MB", "LEAKEVAL_NO_UPLOADS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in setting.items():
        monkeypatch.setenv(name, value)
    assert limits.uploads_allowed() is uploads
    assert serve.limit_options() == [f"--server.maxUploadSize={streamlit_mb}"]
    if uploads:
        ours = limits.max_upload_bytes()
        assert 2 * ours <= streamlit_mb * 1_000_000 < 2 * ours + 1_000_000
