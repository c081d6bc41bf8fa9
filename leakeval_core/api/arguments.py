"""A verb's arguments: its settings read into a View, its data opened as what it computes on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leakeval_core.api.study import RunSet, Study
from leakeval_core.api.view import View
from leakeval_core.evaluation.measures import Measure

__all__ = ["Source", "source_of", "view_of"]

Source = Study | RunSet


def view_of(view: View | None, settings: Mapping[str, Any]) -> View:
    """`view` with the keyword settings a call gives (measure=, statistics=, threshold=, …):
    the defaults live in View alone."""
    changes = dict(settings)
    if isinstance(changes.get("measure"), Measure):
        changes["measure"] = changes["measure"].name
    return (view or View()).replace(**changes)


def source_of(
    data: Any,
    runs: Any = None,
    columns: Mapping[str, str] | None = None,
    leakage: Any = None,
) -> Source:
    """An experiment (a Study, an Experiment or its folder), or, with `runs`, qrels and runs."""
    if runs is not None:
        return RunSet(data, runs, columns, leakage)
    return Study.open(data)
