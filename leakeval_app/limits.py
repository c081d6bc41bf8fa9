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


DEFAULT_UPLOAD_MB = 200


def max_upload_bytes() -> int:
    """What one uploaded file may hold once decompressed: LEAKEVAL_MAX_UPLOAD_MB, default
    `DEFAULT_UPLOAD_MB`."""
    return _megabytes("LEAKEVAL_MAX_UPLOAD_MB", str(DEFAULT_UPLOAD_MB))


def upload_limit() -> Limit:
    """The upload limit, as the bounded inflation counts it (`compressed.measure`)."""
    return Limit(max_upload_bytes(), "LEAKEVAL_MAX_UPLOAD_MB", "the upload limit")


STREAMLIT_MARGIN = 2
"""Streamlit's own upload limit is this many times leakeval's."""


def streamlit_upload_mb() -> int:
    """Streamlit's own limit (`server.maxUploadSize`) for the upload limit: the fewest whole
    megabytes at or above twice it (`STREAMLIT_MARGIN`). A file past leakeval's limit then
    reaches leakeval, which refuses it with its own message naming the limit; at leakeval's
    limit itself, Streamlit's browser side refused a file just over it with "File must be
    200.0MB or smaller", which names no setting. Only a file past twice the limit is stopped
    in the browser, so no upload body the server holds exceeds twice the limit. (Streamlit's
    browser side counts a megabyte as 10^6 bytes, 2^20 on Windows, its server as 2^20: all at
    or above leakeval's, which counts 10^6.) 0 when uploads are off: the server takes none."""
    if not uploads_allowed():
        return 0
    return -(-STREAMLIT_MARGIN * max_upload_bytes() // 1_000_000)


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
