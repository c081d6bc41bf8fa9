"""Content-addressed on-disk cache of tables, as parquet.

Keys are hashes of the inputs' *content* and of every parameter, never of paths, so an edited
file can't be served stale. Writes go to a temp file in the same folder and are renamed into
place, so a reader sees a whole file or none, and concurrent sessions writing the same key
simply race to an identical result. Anything unreadable is deleted and rebuilt: the cache
holds nothing that can't be recomputed, so `clear()` is always safe.

Nor does anything depend on it: a cache that cannot be written (a read-only mount, a full disk, a
file where its folder should be) is an optimisation lost, never a failure. The first write
that fails marks its folder degraded for the life of the process (`_degrade`): no write is
tried there again, reads still serve what it holds, and callers keep their results in
memory. The cache then has a one-line `notice` that the CLI prints once and the app shows
on every page.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from leakeval_core.errors import LeakevalError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CACHE_VERSION",
    "PRECOMPUTED",
    "Cache",
    "default_cache_dir",
    "hash_key",
    "take_notices",
]

CACHE_VERSION = "3"
"""Bump when a cached table's meaning changes, so old entries are ignored."""


PRECOMPUTED = "precomputed"
"""An experiment's own folder of tables computed ahead of time (the demo writes its scores
and detected pairs there when it is generated), keyed as the cache is, by content: read when
the cache has no entry, never written at run time, and stale entries simply never match."""


def default_cache_dir() -> Path:
    if env := os.environ.get("LEAKEVAL_CACHE"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "leakeval"


_DEGRADED: dict[Path, str] = {}
"""Cache folders this process has stopped writing to, with the notice that says why."""
_DEGRADED_LOCK = threading.Lock()
_TAKEN: set[Path] = set()


def _degrade(root: Path, exc: OSError) -> str:
    """Record that the cache folder `root` cannot be written (the first reason is kept),
    and return its one-line notice. Every write under a cache comes here on failure."""
    if root.exists() and not root.is_dir():
        why = "not writable (a file is where its folder should be)"
    elif exc.errno == errno.ENOSPC:
        why = f"full ({os.strerror(exc.errno).lower()})"
    else:
        why = f"not writable ({os.strerror(exc.errno).lower() if exc.errno else exc})"
    with _DEGRADED_LOCK:
        return _DEGRADED.setdefault(
            root,
            f"leakeval: cache {root} is {why}; working from memory, nothing new is kept "
            "between runs",
        )


def take_notices() -> list[str]:
    """The notices of caches degraded since the last call, in the order they failed: the
    CLI says each once, after its command."""
    with _DEGRADED_LOCK:
        new = [root for root in _DEGRADED if root not in _TAKEN]
        _TAKEN.update(new)
        return [_DEGRADED[root] for root in new]


def hash_key(*parts: object) -> str:
    """A stable key over JSON-able parts (digests, parameters)."""
    text = json.dumps([CACHE_VERSION, *parts], sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class Cache:
    def __init__(self, root: str | Path | None = None, shelf: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.shelf = Path(shelf) if shelf is not None else None
        """A read-only folder laid out like the cache, consulted on a miss (`PRECOMPUTED`)."""

    @classmethod
    def of_experiment(cls, root: str | Path, cache: Cache | None = None) -> Cache:
        """`cache` (default: the user's) with the experiment's precomputed tables behind it."""
        cache = cache or cls()
        return cls(cache.root, Path(root) / PRECOMPUTED) if cache.shelf is None else cache

    @property
    def notice(self) -> str | None:
        """One line saying this cache cannot be written and the work goes on in memory,
        else None."""
        return _DEGRADED.get(self.root)

    def probe(self) -> str | None:
        """Try a write now rather than at the first table: a server says at once that it
        keeps nothing (even when everything it needs is already cached); the notice."""
        if self.notice is None:
            _write_atomically(self.root, self.root / ".probe", lambda tmp: None)
            self._discard(self.root / ".probe")
        return self.notice

    def path(self, kind: str, key: str, suffix: str = ".parquet") -> Path:
        return self.root / kind / f"{key}{suffix}"

    def has(self, kind: str, key: str) -> bool:
        """Whether a table is stored here or on the shelf (without reading it)."""
        name = self.path(kind, key)
        return name.is_file() or (
            self.shelf is not None and (self.shelf / kind / name.name).is_file()
        )

    def get(self, kind: str, key: str) -> tuple[pd.DataFrame, dict] | None:
        """The cached table and its metadata, or None when absent or unreadable."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = self.path(kind, key)
        if not path.is_file():
            shelved = self.shelf / kind / path.name if self.shelf is not None else None
            if shelved is None or not shelved.is_file():
                return None
            path = shelved
        try:
            table = pq.read_table(path)
            meta = json.loads((table.schema.metadata or {}).get(b"leakeval", b"{}"))
            return table.to_pandas(), meta
        except (pa.ArrowException, OSError, ValueError):
            if self.shelf is None or not path.is_relative_to(self.shelf):
                self._discard(path)  # truncated or corrupt: rebuild
            return None

    def put(self, kind: str, key: str, frame: pd.DataFrame, meta: dict | None = None) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), b"leakeval": json.dumps(meta or {}).encode()}
        )
        _write_atomically(self.root, self.path(kind, key), lambda tmp: pq.write_table(table, tmp))

    def get_bytes(self, kind: str, key: str) -> bytes | None:
        """A stored blob (a command's finished output, say), or None when absent or
        damaged; a damaged one is deleted. Blobs carry a checksum of their content, as
        bytes, unlike parquet, have no structure that would show a truncation."""
        path = self.path(kind, key, ".bin")
        try:
            stored = path.read_bytes()
        except OSError:
            return None
        checksum, data = stored[:_CHECKSUM], stored[_CHECKSUM:]
        if checksum != _checksum(data):
            self._discard(path)
            return None
        return data

    def put_bytes(self, kind: str, key: str, data: bytes) -> None:
        blob = _checksum(data) + data
        path = self.path(kind, key, ".bin")
        _write_atomically(self.root, path, lambda tmp: Path(tmp).write_bytes(blob))

    def _discard(self, path: Path) -> None:
        """Delete a damaged entry, so it is rebuilt (or the probe's file); where the cache
        cannot be written, it stays and is rebuilt in memory each time."""
        if self.notice is None:
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                _degrade(self.root, exc)

    def get_or_build(
        self, kind: str, key: str, build: Callable[[], tuple[pd.DataFrame, dict]]
    ) -> tuple[pd.DataFrame, dict]:
        hit = self.get(kind, key)
        if hit is not None:
            return hit
        frame, meta = build()
        self.put(kind, key, frame, meta)
        return frame, meta

    def clear(self) -> int:
        """Delete every entry; returns how many files went."""
        if not self.root.is_dir():
            return 0
        count = sum(1 for p in self.root.rglob("*") if p.is_file())
        try:
            shutil.rmtree(self.root)
        except OSError as exc:
            raise LeakevalError(f"cannot clear the cache {self.root}: {exc.strerror}") from None
        return count


_CHECKSUM = 16


def _checksum(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=_CHECKSUM).digest()


def _write_atomically(root: Path, path: Path, write: Callable[[str], object]) -> None:
    """Write through a temp file in the same folder, renamed into place: readers see the
    whole file or none, and concurrent writers of one key race to identical content.

    Nothing is written under a degraded `root`; a write that fails degrades it (`_degrade`)
    and returns, leaving no partial file behind."""
    if root in _DEGRADED:
        return
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
        os.close(fd)
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        _degrade(root, exc)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                Path(tmp).unlink(missing_ok=True)
