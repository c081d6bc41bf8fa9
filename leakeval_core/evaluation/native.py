"""leakeval's own vectorised measures, each bound by name to its declaration in `measures`.

A measure family is declared once (name, label, direction, description) in `measures`, which
stays free of numpy so that naming a measure costs nothing. Its computation is registered
here under the same name with `@computes`; importing this module fails if a native family
has no computation or a computation has no declaration, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from leakeval_core.evaluation.arrow import rank_within
from leakeval_core.evaluation.measures import FAMILIES, Measure
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.run_order import Ranked

__all__ = ["COMPUTE", "native_scores"]


@dataclass(frozen=True)
class Judged:
    """One ranked run's rows (within depth) with their grades: what every measure reads.

    Most measures read few rows (the top k, the relevant ones), so they select those rows
    first and compute on them alone: a whole-run array per step costs more than the
    measure. Rows are in ranking order, each query's together with its ranks ascending
    (`run_order`), so a query's relevant rows come in rank order too.
    """

    run: Ranked
    grades: np.ndarray
    """Each ranked row's grade, NaN where unjudged."""
    qrels: PreparedQrels

    @property
    def rank(self) -> np.ndarray:
        return self.run.rank

    @cached_property
    def judged(self) -> np.ndarray:
        """Judged rows: a grade of 0 or more (NaN compares false). trec_eval treats
        negative grades as unjudged."""
        return self.grades >= 0

    @cached_property
    def assessed(self) -> np.ndarray:
        """Rows with any judgment, a negative grade included: an assessor saw them."""
        return ~np.isnan(self.grades)

    @cached_property
    def relevant(self) -> np.ndarray:
        """Positions of the relevant rows, in ranking order."""
        level = self.qrels.conventions.relevance_level
        return np.flatnonzero(self.judged & (self.grades >= level))

    @cached_property
    def relevant_so_far(self) -> np.ndarray:
        """At each relevant row, how many relevant rows its query has up to and with it."""
        return rank_within(self.run.qidx[self.relevant])

    @cached_property
    def first_relevant(self) -> np.ndarray:
        """Per scored query, the rank of its first relevant document (inf: none in depth)."""
        first = np.full(len(self.qrels.qids), np.inf)
        rows = self.relevant[self.relevant_so_far == 1]
        first[self.run.qidx[rows]] = self.rank[rows]
        return first

    def within(self, rows: np.ndarray, k: int | float | None) -> np.ndarray:
        """Those of `rows` (positions) ranked at k or above."""
        return rows[self.rank[rows] <= k]

    def per_query(self, rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Sum of `weights` (one per row of `rows`), or the count of `rows`, per query;
        `rows` are positions or a mask."""
        nq = len(self.qrels.qids)
        return np.bincount(self.run.qidx[rows], weights=weights, minlength=nq).astype(np.float64)


Compute = Callable[[Judged, int | None], np.ndarray]
COMPUTE: dict[str, Compute] = {}
"""Family name -> per-query values aligned with `PreparedQrels.qids`."""


def computes(family: str) -> Callable[[Compute], Compute]:
    def register(function: Compute) -> Compute:
        if family not in FAMILIES or not FAMILIES[family].native:
            raise RuntimeError(f"{family!r} is not declared as a native measure family")
        COMPUTE[family] = function
        return function

    return register


@computes("ndcg_cut")
def _ndcg(r: Judged, k: int | None) -> np.ndarray:
    gaining = np.flatnonzero(r.qrels.gaining(r.grades) & (r.rank <= k))
    discounted = r.qrels.gain(r.grades[gaining]) / np.log2(r.rank[gaining] + 1)
    return r.per_query(gaining, discounted) / r.qrels.ideal_dcg(k)


@computes("P")
def _precision(r: Judged, k: int | None) -> np.ndarray:
    return r.per_query(r.within(r.relevant, k)) / k


@computes("recall")
def _recall(r: Judged, k: int | None) -> np.ndarray:
    return r.per_query(r.within(r.relevant, k)) / r.qrels.num_rel


@computes("judged")
def _judged(r: Judged, k: int | None) -> np.ndarray:
    """ir_measures' Judged@k: of the top k a run ranks (fewer if it ranks fewer), the share
    with a judgment of any grade. A run of five judged documents is fully judged."""
    ranked = np.minimum(np.bincount(r.run.qidx, minlength=len(r.qrels.qids)), k)
    return r.per_query(r.assessed & (r.rank <= k)) / ranked


RECALL_LEVELS = tuple(x / 10 for x in range(11))


def _interpolated(r: Judged, levels: tuple[float, ...]) -> np.ndarray:
    """Per query (rows) and recall level (columns): the best precision at or after the first
    rank holding round(level * num_rel) relevant documents (half up). This is what trec_eval
    10 prints on its own test suite (302 at 0.30: 23 of 77 relevant, 0.7419); pytrec_eval
    follows trec_eval 9, which compares the recall fraction and differs there."""
    qidx, rank = r.run.qidx, r.rank
    relevant = np.zeros(len(qidx), bool)
    relevant[r.relevant] = True
    so_far = _running_count(relevant, qidx)
    precision = so_far / rank
    best_from_here = precision.copy()  # max precision at this rank or any later one
    if len(qidx):
        # a running max from the last rank up, restarting per query: precision is at most 1,
        # so lifting each query by 2 x its index keeps earlier queries' maxima below it
        order = np.lexsort((-rank, qidx))
        lift = 2.0 * qidx[order]
        best_from_here[order] = np.maximum.accumulate(precision[order] + lift) - lift
    num_rel = r.qrels.num_rel[qidx]
    nq = len(r.qrels.qids)
    out = np.zeros((nq, len(levels)))
    for column, level in enumerate(levels):
        reached = np.flatnonzero(so_far >= np.floor(level * num_rel + 0.5))
        first = np.full(nq, len(qidx))
        np.minimum.at(first, qidx[reached], reached)
        has = first < len(qidx)
        out[has, column] = best_from_here[first[has]]
    return out


@computes("iprec_at_recall")
def _interpolated_precision(r: Judged, k: float | None) -> np.ndarray:
    return _interpolated(r, (k,))[:, 0]


@computes("11pt_avg")
def _eleven_point_average(r: Judged, k: float | None) -> np.ndarray:
    return _interpolated(r, RECALL_LEVELS).mean(axis=1)


@computes("unj")
def _unjudged(r: Judged, k: int | None) -> np.ndarray:
    """trec_eval 10's unj_k: the unjudged documents the run ranks in its top k, over k; the
    ranks it leaves empty count as judged non-relevant."""
    return r.per_query(~r.judged & (r.rank <= k)) / k


RBP_PERSISTENCE = 0.9
"""trec_eval 10's default persistence for rbp."""


@computes("rbp")
def _rank_biased_precision(r: Judged, k: int | None) -> np.ndarray:
    """trec_eval 10's rbp: each document gains its grade over its query's highest grade
    (the grades as they are where none is above 1), whatever the relevance level."""
    gaining = np.flatnonzero(r.grades > 0)
    scale = np.maximum(r.qrels.highest_grade, 1)[r.run.qidx[gaining]]
    gains = r.grades[gaining] / scale
    return r.per_query(gaining, gains * _rbp_weight(r.rank[gaining]))


@computes("rbp_resid")
def _rank_biased_residual(r: Judged, k: int | None) -> np.ndarray:
    """The unjudged documents' weight plus what lies below the last ranked document, as
    trec_eval 10 computes it: 0 for a ranking without an unjudged document."""
    unjudged = np.flatnonzero(~r.judged)
    nq = len(r.qrels.qids)
    depth = np.bincount(r.run.qidx, minlength=nq)
    residual = r.per_query(unjudged, _rbp_weight(r.rank[unjudged])) + RBP_PERSISTENCE**depth
    return np.where(np.bincount(r.run.qidx[unjudged], minlength=nq) > 0, residual, 0.0)


def _rbp_weight(rank: np.ndarray) -> np.ndarray:
    """Each rank's weight in rank-biased precision."""
    return (1 - RBP_PERSISTENCE) * RBP_PERSISTENCE ** (rank - 1.0)


@computes("recip_rank")
def _reciprocal_rank(r: Judged, k: int | None) -> np.ndarray:
    first = r.first_relevant
    return np.where(np.isfinite(first), 1.0 / first, 0.0)


@computes("first_rel_rank")
def _first_relevant_rank(r: Judged, k: int | None) -> np.ndarray:
    first = r.first_relevant
    return np.where(np.isfinite(first), first, np.nan)


@computes("map")
def _average_precision(r: Judged, k: int | None) -> np.ndarray:
    precision = r.relevant_so_far / r.rank[r.relevant]
    return r.per_query(r.relevant, precision) / r.qrels.num_rel


def _running_count(flags: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Running count of `flags` within each run of equal adjacent group ids."""
    total = np.cumsum(flags)
    if not len(total):
        return total
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    before = np.r_[0, total][starts]
    lengths = np.diff(np.r_[starts, len(flags)])
    return total - np.repeat(before, lengths)


_unbound = {name for name, family in FAMILIES.items() if family.native} ^ set(COMPUTE)
if _unbound:
    raise RuntimeError(f"native measure families without a computation: {sorted(_unbound)}")


def native_scores(
    run: Ranked, grades: np.ndarray, qrels: PreparedQrels, measures: Sequence[Measure]
) -> dict[str, np.ndarray]:
    """Per-query values, one array per measure aligned with `qrels.qids`."""
    judged = Judged(run, grades, qrels)
    with np.errstate(divide="ignore", invalid="ignore"):  # an empty denominator: just below
        values = {m.name: COMPUTE[m.family.name](judged, m.cutoff) for m in measures}
    for m in measures:
        column = values[m.name]
        column[np.isnan(column)] = m.family.nothing_to_credit
    return values
