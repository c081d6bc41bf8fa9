"""Allocator settings for a process that scores run files, where peak memory is measured.

Two allocators serve the scorer, and each holds freed memory by default:
- pyarrow's bundled mimalloc commits whole arenas up front and gives freed pages back only
  after a delay;
- glibc's malloc, under numpy, raises its mmap threshold to the largest block ever freed,
  so the qrels' large temporaries are reused from the heap and the heap never shrinks.

`leakeval score` turns both off and hands back what the qrels' preparation freed before the
runs start, so its peak is the qrels and the runs being scored, not every block ever freed
(`bench/score_bench.py` and `bench/large_run_bench.py` measure it). The served app turns
both off too, and hands back what a closed session's uploads held (`bench/server_bench.py`).

Scoring many small run files is the opposite case: each frees and takes again some
megabytes of pyarrow's, and with mimalloc handing them back at once every page is faulted
in afresh for the next file, a fifth of the time reading a small run takes. So in
`leakeval score` pyarrow allocates through jemalloc where it has it, which keeps such
blocks for the next file and hands back at once those of `REUSED_BYTES` and more; a larger
run file is still read through mimalloc (`reading_pool`), and so are qrels prepared from
their file (`handing_back`), whose scratch would be kept for nothing. The served app keeps
mimalloc alone: its readers come and go. Not through glibc: its arenas fragment the heap on
large runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "MIMALLOC_OPTIONS",
    "MMAP_THRESHOLD",
    "REUSED_BYTES",
    "TRIM_THRESHOLD",
    "reading_pool",
    "release_memory_promptly",
    "return_free_memory",
]

MIMALLOC_OPTIONS = {"MIMALLOC_ARENA_EAGER_COMMIT": "0", "MIMALLOC_PURGE_DELAY": "0"}
MMAP_THRESHOLD = 1 << 20
"""numpy arrays from this size up get pages of their own, returned when freed: the qrels'
arrays (hundreds of thousands of judgments) are above it, a run's (tens of thousands of
rows) below, where reusing the heap is fast. Lower, every run's arrays fault in fresh
pages; higher, the peak holds more freed memory."""
TRIM_THRESHOLD = 8 << 20
"""Free memory glibc keeps at the top of each heap before handing it back. Setting the
mmap threshold would fix this below one run's arrays, so that every run's arrays were fresh
pages, each a page fault; a few runs' worth kept costs little at the peak."""
REUSED_BYTES = 4 << 20
"""Blocks jemalloc keeps for reuse are smaller than this (`JEMALLOC_OPTIONS`), and so are
the run files read through it (`reading_pool`): what it keeps is a few small files'
blocks, never a large run's."""
JEMALLOC_OPTIONS = {"JE_ARROW_MALLOC_CONF": f"oversize_threshold:{REUSED_BYTES}"}
GLIBC = "libc.so.6"
"""glibc's name on Linux, which `_glibc` opens."""
_KEEPING = threading.Event()
"""Set once leakeval has pyarrow allocate through jemalloc (`release_memory_promptly`)."""
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def release_memory_promptly(reuse_small_blocks: bool = False) -> bool:
    """Set both allocators to give freed memory back, for this whole process; with
    `reuse_small_blocks` (a command scoring many run files), have pyarrow allocate through
    jemalloc where it has it, which keeps blocks under `REUSED_BYTES` for the next file.

    mimalloc and jemalloc read their options once, when pyarrow loads them, so this must run
    before pyarrow is imported; options the user set are kept, and so is a pool they chose
    (ARROW_DEFAULT_MEMORY_POOL). Returns whether it was in time.
    """
    if _glibc() is not None:
        _glibc().mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        _glibc().mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    if "pyarrow" in sys.modules:
        return False
    for name, value in {**MIMALLOC_OPTIONS, **JEMALLOC_OPTIONS}.items():
        os.environ.setdefault(name, value)
    if not reuse_small_blocks:  # named: pyarrow before 18 defaults to jemalloc on Linux
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
    elif "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow as pa

        with contextlib.suppress(NotImplementedError):  # a build without jemalloc
            pa.set_memory_pool(pa.jemalloc_memory_pool())
            _KEEPING.set()
    return True


def reading_pool(size: int) -> pa.MemoryPool | None:
    """The pool to read a file of `size` bytes through, where small blocks are kept
    (`release_memory_promptly`): mimalloc, which hands its blocks back at once, for a file
    larger than `REUSED_BYTES`, so that a large run's peak is its own blocks, not what a
    pool kept; jemalloc, which keeps them, for a smaller one. Named, not the default pool:
    a scoring thread reads its first runs while the qrels are prepared, when the default
    is mimalloc (`handing_back`), and runs read then would each leave their own mimalloc
    heap behind. None (the default pool) where nothing is kept."""
    if size > REUSED_BYTES:
        return _handing_back()
    if not _KEEPING.is_set():
        return None
    import pyarrow as pa

    return pa.jemalloc_memory_pool()


@contextlib.contextmanager
def handing_back() -> Iterator[None]:
    """Within, pyarrow allocates through mimalloc where small blocks are kept otherwise
    (`release_memory_promptly`): for a large one-off step, preparing the qrels from their
    file, whose blocks would be kept for nothing."""
    import pyarrow as pa

    pool, kept = _handing_back(), pa.default_memory_pool()
    if pool is None:
        yield
        return
    pa.set_memory_pool(pool)
    try:
        yield
    finally:
        pa.set_memory_pool(kept)


def _handing_back() -> pa.MemoryPool | None:
    """mimalloc where leakeval had pyarrow allocate through jemalloc
    (`release_memory_promptly`), else None: the default pool hands blocks back already, or
    is the one the user chose."""
    if not _KEEPING.is_set():
        return None
    import pyarrow as pa

    try:
        return pa.mimalloc_memory_pool()
    except NotImplementedError:
        return None


def return_free_memory() -> None:
    """Hand the pages both allocators hold but no longer use back to the system: after a
    large one-off step (preparing the qrels), so the steps after it start from what is
    really in use."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    if _glibc() is not None:
        _glibc().malloc_trim(0)


@cache
def _glibc() -> ctypes.CDLL | None:
    """The C library where it is glibc (it has mallopt and malloc_trim); None elsewhere.
    Opened by glibc's own name, already loaded into the process: `ctypes.util.find_library`
    imports subprocess and tempfile to look for it, a share of every command's start-up."""
    try:
        library = ctypes.CDLL(GLIBC)
    except OSError:  # musl, macOS, Windows: no glibc
        return None
    return library if hasattr(library, "malloc_trim") else None
