"""The rerun's context: the experiment opened as a Study, the View, and what they settle.

The frame (`main.run`) builds one per rerun, after the sidebar's widgets have set the View;
pages read it with `current()` and hand it to the views. It holds settings and the study
only: every table comes from a cached view keyed by `key` and the View's settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import streamlit as st

from leakeval_core.api import Study, View
from leakeval_core.evaluation.measures import Measure, parse_measures
from leakeval_core.present.style import Palette


@dataclass(frozen=True)
class AppContext:
    study: Study
    key: tuple[str, str]
    """The experiment's path and file fingerprint: an edited, added or removed file makes a
    new key, so no cached view outlives what is on disk."""
    view: View
    """The settings as the sidebar and the pages left them (`state.view`)."""

    @property
    def experiment(self):
        return self.study.experiment

    @property
    def measure(self) -> Measure:
        return self.view.parsed_measure

    @cached_property
    def measures(self) -> tuple[Measure, ...]:
        """What the app scores at once for this experiment (`Study.scoring_measures`): the
        comparisons set every one of them side by side."""
        return parse_measures(self.study.scoring_measures())

    @property
    def conventions(self):
        return self.view.conventions

    @property
    def statistics(self):
        return self.view.statistics

    @cached_property
    def settings(self) -> View:
        """The View with the detection method and threshold settled and no collection (the
        views hold every collection's rows, and a page picks one): so the pages, whichever
        collection they show, share their cached views."""
        return self.view.replace(method=self.method, threshold=self.threshold, collection=None)

    @cached_property
    def method(self) -> str:
        return self.study.method(self.view)

    @property
    def leakage(self):
        """The pairs under the view: with training qrels, each says which relevant documents
        it shares (`Study.pairs`)."""
        return self.study.pairs(self.view)

    @cached_property
    def threshold(self) -> float:
        """The view's threshold, else the method's: one value for every page."""
        return self.view.threshold_or(self.leakage.threshold)

    @cached_property
    def palette(self) -> Palette:
        """Each factor level's colour, the same on every page (and in the report)."""
        return Palette.of_experiment(self.experiment)


def current() -> AppContext:
    """The context the frame built for this rerun."""
    return st.session_state["_leakeval_context"]


def set_current(context: AppContext) -> None:
    st.session_state["_leakeval_context"] = context
