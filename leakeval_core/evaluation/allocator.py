"""Allocator settings for a process that scores run files, where peak memory is measured.

pyarrow allocates from its bundled mimalloc. By default mimalloc commits whole arenas up
front and gives freed pages back to the system only after a delay, so a scorer that frees
each run's arrays as it moves on still holds them at its peak. Turning both off costs
nothing measurable here and lowers the peak: the 100-run bench from 216-224 MB to 158-160
MB, and a 10M-line run from 747-797 MB to 691 MB (bench/score_bench.py,
bench/large_run_bench.py). glibc's malloc (`ARROW_DEFAULT_MEMORY_POOL=system`) was tried
too: its per-thread arenas and rising mmap threshold took the 10M-line run to 940 MB.
"""

from __future__ import annotations

import os
import sys

__all__ = ["MIMALLOC_OPTIONS", "release_memory_promptly"]

MIMALLOC_OPTIONS = {"MIMALLOC_ARENA_EAGER_COMMIT": "0", "MIMALLOC_PURGE_DELAY": "0"}


def release_memory_promptly() -> bool:
    """Set mimalloc's options for this process, unless the user set them. mimalloc reads
    them once, when pyarrow loads it, so this only works before pyarrow is imported: it
    returns whether it was in time."""
    if "pyarrow" in sys.modules:
        return False
    for name, value in MIMALLOC_OPTIONS.items():
        os.environ.setdefault(name, value)
    return True
