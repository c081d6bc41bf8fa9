"""Grades of ranked documents: one search per distinct document of a run."""

from __future__ import annotations

import numpy as np

from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.ranking import Ranked

__all__ = ["lookup_grades"]


def lookup_grades(qrels: PreparedQrels, run: Ranked) -> tuple[np.ndarray, int]:
    """Each ranked row's grade as float (NaN where unjudged), and how many of the run's
    distinct documents are judged for any query."""
    documents, first, count, queries, grades = qrels.judged_index
    found = documents.positions(run.doc_values)
    doc = found[run.docs]
    rows = np.flatnonzero(doc >= 0)
    wanted, block = run.qidx[rows], doc[rows]
    end = first[block] + count[block]
    pos = _search_blocks(queries, first[block], end, wanted)
    hit = pos < end
    hit[hit] = queries[pos[hit]] == wanted[hit]
    row = np.full(len(doc), np.nan)
    row[rows[hit]] = grades[pos[hit]]
    return row, int((found >= 0).sum())


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
