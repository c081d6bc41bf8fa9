"""pytrec_eval as a scoring provider: the reference, and every measure leakeval does not
compute itself.

It is fed leakeval's own ranking: pytrec_eval ignores the rank column and breaks ties by docid
descending, so the scores it sees are rewritten from leakeval's order first.

pytrec_eval 0.5 kills the process (a segmentation fault) when it computes bpref or gm_bpref
beside another measure and a query is judged only with negative grades or is handed an
empty ranking. Neither reaches it: such a query's judgments gain a judged non-relevant
document no run ranks (`PreparedQrels.pytrec_qrels`), which leaves every value as it was,
and a ranking is only ever a query's ranked documents, so a query the run lacks is absent,
never empty.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow.compute as pc

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.measures import Measure, parse_measures
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.run_order import Ranked, rank
from leakeval_core.io.arrays import from_numpy

if TYPE_CHECKING:
    from leakeval_core.evaluation.arrow import RunLike

__all__ = ["pytrec_columns", "score_with_pytrec_eval"]

_TREC_EVAL = threading.Lock()
"""pytrec_eval runs trec_eval's C code, whose state is global: two scoring threads
evaluating at once abort the process. One evaluation at a time."""

GRADE_LIMIT = 2**17 - 1
"""The highest grade pytrec_eval is handed for its graded measures (`MeasureFamily.relevance`:
ndcg, ndcg_rel, Rndcg, G), whose time grows faster than the square of the highest grade:
seconds a run at this limit (a grade of 17 under exponential gain), minutes at a grade of
20, and from a grade of 30 pytrec_eval crashes the process."""


def pytrec_columns(
    run: Ranked, qrels: PreparedQrels, measures: Sequence[Measure]
) -> dict[str, np.ndarray]:
    import pytrec_eval

    # Distinct descending scores in leakeval's order, so pytrec_eval's own tie rule is moot.
    scores = (qrels.conventions.depth + 1 - run.rank).astype(float).tolist()
    qids = qrels.qids[run.qidx]
    docids = pc.take(run.doc_values, from_numpy(run.docs)).to_pylist()
    pytrec_run: dict[str, dict[str, float]] = {}  # never an empty ranking: see the module
    for qid, docid, score in zip(qids, docids, scores, strict=True):
        pytrec_run.setdefault(str(qid), {})[str(docid)] = score
    columns: dict[str, np.ndarray] = {}
    for uses_gain in (False, True):
        group = [m for m in measures if m.family.gain == uses_gain]
        if not group:
            continue
        judged = qrels.pytrec_qrels(gain_transformed=uses_gain)
        _refuse_large_grades(group, judged, uses_gain and qrels.conventions.gain == "exponential")
        with _TREC_EVAL:
            evaluator = pytrec_eval.RelevanceEvaluator(
                judged,
                {m.trec_name for m in group},
                relevance_level=qrels.conventions.relevance_level,
            )
            results = evaluator.evaluate(pytrec_run)
        for m in group:
            per_query = [results.get(q, {}) for q in qrels.qids]
            finish = _geometric if m.family.aggregate == "geometric" else _plain
            columns[m.name] = finish(m.trec_name)(per_query)
    for m in measures:
        if m.trec_name == "num_rel":
            # from the qrels alone: a query the run misses still has its relevant documents
            # (trec_eval -c prints them); pytrec_eval, never seeing that query, reports 0
            columns[m.name] = qrels.num_rel.astype(float)
    return columns


def _plain(name: str):
    return lambda per_query: np.array([r.get(name, 0.0) for r in per_query], dtype=float)


def _geometric(name: str):
    """pytrec_eval returns log(max(value, 1e-5)) per query for gm_*; the per-query value
    is the floored value itself, and the `all` row its geometric mean (trec_eval's)."""
    return lambda per_query: np.exp([r.get(name, np.log(1e-5)) for r in per_query])


def _refuse_large_grades(
    group: Sequence[Measure], judged: dict[str, dict[str, int]], exponential: bool
) -> None:
    """A clear error where pytrec_eval would not finish (`GRADE_LIMIT`)."""
    by_grade = [m.name for m in group if m.family.relevance == "graded"]
    if not by_grade:
        return
    highest = max((max(docs.values()) for docs in judged.values() if docs), default=0)
    if highest <= GRADE_LIMIT:
        return
    given = " (2^g - 1 of the highest grade of the qrels, under exponential gain)"
    instead = (
        "leakeval computes nDCG@k itself at any grade (ndcg_cut_k; k the runs' depth for "
        "the whole ranking)"
        if by_grade[0] == "ndcg"
        else "under linear gain it is handed the qrels' own grades"
        if exponential
        else "no other measure computes it"
    )
    raise LeakevalError(
        f"measure {by_grade[0]}: pytrec_eval computes it in a time that grows faster than "
        f"the square of the highest grade, here {highest:,}{given if exponential else ''}, "
        f"so it would not finish; it is scored up to a grade of {GRADE_LIMIT:,}. {instead}"
    )


def score_with_pytrec_eval(
    run: RunLike, qrels: PreparedQrels, measures: Sequence[Measure | str] | str
) -> dict[str, np.ndarray]:
    """Reference scores from pytrec_eval on leakeval's ranking, aligned with `qrels.qids`.

    Used for every measure leakeval does not compute itself, and by the parity tests.
    """
    return pytrec_columns(rank(run, qrels, "run"), qrels, parse_measures(measures))
