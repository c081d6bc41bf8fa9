"""Grades of ranked documents: one hash lookup per distinct document for a whole group of runs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from leakeval_core.evaluation.arrow import codes
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.ranking import Ranked

__all__ = ["lookup_grades"]


def lookup_grades(qrels: PreparedQrels, runs: Sequence[Ranked]) -> list[tuple[np.ndarray, int]]:
    """Each ranked row's grade as float (NaN where unjudged), and how many of the run's
    distinct documents are judged for any query.

    All runs' documents are looked up in one call, so the judged documents' hash table
    is built once per group of runs rather than once per run.
    """
    doc_values, first, count, queries, grades = qrels.judged_index
    found = codes(pa.chunked_array([r.doc_values for r in runs], type=pa.string()), doc_values)
    bounds = np.cumsum([0, *(len(r.doc_values) for r in runs)])
    out = []
    for run, start, stop in zip(runs, bounds[:-1], bounds[1:], strict=True):
        doc = found[start:stop][run.docs]
        rows = np.flatnonzero(doc >= 0)
        wanted, block = run.qidx[rows], doc[rows]
        end = first[block] + count[block]
        pos = _search_blocks(queries, first[block], end, wanted)
        hit = pos < end
        hit[hit] = queries[pos[hit]] == wanted[hit]
        row = np.full(len(doc), np.nan)
        row[rows[hit]] = grades[pos[hit]]
        out.append((row, int((found[start:stop] >= 0).sum())))
    return out


def _search_blocks(
    values: np.ndarray, lo: np.ndarray, hi: np.ndarray, wanted: np.ndarray
) -> np.ndarray:
    """For each i, where `wanted[i]` is (or would go) in the sorted block values[lo[i]:hi[i]].

    One vectorised binary search over all blocks at once: as many rounds as the longest
    block has bits, each on the rows still searching. Blocks are short (a document is
    judged for a few queries), so this beats searching the whole array.
    """
    lo, hi = lo.copy(), hi.copy()
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        right = values[mid] < wanted[active]
        lo[active[right]] = mid[right] + 1
        hi[active[~right]] = mid[~right]
        active = active[lo[active] < hi[active]]
    return lo
