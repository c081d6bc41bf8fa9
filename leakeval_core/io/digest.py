"""Content hashes of files, what every cache of a file's meaning is keyed on: an edited file
is never served stale, whatever its times say. Only hashlib, so a warm command can hash its
inputs before importing anything heavy.

A file's hash is kept per its identity (`identity`: device, inode, size, modification and
change times), so a file hashed once is not read again while it stands. The change time
(ctime) is what makes that safe: the kernel sets it on every write and on every `os.utime`,
and nothing can set it back, so an edit whose size and mtime were restored (`rsync -t`,
`cp -p`) is still a new identity. A hash is kept only for a file whose last change was
`SETTLED_NS` before it was read: a filesystem whose clock ticks coarsely could otherwise
give a second edit within the same tick the same ctime.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time

__all__ = ["SETTLED_NS", "file_digest", "identity"]

SETTLED_NS = 2_000_000_000
"""How long ago a file must have last changed for its hash to be kept (2 s: coarser than
any filesystem's timestamps, FAT's and NFS's included); a file changed more recently is
hashed again on every call."""

_KNOWN: dict[str, tuple[tuple[int, ...], str]] = {}
"""Absolute path -> (identity, hash) of the last settled reading: one entry per file."""
_LOCK = threading.Lock()


def identity(stat: os.stat_result) -> tuple[int, ...]:
    """What tells one state of a file from another without reading it; any write changes it
    (its ctime), even one that restores the size and the modification time."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def file_digest(path: str | os.PathLike[str]) -> str:
    """Content hash of a file (blake2b, 128 bits), read again only when its identity
    changed."""
    where = os.path.abspath(path)
    with _LOCK:
        known = _KNOWN.get(where)
    if known is not None and known[0] == identity(os.stat(where)):
        return known[1]
    started = time.time_ns()
    with open(where, "rb") as fh:
        before = os.fstat(fh.fileno())
        digest = hashlib.file_digest(fh, "blake2b").hexdigest()[:32]
        after = identity(os.fstat(fh.fileno()))
    if identity(before) == after and before.st_ctime_ns + SETTLED_NS < started:
        with _LOCK:
            _KNOWN[where] = (after, digest)
    return digest
