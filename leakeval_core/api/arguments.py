"""A verb's arguments: its settings read into a View, its data opened as what it computes on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from leakeval_core.api.study import RunSet, Study
from leakeval_core.api.view import View
from leakeval_core.evaluation.measures import Measure

if TYPE_CHECKING:
    from leakeval_core.analysis.folds import PerQuery
    from leakeval_core.experiment.scores import Progress

__all__ = [
    "Source",
    "baseline_names",
    "covered_of",
    "per_query_of",
    "refuse_left_out",
    "source_of",
    "view_of",
]

Source = Study | RunSet


def view_of(view: View | None, settings: Mapping[str, Any]) -> View:
    """`view` with the keyword settings a call gives (measure=, statistics=, threshold=, …,
    and delta=, a number or a list, the statistics' differences to size for): the defaults
    live in View alone."""
    changes = dict(settings)
    if isinstance(changes.get("measure"), Measure):
        changes["measure"] = changes["measure"].name
    view = view or View()
    if "delta" in changes:
        statistics = changes.get("statistics", view.statistics)
        changes["statistics"] = replace(statistics, delta=changes.pop("delta"))
    return view.replace(**changes)


def source_of(
    data: Any,
    runs: Any = None,
    columns: Mapping[str, str] | None = None,
    leakage: Any = None,
    format: str | Mapping[str, str] | None = None,
    collection: str | None = None,
    train_qrels: Any = None,
) -> Source:
    """An experiment (a Study, an Experiment or its folder), or, with `runs`, qrels and runs
    (their files in the format `format` names where their content cannot tell; the
    collection they are of, where given, the view's `collection`), or a `RunSet` already
    made: a verb built on another hands its source on. `train_qrels` (the training queries'
    positives) take the place of an experiment's `[training_queries] qrels`."""
    if isinstance(data, RunSet):
        return data
    if runs is not None:
        return RunSet(
            data,
            runs,
            columns,
            leakage,
            collection=collection,
            format=format,
            train_qrels=train_qrels,
        )
    study = Study.open(data)
    if train_qrels is None:
        return study
    return Study(replace(study.experiment, training_qrels=train_qrels), study.cache)


def covered_of(source: Source, covers: Any = None):
    """The topics the leakage judgment covers, as collection and qid: `covers` where a call
    gives it (a file with a qid column, a frame, or topic ids), else the source's own
    (`[leakage] covers`); None where every topic is covered. Pairs judged for some topics
    say nothing of the others, so the audit and the leaderboard both count only these:
    an unjudged topic counted as clean would dilute the clean topics with leaked ones."""
    from leakeval_core.api.inputs import as_topic_groups
    from leakeval_core.api.study import with_collection

    if covers is None:
        return source.covered()
    return with_collection(as_topic_groups(covers, need_group=False), source)


def baseline_names(baseline: object | None) -> tuple | None:
    """`baseline=` of `audit` and `compare` as a tuple: one name, or a list of them (None
    where none is given: the design's own)."""
    if baseline is None:
        return None
    names = tuple(baseline) if isinstance(baseline, list | tuple) else (baseline,)
    if not names:
        return None
    if len(set(map(str, names))) != len(names):
        from leakeval_core.errors import LeakevalError

        raise LeakevalError(f"baseline names {', '.join(map(str, names))}: give each once")
    return names


def per_query_of(
    source: Source, view: View, progress: Progress | None = None, measure: str | None = None
) -> PerQuery:
    """The per-query table the view's figures come from: its measure (or `measure`), its
    conventions, and incomplete conditions left out unless it allows them."""
    return source.per_query(
        measure or view.measure, view.conventions, progress, view.allow_incomplete
    )


def refuse_left_out(source: Source, view: View, *conditions: Mapping, before: str = "") -> None:
    """An error (opening with `before`) naming the first of these conditions that the view's
    figures leave out as incomplete or broken, and why: a view of one condition says so
    instead of showing it without its missing runs."""
    from leakeval_core.errors import LeakevalError

    per_query = per_query_of(source, view)
    for levels in conditions:
        if (unscored := per_query.unscored_refusal(levels)) is not None:
            raise LeakevalError(f"{before}{unscored}")
        if (gap := per_query.left_out.gap_at(levels)) is not None:
            raise LeakevalError(f"{before}{gap.refusal()}")
