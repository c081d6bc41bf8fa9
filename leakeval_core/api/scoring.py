"""`score`: runs against qrels, per query, under explicit conventions."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from leakeval_core.api.results import Scores
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DEFAULT_MEASURES, Measure, parse_measures

if TYPE_CHECKING:
    from leakeval_core.evaluation.qrels import PreparedQrels
    from leakeval_core.experiment.cache import Cache
    from leakeval_core.experiment.scores import Progress

__all__ = ["score", "score_tables"]


def score(
    qrels: Any,
    runs: Any,
    measures: str | Sequence[object] = DEFAULT_MEASURES,
    conventions: Conventions = Conventions(),
    columns: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    format: str | Mapping[str, str] | None = None,
    cache: Cache | None = None,
) -> Scores:
    """Score runs against qrels under explicit conventions.

    `runs` is one run, a mapping of name -> run, or a list of run files; each run or the
    qrels may be a file (TREC's, or a BEIR folder, MTEB predictions, ranx JSON, a PyTerrier
    frame's CSV or Parquet: `io.formats`, detected by content), a pandas frame (PyTerrier's
    too), a pyarrow table, a pytrec_eval dict of dicts or a ranx object. `format` names the
    runs' format where their content cannot tell (or {"run": ..., "qrels": ...}).
    `columns` maps your column names to leakeval's (`qid`, `docid`, `score`, `grade`) where
    they are not among the common ones (query_id, doc_id, relevance, ...).
    Qrels given as a file are kept prepared in `cache` (default: the user's, at
    $LEAKEVAL_CACHE) for the next call against the same file (`experiment.qrels_cache`).

    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> bm25 = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 0.5, "d4": 1.0}}
    >>> result = score(qrels, {"bm25": bm25}, ["ndcg_cut_10", "P_1"])
    >>> result.means().round(4).to_dict("index")
    {'bm25': {'ndcg_cut_10': 0.8155, 'P_1': 0.5}}
    """
    from leakeval_core.api.inputs import as_run, as_table, formatted, named_runs, qrels_name
    from leakeval_core.evaluation.per_query_files import is_evaluation, refuse_unjudged

    called = qrels_name(qrels)
    qrels, named = formatted(qrels, named_runs(runs), format)
    files = all(isinstance(run, str | os.PathLike) for run in named.values())
    if (
        files
        and isinstance(qrels, str | os.PathLike)
        and not any(map(is_evaluation, named.values()))
    ):
        return _score_files(
            qrels, named, parse_measures(measures), conventions, progress, called, cache
        )
    tables = {name: as_run(run, name, columns) for name, run in named.items()}
    if qrels is None:
        refuse_unjudged(tables)
    return score_tables(
        None if qrels is None else as_table(qrels, "grade", "qrels", columns),
        tables,
        measures,
        conventions,
        called,
    )


def score_tables(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: str | Sequence[str | Measure],
    conventions: Conventions,
    qrels_name: str = "the qrels",
) -> Scores:
    """Score runs already read into tables (`inputs.as_run`); `qrels_name` is how the
    warnings name the qrels. A published evaluation's values are taken as they are
    (`published_scores`), over the qrels' scored queries, or without qrels (None) over
    every query the evaluations hold."""
    from leakeval_core.evaluation.per_query_files import Evaluation
    from leakeval_core.evaluation.published import published_queries, published_scores
    from leakeval_core.evaluation.qrels import PreparedQrels
    from leakeval_core.evaluation.scoring import score_run

    measures = parse_measures(measures)
    prepared = None if qrels is None else PreparedQrels(qrels, conventions)
    queries = published_queries(runs.values()) if prepared is None else prepared.qids

    def scored(name: str, run: Any):
        if isinstance(run, Evaluation):
            excluded = prepared.no_relevant if prepared is not None else 0
            return published_scores(run, queries, measures, conventions, excluded)
        return score_run(run, prepared, measures, name=name)

    return Scores(
        {name: scored(name, run) for name, run in runs.items()},
        measures,
        conventions,
        qrels_name,
    )


def _score_files(
    qrels,
    named: dict,
    measures,
    conventions: Conventions,
    progress,
    qrels_name: str,
    cache: Cache | None,
) -> Scores:
    """Files are read and scored on threads while the qrels are prepared (`score_files`)."""
    from pathlib import Path

    from leakeval_core.errors import LeakevalError
    from leakeval_core.evaluation.scoring import score_files
    from leakeval_core.experiment.cache import Cache
    from leakeval_core.experiment.qrels_cache import prepared_qrels
    from leakeval_core.io.allocator import return_free_memory

    if not Path(qrels).exists():
        raise LeakevalError(f"qrels: {qrels}: no such file")
    cache = cache or Cache()  # here: a bad LEAKEVAL_CACHE_MB is said before any run is read

    def prepare() -> PreparedQrels:
        """Runs while the first run files are read, from the cache where these qrels were
        prepared before; its scratch is returned after."""
        prepared = prepared_qrels(qrels, conventions, cache)
        return_free_memory()
        return prepared

    results = {}
    for name, result in zip(
        named, score_files(list(named.values()), prepare, measures, progress), strict=True
    ):
        if isinstance(result, Exception):
            raise result
        results[name] = result
    return Scores(results, measures, conventions, qrels_name)
