"""Grades of ranked documents: one search for a run's distinct documents, one for its (document,
query) pairs."""

from __future__ import annotations

import numpy as np

from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.ranking import Ranked

__all__ = ["lookup_grades"]


def lookup_grades(qrels: PreparedQrels, run: Ranked) -> tuple[np.ndarray, int]:
    """Each ranked row's grade as float (NaN where unjudged), and how many of the run's
    distinct documents are judged for any query."""
    documents, keys, grades = qrels.judged_index
    found = documents.positions(run.doc_values)
    doc = found[run.docs]
    rows = np.flatnonzero(doc >= 0)
    wanted = doc[rows] * len(qrels.qids) + run.qidx[rows]
    by_key = np.argsort(wanted)  # searching in order keeps the search in cache
    at = np.empty(len(rows), np.int64)
    at[by_key] = np.searchsorted(keys, wanted[by_key])
    at = np.minimum(at, len(keys) - 1)
    hit = keys[at] == wanted
    row = np.full(len(doc), np.nan)
    row[rows[hit]] = grades[at[hit]]
    return row, int((found >= 0).sum())
