"""pytrec_eval as a scoring provider: the reference, and every measure leakeval does not
compute itself.

It is fed leakeval's own ranking: pytrec_eval ignores the rank column and breaks ties by docid
descending, so the scores it sees are rewritten from leakeval's order first.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from leakeval_core.evaluation.measures import Measure, parse_measures
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.run_order import Ranked, rank
from leakeval_core.io import compute
from leakeval_core.io.arrays import from_numpy

if TYPE_CHECKING:
    from leakeval_core.evaluation.arrow import RunLike

__all__ = ["pytrec_columns", "score_with_pytrec_eval"]

_TREC_EVAL = threading.Lock()
"""pytrec_eval runs trec_eval's C code, whose state is global: two scoring threads
evaluating at once abort the process. One evaluation at a time."""


def pytrec_columns(
    run: Ranked, qrels: PreparedQrels, measures: Sequence[Measure]
) -> dict[str, np.ndarray]:
    import pytrec_eval

    # Distinct descending scores in leakeval's order, so pytrec_eval's own tie rule is moot.
    scores = (qrels.conventions.depth + 1 - run.rank).astype(float).tolist()
    qids = qrels.qids[run.qidx]
    docids = compute.take(run.doc_values, from_numpy(run.docs)).to_pylist()
    pytrec_run: dict[str, dict[str, float]] = {}
    for qid, docid, score in zip(qids, docids, scores, strict=True):
        pytrec_run.setdefault(str(qid), {})[str(docid)] = score
    columns: dict[str, np.ndarray] = {}
    for uses_gain in (False, True):
        group = [m for m in measures if _uses_gain(m) == uses_gain]
        if not group:
            continue
        judged = qrels.pytrec_qrels(gain_transformed=uses_gain)
        with _TREC_EVAL:
            evaluator = pytrec_eval.RelevanceEvaluator(
                judged,
                {m.trec_name for m in group},
                relevance_level=qrels.conventions.relevance_level,
            )
            results = evaluator.evaluate(pytrec_run)
        for m in group:
            per_query = [results.get(q, {}) for q in qrels.qids]
            columns[m.name] = _FINISH.get(m.trec_name, _plain(m.trec_name))(per_query)
    if "num_rel" in columns:
        # from the qrels alone: a query the run misses still has its relevant documents
        # (trec_eval -c prints them); pytrec_eval, never seeing that query, reports 0
        columns["num_rel"] = qrels.num_rel.astype(float)
    return columns


def _plain(name: str):
    return lambda per_query: np.array([r.get(name, 0.0) for r in per_query], dtype=float)


def _geometric(name: str):
    """pytrec_eval returns log(max(value, 1e-5)) per query for gm_*; the per-query value
    is the floored value itself, and the `all` row its geometric mean (trec_eval's)."""
    return lambda per_query: np.exp([r.get(name, np.log(1e-5)) for r in per_query])


_FINISH = {
    "gm_map": _geometric("gm_map"),
    "gm_bpref": _geometric("gm_bpref"),
}


def _uses_gain(measure: Measure) -> bool:
    return measure.family.name.lower().lstrip("r").startswith("ndcg")


def score_with_pytrec_eval(
    run: RunLike, qrels: PreparedQrels, measures: Sequence[Measure | str] | str
) -> dict[str, np.ndarray]:
    """Reference scores from pytrec_eval on leakeval's ranking, aligned with `qrels.qids`.

    Used for every measure leakeval does not compute itself, and by the parity tests.
    """
    return pytrec_columns(rank(run, qrels, "run"), qrels, parse_measures(measures))
