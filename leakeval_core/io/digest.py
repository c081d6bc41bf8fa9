"""Content hashes of files, what every cache of a file's meaning is keyed on: an edited file
is never served stale, whatever its times say. Only hashlib, so a warm command can hash its
inputs before importing anything heavy."""

from __future__ import annotations

import hashlib
import os

__all__ = ["file_digest"]


def file_digest(path: str | os.PathLike[str]) -> str:
    """Content hash of a file."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "blake2b").hexdigest()[:32]
