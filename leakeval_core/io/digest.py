"""Content hashes of files, what every cache of a file's meaning is keyed on: an edited file
is never served stale, whatever its times say. Only the standard library, so a warm command
can hash its inputs before importing anything heavy.

Every hash of the package is BLAKE2b (`blake2b`).

A file's hash is kept per its identity (`identity`: device, inode, size, modification and
change times), so a file hashed once is not read again while it stands. The change time
(ctime) is what makes that safe: the kernel sets it on every write and on every `os.utime`,
and nothing can set it back, so an edit whose size and mtime were restored (`rsync -t`,
`cp -p`) is still a new identity. A hash is kept only for a file whose last change was
`SETTLED_NS` before it was read: a filesystem whose clock ticks coarsely could otherwise
give a second edit within the same tick the same ctime.
"""

from __future__ import annotations

import os
import threading
import time
from hashlib import file_digest as _hashlib_file_digest

__all__ = ["SETTLED_NS", "file_digest", "identity", "settled_digest"]

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
    return settled_digest(path)[0]


def settled_digest(path: str | os.PathLike[str]) -> tuple[str, tuple[int, ...] | None]:
    """`file_digest`, and the identity it may be kept under elsewhere too (the disk cache):
    None where the file changed within `SETTLED_NS` of being read, or while it was read."""
    where = os.path.abspath(path)
    with _LOCK:
        known = _KNOWN.get(where)
    if known is not None and known[0] == identity(os.stat(where)):
        return known[1], known[0]
    started = time.time_ns()
    with open(where, "rb") as fh:
        before = os.fstat(fh.fileno())
        digest = _file_hash(fh)
        after = identity(os.fstat(fh.fileno()))
    if identity(before) != after or before.st_ctime_ns + SETTLED_NS >= started:
        return digest, None
    with _LOCK:
        _KNOWN[where] = (after, digest)
    return digest, after


def _file_hash(fh) -> str:
    return _hashlib_file_digest(fh, "blake2b").hexdigest()[:32]
