"""A run in leakeval's ranking order: score descending, then docid in the tie order.

trec_eval and pytrec_eval ignore the rank column and break ties by docid descending; the
ranking here is the one every provider scores, so the tie policy is the user's choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.arrow import (
    as_table,
    dictionary,
    group_starts,
    rank_within,
    strings,
)
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.io.arrays import from_numpy, to_numpy

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.evaluation.arrow import RunLike

__all__ = ["Ranked", "rank", "rank_run"]


@dataclass(frozen=True)
class Ranked:
    """A run's scored rows in ranking order, cut at depth, as integer codes."""

    name: str
    qidx: np.ndarray
    """Each row's query as a position in `PreparedQrels.qids`."""
    rank: np.ndarray
    docs: np.ndarray
    """Each row's document as a position in `doc_values`."""
    doc_values: pa.Array
    """Every distinct document of the run, including those below depth."""
    in_run: np.ndarray
    """Per scored query: does the run rank anything for it?"""
    not_in_qrels: int
    tied_pairs: int


def _sorted_position(values: pa.Array) -> np.ndarray:
    """Each value's position in sorted order, so strings can be ordered as integers."""
    position = np.empty(len(values), np.int64)
    position[to_numpy(pc.sort_indices(values))] = np.arange(len(values))
    return position


def _ranking(
    groups: np.ndarray, scores: np.ndarray, docs: np.ndarray, doc_values: pa.Array, tie_order: str
) -> tuple[np.ndarray | None, np.ndarray, int]:
    """Ranking order of rows (None when they already are in it), where each group starts in
    that order (`group_starts`), and the number of tied document pairs.

    The order is group ascending, score descending, then docid in the tie order. Most run
    files are written grouped by query with scores descending, so that is checked first
    (linear). Then only tied rows that are out of docid order need sorting, among
    themselves; a full sort happens only when groups or scores are out of order.
    """
    ascending = tie_order == "docid_asc"
    same = groups[1:] == groups[:-1]
    tied = same & (scores[1:] == scores[:-1])
    starts = group_starts(groups)
    firsts = np.sort(groups[starts])  # not np.unique: it imports numpy.ma on first use
    grouped = not (firsts[1:] == firsts[:-1]).any()  # each group in one stretch
    runs = np.diff(np.flatnonzero(np.r_[True, ~tied, True]))
    tied_pairs = int((runs * (runs - 1) // 2).sum())
    if grouped and bool(np.all(~same | (scores[1:] <= scores[:-1]))):
        # ties move within their group only: where each group starts stays
        order = _order_ties(tied, docs, doc_values, ascending) if tied.any() else None
    else:
        sign = 1 if ascending else -1
        order = np.lexsort((sign * _sorted_position(doc_values)[docs], -scores, groups))
        starts = group_starts(groups[order])
    return order, starts, tied_pairs


def _order_ties(
    tied: np.ndarray, docs: np.ndarray, doc_values: pa.Array, ascending: bool
) -> np.ndarray | None:
    """Row order that puts each block of tied rows in docid order, the rest staying put;
    None when every block already is. Only the tied rows' docids are compared."""
    member = np.r_[tied, False] | np.r_[False, tied]
    rows = np.flatnonzero(member)
    block = np.cumsum(np.r_[True, ~tied[rows[:-1]]])  # tied[i]: rows i and i+1 share a block
    docids = pc.take(doc_values, from_numpy(docs[rows]))
    table = pa.table({"block": from_numpy(block), "docid": docids})
    direction = "ascending" if ascending else "descending"
    within = pc.sort_indices(table, [("block", "ascending"), ("docid", direction)])
    within = to_numpy(within)
    if (within == np.arange(len(rows))).all():
        return None
    order = np.arange(len(docs))
    order[rows] = rows[within]
    return order


def _judged(
    qrels: PreparedQrels, qidx: np.ndarray, docs: np.ndarray, doc_values: pa.Array
) -> np.ndarray:
    """Whether each row's document is judged for its query: what a condensed list keeps."""
    documents = qrels.judgments.documents(strings(doc_values))
    return ~np.isnan(qrels.judgments.grades(qidx, documents[docs]))


def rank(run: RunLike, qrels: PreparedQrels, name: str, tie_order: str | None = None) -> Ranked:
    """Rank a run's scored queries under the qrels' conventions, or under `tie_order` where
    given."""
    table = as_table(run)
    qid_codes, qid_values = dictionary(table, "qid")
    judged, positions = qrels.query_positions(qid_values)
    if len(qid_values) and not judged.any():
        raise LeakevalError(
            f"{name}: none of its {len(qid_values)} queries has judgments in the qrels; "
            "is this run for another collection?"
        )
    qidx = positions.astype(np.int32)[qid_codes]
    docs, doc_values = dictionary(table, "docid")
    scores = to_numpy(table.column("score"))
    scored = qidx >= 0
    if qrels.conventions.condensed:
        scored[scored] = _judged(qrels, qidx[scored], docs[scored], doc_values)
    if not scored.all():
        qidx, docs, scores = qidx[scored], docs[scored], scores[scored]
    order, starts, tied_pairs = _ranking(
        qidx, scores, docs, doc_values, tie_order or qrels.conventions.tie_order
    )
    if order is not None:
        qidx, docs = qidx[order], docs[order]
    rank = rank_within(qidx, starts)
    keep = rank <= qrels.conventions.depth
    in_run = np.zeros(len(qrels.qids), bool)
    in_run[qidx[starts]] = True
    return Ranked(
        name=name,
        qidx=qidx[keep],
        rank=rank[keep],
        docs=docs[keep],
        doc_values=strings(doc_values),
        in_run=in_run,
        not_in_qrels=int((~judged).sum()),
        tied_pairs=tied_pairs,
    )


def rank_run(run: pd.DataFrame, conventions: Conventions = Conventions()) -> pd.DataFrame:
    """Order a run by the tie policy and cut it at depth; adds a 1-based `rank` column.

    Queries come in qid order. The input frame is never modified.
    """
    table = as_table(run)
    qid_codes, qid_values = dictionary(table, "qid")
    docs, doc_values = dictionary(table, "docid")
    groups = _sorted_position(qid_values)[qid_codes]
    order, starts, _ = _ranking(
        groups, to_numpy(table.column("score")), docs, doc_values, conventions.tie_order
    )
    rank = rank_within(groups if order is None else groups[order], starts)
    keep = rank <= conventions.depth
    rows = np.flatnonzero(keep) if order is None else order[keep]
    return run.iloc[rows].reset_index(drop=True).assign(rank=rank[keep])
