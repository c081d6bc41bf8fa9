"""BLAS threads, which scoring never uses.

numpy's bundled OpenBLAS starts a thread per core when numpy is imported, and each spins,
yielding, for a while before it sleeps (OpenBLAS's thread timeout). Scoring makes no BLAS
call, so on a machine with few cores that spinning only takes the scoring threads' cores,
at the start of a command whose whole length is not much more (bench/score_bench.py). A
scoring command therefore has OpenBLAS start no thread of its own, unless the user chose
how many (OPENBLAS_NUM_THREADS, or OMP_NUM_THREADS, which OpenBLAS reads too).
"""

from __future__ import annotations

import os
import sys

__all__ = ["without_blas_threads"]


def without_blas_threads() -> bool:
    """Have numpy's OpenBLAS run on the calling thread alone, for this whole process. It
    reads its settings once, when numpy loads it, so this must run before numpy is
    imported; returns whether it was in time."""
    if "numpy" in sys.modules:
        return False
    if "OMP_NUM_THREADS" not in os.environ:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return True
