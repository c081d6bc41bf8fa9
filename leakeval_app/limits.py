"""The server's limits, read from the environment: light to import, so that the server
process reads them before it starts, and a value that is no number of megabytes is one
clear error."""

from __future__ import annotations

import os

from leakeval_core.io.compressed import Limit
from leakeval_core.io.compressed import megabytes as _megabytes

__all__ = [
    "NO_UPLOADS",
    "max_upload_bytes",
    "run_memory_bytes",
    "server_upload_bytes",
    "session_upload_bytes",
    "streamlit_upload_mb",
    "upload_limit",
    "uploads_allowed",
]

NO_UPLOADS = "LEAKEVAL_NO_UPLOADS"
"""Set (to anything but empty or 0), readers may not upload: a read-only room."""


def max_upload_bytes() -> int:
    """What one uploaded file may hold once decompressed: LEAKEVAL_MAX_UPLOAD_MB, default 200."""
    return _megabytes("LEAKEVAL_MAX_UPLOAD_MB", "200")


def upload_limit() -> Limit:
    """The upload limit, as the bounded inflation counts it (`compressed.measure`)."""
    return Limit(max_upload_bytes(), "LEAKEVAL_MAX_UPLOAD_MB", "the upload limit")


def streamlit_upload_mb() -> int:
    """Streamlit's own limit (`server.maxUploadSize`) for the upload limit: the fewest whole
    megabytes at or above it, so that every file within leakeval's limit reaches leakeval,
    which refuses one past it with its own message naming the limit. (Streamlit's browser
    side counts a megabyte as 10^6 bytes, 2^20 on Windows, its server as 2^20: both at or
    above leakeval's, which counts 10^6.) 0 when uploads are off: the server takes none."""
    return -(-max_upload_bytes() // 1_000_000) if uploads_allowed() else 0


def uploads_allowed() -> bool:
    """Whether readers may upload runs: not where NO_UPLOADS is set (`leakeval app
    --no-uploads` sets it)."""
    return os.environ.get(NO_UPLOADS, "").strip() in ("", "0")


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
