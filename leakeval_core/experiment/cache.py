"""Content-addressed on-disk cache of tables, as parquet.

Keys are hashes of the inputs' *content* and of every parameter, never of paths, so an edited
file can't be served stale. Writes go to a temp file in the same folder and are renamed into
place, so a reader sees a whole file or none, and concurrent sessions writing the same key
simply race to an identical result. Anything unreadable is deleted and rebuilt: the cache
holds nothing that can't be recomputed, so `clear()` is always safe.

The cache is bounded (`size_limit`: `LEAKEVAL_CACHE_MB`, default `DEFAULT_LIMIT_MB`). An
entry's modification time is when it was last used: set when it is written, and again on
every hit (`os.utime`, one atomic call, so concurrent processes only race to "now"). After
each write the least recently used entries go until the cache is within its limit. Only
whole entries are evicted, never a temp file, so a write in progress in another process is
never touched; a reader whose entry is evicted under it finds it gone, or unreadable, and
rebuilds it. Temp files left by a writer that died (`kill -9` mid-write) are removed when a
process first opens the cache (`_sweep`).

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
import io
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, BinaryIO

from leakeval_core.errors import LeakevalError
from leakeval_core.io.digest import identity, settled_digest

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BLOB",
    "CACHE_VERSION",
    "DEFAULT_LIMIT_MB",
    "DIGESTS",
    "LIMIT_VARIABLE",
    "PRECOMPUTED",
    "Cache",
    "Usage",
    "default_cache_dir",
    "hash_key",
    "size_limit",
    "take_notices",
]

CACHE_VERSION = "3"
"""Raised when the cache's own format or a cached leakage table's meaning changes, so old
entries are ignored. Scores and prepared qrels are keyed by the code that computes them
(`digests.scoring_code_digest`) instead."""


PRECOMPUTED = "precomputed"
"""An experiment's own folder of tables computed ahead of time (the demo writes its scores
and detected pairs there when it is generated), keyed as the cache is, by content: read when
the cache has no entry, never written at run time, and stale entries simply never match."""

BLOB = ".crc"
"""The suffix of a blob entry (`put_bytes`): its bytes after their CRC-32. Named for the
checksum, so that a blob under another (an older leakeval's, sharing the folder) is never
read as damaged and deleted, nor this one by it."""
DIGESTS = "file-digests"
"""The kind of entry that keeps a file's content hash by its identity (`Cache.file_digest`)."""


LIMIT_VARIABLE = "LEAKEVAL_CACHE_MB"
DEFAULT_LIMIT_MB = 1024
"""The cache's size limit when `LEAKEVAL_CACHE_MB` is not set: room for the tables of
thousands of the demo's conventions settings."""

STALE_SECONDS = 3600
"""A temp file untouched this long is a dead writer's, whoever wrote it: no write takes an
hour, and a live one changes its file as it goes."""
DEAD_WRITER_SECONDS = 60
"""A temp file whose writer (named in it) is a process of this host that no longer runs is
removed once it is this old: the grace covers a writer this host cannot see (another pid
namespace sharing the hostname and the folder), which writes in bursts of seconds."""


def size_limit() -> int:
    """The cache's size limit in bytes, from `LEAKEVAL_CACHE_MB` (megabytes, may be
    fractional), else `DEFAULT_LIMIT_MB`."""
    raw = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_LIMIT_MB << 20
    try:
        megabytes = float(raw)
    except ValueError:
        megabytes = float("nan")
    if not 0 < megabytes < float("inf"):
        raise LeakevalError(
            f"{LIMIT_VARIABLE}={raw!r}: not a size in megabytes; give a positive number such "
            f"as {DEFAULT_LIMIT_MB} (the default), or unset it"
        )
    return int(megabytes * (1 << 20))


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
    return blake2b(text.encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class Usage:
    """What a cache folder holds: `leakeval cache` prints it."""

    root: Path
    kinds: dict[str, tuple[int, int]]
    """Kind of entry -> (entries, bytes)."""
    temporary: tuple[int, int]
    """(files, bytes) being written now, or left by a writer that died."""
    limit: float
    """The size limit, in bytes."""

    @property
    def entries(self) -> int:
        return sum(n for n, _ in self.kinds.values())

    @property
    def size(self) -> int:
        return sum(b for _, b in self.kinds.values())


class Cache:
    def __init__(
        self,
        root: str | Path | None = None,
        shelf: str | Path | None = None,
        max_bytes: float | None = None,
    ) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.shelf = Path(shelf) if shelf is not None else None
        """A read-only folder laid out like the cache, consulted on a miss (`PRECOMPUTED`)."""
        self.max_bytes = max_bytes if max_bytes is not None else size_limit()
        """The size limit in bytes (default: `size_limit()`, so a bad LEAKEVAL_CACHE_MB is
        said before any work starts). An experiment's `precomputed/` folder is written
        unbounded (`math.inf`)."""
        _sweep_once(self.root)

    @classmethod
    def of_experiment(cls, root: str | Path, cache: Cache | None = None) -> Cache:
        """`cache` (default: the user's) with the experiment's precomputed tables behind it."""
        cache = cache or cls()
        if cache.shelf is not None:
            return cache
        return cls(cache.root, Path(root) / PRECOMPUTED, cache.max_bytes)

    @property
    def notice(self) -> str | None:
        """One line saying this cache cannot be written and the work goes on in memory,
        else None."""
        return _DEGRADED.get(self.root)

    def probe(self) -> str | None:
        """Try a write now rather than at the first table: a server says at once that it
        keeps nothing (even when everything it needs is already cached); the notice."""
        if self.notice is None and _write_atomically(
            self.root, self.root / ".probe", lambda tmp: None
        ):
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
        except FileNotFoundError:
            return None  # evicted (or cleared) since it was found: rebuilt
        except (pa.ArrowException, OSError, ValueError):
            if self.shelf is None or not path.is_relative_to(self.shelf):
                self._discard(path)  # truncated or corrupt: rebuild
            return None
        if self.shelf is None or not path.is_relative_to(self.shelf):
            _used(path)
        return table.to_pandas(), meta

    def put(self, kind: str, key: str, frame: pd.DataFrame, meta: dict | None = None) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), b"leakeval": json.dumps(meta or {}).encode()}
        )
        self._write(self.path(kind, key), lambda tmp: pq.write_table(table, tmp))

    def file_digest(self, path: str | os.PathLike[str]) -> str:
        """`io.digest.file_digest`, kept here by the file's identity too, so that the next
        command finds a large file's hash without reading the file, as git's index keeps
        its files' hashes by their stat. Kept by the same rule as in memory
        (`io.digest.settled_digest`)."""
        where = os.path.abspath(path)
        stored = self.get_bytes(DIGESTS, hash_key(DIGESTS, where, identity(os.stat(where))))
        if stored is not None:
            return bytes(stored).decode()
        digest, settled = settled_digest(where)
        if settled is not None:
            self.put_bytes(DIGESTS, hash_key(DIGESTS, where, settled), digest.encode())
        return digest

    def get_bytes(self, kind: str, key: str) -> memoryview | None:
        """A stored blob (a command's finished output, say), or None when absent or
        damaged; a damaged one is deleted. Blobs carry a checksum of their content, as
        bytes, unlike parquet, have no structure that would show a truncation or a flipped
        bit. The blob is a view past the checksum, not a second copy."""
        path = self.path(kind, key, BLOB)
        try:
            stored = memoryview(path.read_bytes())
        except OSError:
            return None
        checksum, data = stored[:_CHECKSUM], stored[_CHECKSUM:]
        if checksum != _Checksum(data).digest():
            self._discard(path)
            return None
        _used(path)
        return data

    def put_bytes(self, kind: str, key: str, data: bytes | memoryview) -> None:
        self.put_stream(kind, key, lambda sink: sink.write(data))

    def put_stream(self, kind: str, key: str, write: Callable[[BinaryIO], object]) -> None:
        """Store a blob that `write` writes into a file object piece by piece, so that a
        large one is never held whole in memory beside what it is made of. Its checksum is
        computed as it goes and put before it, where `get_bytes` reads it."""

        def to_file(tmp: str) -> None:
            with open(tmp, "wb") as fh:
                fh.write(bytes(_CHECKSUM))
                sink = _Checksummed(fh)
                write(sink)
                fh.seek(0)
                fh.write(sink.checksum.digest())

        self._write(self.path(kind, key, BLOB), to_file)

    def _write(self, path: Path, write: Callable[[str], object]) -> None:
        """Write an entry atomically, then evict down to the limit. An entry larger than
        the limit is not kept: evicting down to it would delete every other entry, then
        this one."""
        if _write_atomically(self.root, path, write, self.max_bytes):
            _evict(self.root, self.max_bytes)

    def usage(self) -> Usage:
        """What the cache holds now, by kind of entry."""
        kinds: dict[str, tuple[int, int]] = {}
        temporary = [0, 0]
        for kind, _, entry, stat in _files(self.root):
            if entry:
                n, size = kinds.get(kind, (0, 0))
                kinds[kind] = (n + 1, size + stat.st_size)
            else:
                temporary[0] += 1
                temporary[1] += stat.st_size
        return Usage(self.root, dict(sorted(kinds.items())), tuple(temporary), self.max_bytes)

    def discard(self, kind: str, key: str) -> None:
        """Delete a blob its reader could not use, so that it is rebuilt."""
        self._discard(self.path(kind, key, BLOB))

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


_CHECKSUM = 4


class _Checksum:
    """The blob checksum over `data`, to be fed more where it is written piece by piece
    (`_Checksummed`). A CRC-32: it guards against damage (a truncation, flipped bits), not
    against a writer, who could recompute any unkeyed hash; and it reads a kept entry five
    times faster than BLAKE2b, which a command waits for before its first run is scored."""

    def __init__(self, data: bytes | memoryview = b"") -> None:
        self._value = zlib.crc32(data)

    def update(self, data: bytes | memoryview) -> None:
        self._value = zlib.crc32(data, self._value)

    def digest(self) -> bytes:
        return self._value.to_bytes(_CHECKSUM, "little")


class _Checksummed(io.RawIOBase):
    """A file being written after its checksum's place, hashing what it is given."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self.checksum = _Checksum()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        written = self._file.write(data)
        self.checksum.update(memoryview(data)[:written])
        return written


def _write_atomically(
    root: Path, path: Path, write: Callable[[str], object], limit: float = float("inf")
) -> bool:
    """Write through a temp file in the same folder, renamed into place: readers see the
    whole file or none, and concurrent writers of one key race to identical content. The
    temp file's name says which process writes it (`_TEMP_NAME`), for `_sweep`. The entry's
    time is set to now before it appears: it is the most recently used. Whether it was
    written: a file larger than `limit` (bytes) is not.

    Nothing is written under a degraded `root`; a write that fails degrades it (`_degrade`)
    and returns, leaving no partial file behind. A temp file or folder removed meanwhile (a
    `clear`, a sweep that took this writer for dead) loses this entry only."""
    if root in _DEGRADED:
        return False
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        writer = f"{os.getpid()}@{_HOST}"  # at each write: a forked child is its own writer
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.{writer}.", suffix=_TMP)
        os.close(fd)
        write(tmp)
        if os.path.getsize(tmp) > limit:
            return False
        now = time.time_ns()
        os.utime(tmp, ns=(now, now))
        os.replace(tmp, path)
        tmp = None
        return True
    except FileNotFoundError:
        return False
    except OSError as exc:
        _degrade(root, exc)
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                Path(tmp).unlink(missing_ok=True)


_TMP = ".tmp"
_HOST = socket.gethostname() or "localhost"
_TEMP_NAME = re.compile(r"\.(?P<pid>\d+)@(?P<host>[^@/]+)\.[^.]+\.tmp$")
"""A temp file's name says who writes it: `.KEY.PID@HOST.RANDOM.tmp`."""
_SWEPT: set[Path] = set()
_SWEPT_LOCK = threading.Lock()


def _files(
    root: Path, entries: bool = True, temporary: bool = True
) -> Iterator[tuple[str, str, bool, os.stat_result]]:
    """(kind, path, is an entry, stat) of the cache's entries and of its temp files (which
    are not entries), each kind when asked for: only those asked for are looked at. A file
    that vanishes while listed is skipped."""
    try:
        top = list(os.scandir(root))
    except OSError:
        return
    folders = [("", root, [f for f in top if f.name.startswith(".")])]  # the probe's
    folders += [(f.name, f.path, None) for f in top if f.is_dir(follow_symlinks=False)]
    for kind, folder, files in folders:
        try:
            files = list(os.scandir(folder)) if files is None else files
        except OSError:
            continue
        for file in files:
            entry = not file.name.startswith(".")
            if not (entries if entry else temporary and file.name.endswith(_TMP)):
                continue
            try:
                stat = file.stat(follow_symlinks=False)
            except OSError:
                continue
            if S_ISREG(stat.st_mode):
                yield kind, file.path, entry, stat


def _evict(root: Path, limit: float) -> int:
    """Delete the least recently used entries until the entries' bytes are within `limit`;
    how many went. Another process evicting at once may delete one first: that is fine."""
    if limit == float("inf"):
        return 0
    entries = sorted(
        (stat.st_mtime_ns, path, stat.st_size) for _, path, _, stat in _files(root, temporary=False)
    )
    total = sum(size for *_, size in entries)
    gone = 0
    for _, path, size in entries:
        if total <= limit:
            break
        try:
            os.unlink(path)
            gone += 1
        except FileNotFoundError:
            pass
        except OSError:
            break  # nothing can be deleted here now; the next write tries again
        total -= size
    return gone


def _used(path: Path) -> None:
    """Mark an entry used now (its modification time): the last to be evicted. An entry
    evicted meanwhile, or a cache that cannot be written, keeps no mark."""
    with contextlib.suppress(OSError):
        now = time.time_ns()
        os.utime(path, ns=(now, now))


def _sweep_once(root: Path) -> None:
    """`_sweep` the first time this process opens the cache folder `root`."""
    with _SWEPT_LOCK:
        if root in _SWEPT:
            return
        _SWEPT.add(root)
    _sweep(root)


def _sweep(root: Path) -> int:
    """Delete the temp files dead writers left; how many went.

    A temp file goes when it is `STALE_SECONDS` old (no writer on any host takes that
    long, and a live one keeps changing its file), or when it is `DEAD_WRITER_SECONDS` old
    and its name says it is a process of this host that no longer runs. A live writer's
    file is never taken: its process runs, or, seen from another pid namespace, it is
    recent. A pid reused since only keeps a dead writer's file until the hour has passed."""
    now = time.time()
    gone = 0
    for _, path, _, stat in _files(root, entries=False):
        age = now - stat.st_mtime
        writer = _TEMP_NAME.search(os.path.basename(path))
        dead = (
            writer is not None
            and writer["host"] == _HOST
            and age > DEAD_WRITER_SECONDS
            and not _running(int(writer["pid"]))
        )
        if age > STALE_SECONDS or dead:
            with contextlib.suppress(OSError):
                os.unlink(path)
                gone += 1
    return gone


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True
