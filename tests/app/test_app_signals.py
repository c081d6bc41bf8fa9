"""`leakeval app` stops on Ctrl-C: a SIGINT sent to it alone (not to its process group, as a
terminal would) must not leave it, or the server it started, running."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import pytest

from tests.app.test_browser import answers, free_port
from tests.support import ROOT

pytestmark = pytest.mark.demo


def test_sigint_stops_leakeval_app(demo_dir, tmp_path):
    port = free_port()
    command = [sys.executable, "-m", "leakeval_core.cli", "app", str(demo_dir.parent)]
    proc = subprocess.Popen(
        [*command, "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "LEAKEVAL_CACHE": str(tmp_path / "cache")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own group: the SIGINT reaches `leakeval app` alone
    )
    try:
        url = f"http://127.0.0.1:{port}"
        assert answers(proc, url), f"leakeval app did not start (exit code {proc.poll()})"
        proc.send_signal(signal.SIGINT)
        code = proc.wait()
        # 130, as a shell reports an interrupted command: the server stopped on its SIGTERM
        # (one it had to kill, or that failed, would give its own status)
        assert code == 130
        # and its server is gone with it: nothing listens on the port (a server still up,
        # however busy, would have its connection accepted by the kernel)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port)).close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
