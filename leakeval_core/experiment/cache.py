"""Content-addressed on-disk cache of tables, as parquet.

Keys are hashes of the inputs' *content* and of every parameter, never of paths, so an edited
file can't be served stale. Writes go to a temp file in the same folder and are renamed into
place, so a reader sees a whole file or none, and concurrent sessions writing the same key
simply race to an identical result. Anything unreadable is deleted and rebuilt: the cache
holds nothing that can't be recomputed, so `clear()` is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CACHE_VERSION", "PRECOMPUTED", "Cache", "default_cache_dir", "hash_key"]

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
                path.unlink(missing_ok=True)  # truncated or corrupt: rebuild
            return None

    def put(self, kind: str, key: str, frame: pd.DataFrame, meta: dict | None = None) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), b"leakeval": json.dumps(meta or {}).encode()}
        )
        _write_atomically(self.path(kind, key), lambda tmp: pq.write_table(table, tmp))

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
            path.unlink(missing_ok=True)
            return None
        return data

    def put_bytes(self, kind: str, key: str, data: bytes) -> None:
        blob = _checksum(data) + data
        _write_atomically(self.path(kind, key, ".bin"), lambda tmp: Path(tmp).write_bytes(blob))

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
        shutil.rmtree(self.root)
        return count


_CHECKSUM = 16


def _checksum(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=_CHECKSUM).digest()


def _write_atomically(path: Path, write: Callable[[str], object]) -> None:
    """Write through a temp file in the same folder, renamed into place: readers see the
    whole file or none, and concurrent writers of one key race to identical content."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
