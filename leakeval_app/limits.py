"""The server's memory limits, read from the environment: light to import, so that the
server process reads them before it starts, and a value that is no number of megabytes is
one clear error."""

from __future__ import annotations

import os

from leakeval_core.errors import LeakevalError

__all__ = ["max_upload_bytes", "run_memory_bytes", "server_upload_bytes", "session_upload_bytes"]


def max_upload_bytes() -> int:
    """Upload size limit: LEAKEVAL_MAX_UPLOAD_MB, default 200 (Streamlit enforces it too)."""
    return _megabytes("LEAKEVAL_MAX_UPLOAD_MB", "200")


def session_upload_bytes() -> int:
    """What one browser session may keep of uploaded runs: LEAKEVAL_SESSION_UPLOAD_MB,
    default 500."""
    return _megabytes("LEAKEVAL_SESSION_UPLOAD_MB", "500")


def server_upload_bytes() -> int:
    """What the server keeps of uploaded runs for all its sessions together:
    LEAKEVAL_SERVER_UPLOAD_MB, default 2000."""
    return _megabytes("LEAKEVAL_SERVER_UPLOAD_MB", "2000")


def run_memory_bytes() -> int:
    """What the server keeps of parsed run files (`parsed_runs`): LEAKEVAL_RUN_MEMORY_MB,
    default 256 (0: none), room for the demo's runs several times over."""
    return _megabytes("LEAKEVAL_RUN_MEMORY_MB", "256")


def _megabytes(variable: str, default: str) -> int:
    given = os.environ.get(variable, default)
    try:
        megabytes = float(given)
    except ValueError:
        megabytes = -1.0
    if not megabytes >= 0:
        raise LeakevalError(f"{variable}={given!r}: expected a number of megabytes, 0 or more")
    return int(megabytes * 1_000_000)
