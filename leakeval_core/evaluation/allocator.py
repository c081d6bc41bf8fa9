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

pyarrow allocates through jemalloc where its build has it (Linux and macOS wheels): it gives
large blocks back at once, as mimalloc does with no delay, but keeps the blocks of less
than a megabyte that each run file's columns take for the next file, where mimalloc without
a delay gives them back and faults every page in again, about a tenth of scoring's time.
Not through glibc: its arenas fragment the heap on large runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys
from functools import cache

__all__ = [
    "MIMALLOC_OPTIONS",
    "MMAP_THRESHOLD",
    "TRIM_THRESHOLD",
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
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def release_memory_promptly() -> bool:
    """Set both allocators to give freed memory back, for this whole process, and pyarrow's
    to jemalloc where it has it.

    mimalloc reads its options once, when pyarrow loads it, so this must run before pyarrow
    is imported; options the user set are kept, and so is a pool they chose
    (ARROW_DEFAULT_MEMORY_POOL). Returns whether it was in time.
    """
    if _glibc() is not None:
        _glibc().mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        _glibc().mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    if "pyarrow" in sys.modules:
        return False
    for name, value in MIMALLOC_OPTIONS.items():
        os.environ.setdefault(name, value)
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow as pa

        with contextlib.suppress(NotImplementedError):  # a build without jemalloc
            pa.set_memory_pool(pa.jemalloc_memory_pool())
    return True


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
    """The C library where it is glibc (it has mallopt and malloc_trim); None elsewhere."""
    name = ctypes.util.find_library("c")
    library = ctypes.CDLL(name) if name else None
    return library if library is not None and hasattr(library, "malloc_trim") else None
