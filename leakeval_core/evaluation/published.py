"""Per-query values as published, taken as a run's scores (`evaluation.per_query_files`).

A published evaluation stands where a run would: its values become the run's `RunScores`
over the queries the figures are computed on (the qrels' scored queries where qrels are
given, else every query any of the evaluations holds), and a query it lacks follows
`missing` as a run's would. Nothing that needs the ranking can be applied to it: a depth,
a relevance level, a gain, a tie order or condensed lists were chosen by whoever computed
the values, so asking for another is refused, not ignored.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import Measure, parse_measure
from leakeval_core.evaluation.per_query_files import Evaluation, is_evaluation, read_evaluation
from leakeval_core.evaluation.scoring import RunScores, ScoreDiagnostics, aggregate

if TYPE_CHECKING:
    from leakeval_core.evaluation.qrels import PreparedQrels

__all__ = [
    "NOT_RECOMPUTED",
    "RANKING_SETTINGS",
    "PublishedNote",
    "carried_measures",
    "mean_check",
    "measures_for",
    "published_queries",
    "published_scores",
    "read_published",
    "refuse_ranking_settings",
    "score_published",
]

NOT_RECOMPUTED = (
    "These runs are published per-query values: their conventions were chosen by whoever "
    "computed them, and without the rankings nothing can be recomputed under others."
)
"""Said where a page would recompute runs under other conventions."""

RANKING_SETTINGS = ("depth", "relevance_level", "gain", "tie_order", "condensed")
"""The conventions only a ranking can be scored under."""


def refuse_ranking_settings(name: str, conventions: Conventions) -> None:
    """One line for a setting a published value cannot be recomputed under."""
    plain = Conventions()
    chosen = [
        f"{key.replace('_', ' ')} {getattr(conventions, key)}"
        for key in RANKING_SETTINGS
        if getattr(conventions, key) != getattr(plain, key)
    ]
    if chosen:
        raise LeakevalError(
            f"{name}: its values were computed by whoever published them, so {', '.join(chosen)}"
            " cannot be applied; leave the setting at its default, or score the runs"
        )


def carried_measures(paths: Iterable[str | os.PathLike[str]]) -> tuple[str, ...] | None:
    """The measures every published evaluation among `paths` carries, in the first one's
    order: what a figure of them all can be drawn for. None where none is an evaluation (a
    run can be scored on any measure). One that cannot be read is left to its scoring,
    which reports it beside the others."""
    carried = []
    for path in paths:
        if is_evaluation(path):
            try:
                carried.append(read_evaluation(path).measures)
            except LeakevalError:
                continue
    if not carried:
        return None
    return tuple(m for m in carried[0] if all(m in c for c in carried[1:]))


def measures_for(source, measures: Sequence[str]) -> tuple[str, ...]:
    """What `source` (a path or an upload's (name, bytes)) is scored on: `measures` for a
    run, every measure it carries for a published evaluation (`offered_measures`)."""
    from leakeval_core.evaluation.measures import offered_measures

    if not is_evaluation(source):
        return tuple(measures)
    return offered_measures(read_evaluation(source).measures)


def published_queries(evaluations: Iterable[Evaluation]) -> np.ndarray:
    """The queries figures of published evaluations alone are over: every query one of them
    holds, in qid order (numbers by value), as TREC's qrels list them."""
    qids = {q for evaluation in evaluations for q in evaluation.qids}
    ordered = sorted(qids, key=lambda q: (0, int(q), q) if q.isdigit() else (1, 0, q))
    return np.asarray(ordered, dtype=object)


def published_scores(
    evaluation: Evaluation,
    qids: np.ndarray,
    measures: Sequence[Measure],
    conventions: Conventions,
    no_relevant: int = 0,
) -> RunScores:
    """`evaluation`'s values of `measures` on `qids` (the queries the means are over): a
    query it lacks is dropped or scored as its measure scores a query a run does not rank
    (`MeasureFamily.unranked`; undefined where that comes from the qrels alone)."""
    refuse_ranking_settings(evaluation.name, conventions)
    carried = evaluation.measures
    lacking = [m.name for m in measures if m.name not in carried]
    if lacking:
        raise LeakevalError(
            f"{evaluation.name}: holds no {', '.join(lacking)}; it carries {', '.join(carried)}"
        )
    wide = evaluation.table.pivot(index="qid", columns="measure", values="value")
    qids = np.asarray(qids, dtype=object)
    present = np.isin(qids, wide.index.to_numpy(dtype=object))
    keep = present if conventions.missing == "drop" else np.ones(len(qids), bool)
    values = {}
    for m in measures:
        column = wide[m.name].reindex(qids).to_numpy(dtype=float, copy=True)
        if conventions.missing == "zero":
            unranked = m.family.unranked
            column[~present] = math.nan if unranked is None else unranked
        values[m.name] = column[keep]
    frr = values.get("first_rel_rank")
    diagnostics = ScoreDiagnostics(
        queries_scored=int(keep.sum()),
        missing_from_run=tuple(qids[~present]),
        no_relevant=no_relevant,
        not_in_qrels=int((~np.isin(wide.index.to_numpy(dtype=object), qids)).sum()),
        tied_pairs=0,
        first_rel_undefined=int(np.isnan(frr).sum()) if frr is not None else 0,
        all_zero=tuple(
            m.name
            for m in measures
            if m.direction.zero_is_worst
            and (defined := values[m.name][~np.isnan(values[m.name])]).size
            and not defined.any()
        ),
    )
    checks = tuple(note for m in measures if (note := mean_check(evaluation, m.name)) is not None)
    if evaluation.unread:
        left_out = ", ".join(evaluation.unread)
        checks += (
            PublishedNote(
                True,
                f"{Path(evaluation.name).name}: measures leakeval does not know, left out: "
                f"{left_out}.",
            ),
        )
    return RunScores(qids[keep], values, replace(diagnostics, published=checks))


class PublishedNote(NamedTuple):
    """What a published evaluation's values were found to be: its means checked, the
    measures left out."""

    warns: bool
    """Whether every figure must say it (a mean that is not its queries' mean, a measure
    left out), or a note says it where the values are shown (a mean that is)."""
    text: str


def read_published(
    paths: Sequence[str | os.PathLike[str]], judged: bool = True
) -> list[Evaluation | LeakevalError]:
    """Each file read as a published evaluation, or its error: without qrels (not
    `judged`), a ranking has nothing to be scored against and is one."""
    read: list[Evaluation | LeakevalError] = []
    for path in paths:
        try:
            if not judged and not is_evaluation(path):
                raise LeakevalError(
                    f"{path}: a ranking, and its collection has no qrels to score it against: "
                    "give the collection's qrels, or the run's published per-query values"
                )
            read.append(read_evaluation(path))
        except LeakevalError as exc:
            read.append(exc)
    return read


def score_published(
    paths: Sequence[str | os.PathLike[str]],
    measures: Sequence[Measure],
    conventions: Conventions,
    qrels: PreparedQrels | None = None,
) -> tuple[list[RunScores | LeakevalError], np.ndarray]:
    """Published evaluations read and taken as scores, each file's result or its error in
    order, and the queries they are over: the qrels' scored ones, or without qrels every
    query one of them holds. `conventions` are the reader's: a setting a collection
    declares (TREC DL's relevance level 2) is how its values were published, not a
    request to recompute them."""
    read = read_published(paths, judged=qrels is not None)
    ok = [r for r in read if isinstance(r, Evaluation)]
    queries = published_queries(ok) if qrels is None else qrels.qids
    excluded = 0 if qrels is None else qrels.no_relevant
    results: list[RunScores | LeakevalError] = []
    for r in read:
        try:
            if isinstance(r, LeakevalError):
                raise r
            results.append(published_scores(r, queries, measures, conventions, excluded))
        except LeakevalError as exc:
            results.append(exc)
    return results, queries


def mean_check(evaluation: Evaluation, measure: str) -> PublishedNote | None:
    """Whether the file's own mean of `measure` (its `all` line) is the mean of its
    per-query values, to the digits it was printed with; when not, the convention that
    explains it (trec_eval -c averages over every judged query, absent ones as 0), or that
    none does. None where the file has no `all` line for it."""
    printed = evaluation.published.get(measure)
    if printed is None:
        return None
    rows = evaluation.table[evaluation.table.measure == measure]
    values = rows.value.to_numpy(dtype=float)
    ours = aggregate(measure, values)
    given = float(printed)
    digits = len(printed.partition(".")[2]) if "." in printed else 0
    close = 0.5 * 10.0**-digits + 1e-12 if digits else 0.5
    label = parse_measure(measure).label
    said = f"{Path(evaluation.name).name}: its published {label} ({printed})"
    if abs(ours - given) <= close:
        return PublishedNote(False, f"{said} is leakeval's mean of its {len(values)} queries.")
    total = evaluation.queries_in_all()
    if total and total > len(values) and abs(np.nansum(values) / total - given) <= close:
        return PublishedNote(
            True,
            f"{said} is over {total} queries, {total - len(values)} of them absent from the "
            f"file and counted as 0 (trec_eval -c); leakeval's mean of its {len(values)} "
            f"queries is {ours:.4f}.",
        )
    return PublishedNote(
        True,
        f"{said} is not the mean of its {len(values)} queries ({ours:.4f}), nor explained "
        "by trec_eval -c: it was computed over other queries or values than the file holds.",
    )
