"""Cached access to core results, shared by every page.

Experiment-wide objects (the SCORES table, collections, per-query tables) are held with
st.cache_resource: they are large, read-only, and shared across sessions, and copying them
on each rerun (st.cache_data pickles) would cost more than the page itself. Keys include the
experiment's file fingerprint, so an edited run file is never served from memory; the disk
cache underneath is keyed by content.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from leakeval_core.collections import Collection, load_collection
from leakeval_core.compare import select
from leakeval_core.experiment import Experiment, load_experiment
from leakeval_core.leakage import LeakageTable, ground_truth, load_leakage
from leakeval_core.measures import Measure, parse_measures
from leakeval_core.metrics import Conventions
from leakeval_core.scores import ExperimentScores, score_experiment
from leakeval_core.stats import PerQuery, per_query
from leakeval_core.trec import read_run

APP_MEASURES = parse_measures("ndcg_cut_10,P_1,first_rel_rank,recip_rank,map,recall_100,judged_10")


def data_root() -> Path:
    return Path(os.environ.get("LEAKEVAL_DATA", "data")).resolve()


@dataclass(frozen=True)
class AppContext:
    """What every page needs: the chosen experiment and the global settings."""

    experiment: Experiment
    fingerprint: str
    measure: Measure
    conventions: Conventions
    test: str = "ttest"
    correction: str = "bonferroni"
    alpha: float = 0.05

    @property
    def _key(self) -> tuple:
        return str(self.experiment.root), self.fingerprint, tuple(asdict(self.conventions).items())

    def results(self) -> ExperimentScores:
        return _results(*self._key)

    def per_query(self, measure: str | None = None) -> PerQuery:
        return _per_query(*self._key, measure or self.measure.name)

    def collection(self, name: str) -> Collection:
        return _collection(str(self.experiment.root), self.fingerprint, name)

    def leakage(self) -> LeakageTable:
        return _leakage(str(self.experiment.root), self.fingerprint)

    def ground_truth(self) -> LeakageTable | None:
        return _ground_truth(str(self.experiment.root), self.fingerprint)


@st.cache_resource(max_entries=4, show_spinner=False)
def experiment(path: str, _stamp: float) -> Experiment:
    """The parsed manifest and run listing; `_stamp` (manifest mtime) only splits entries."""
    return load_experiment(path)


@st.cache_resource(max_entries=6, show_spinner=False)
def _results(path: str, fingerprint: str, conventions: tuple) -> ExperimentScores:
    bar = st.progress(0.0, text="Scoring runs…")

    def progress(done: int, total: int, what: str) -> None:
        bar.progress(done / max(total, 1), text=f"Scoring run {done} of {total}: {what}")

    results = score_experiment(
        load_experiment(path), APP_MEASURES, Conventions(**dict(conventions)), progress=progress
    )
    bar.empty()
    return results


@st.cache_resource(max_entries=48, show_spinner=False)
def _per_query(path: str, fingerprint: str, conventions: tuple, measure: str) -> PerQuery:
    return per_query(_results(path, fingerprint, conventions), measure)


@st.cache_resource(max_entries=8, show_spinner=False)
def _collection(path: str, fingerprint: str, name: str) -> Collection:
    return load_collection(load_experiment(path).collections[name])


@st.cache_resource(max_entries=4, show_spinner=False)
def _leakage(path: str, fingerprint: str) -> LeakageTable:
    bar = st.progress(0.0, text="Finding near-duplicates of the topics in the training log…")

    def progress(done: int, total: int, what: str) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{done:,} {what}")

    table = load_leakage(load_experiment(path), progress=progress)
    bar.empty()
    return table


@st.cache_resource(max_entries=4, show_spinner=False)
def _ground_truth(path: str, fingerprint: str) -> LeakageTable | None:
    return ground_truth(load_experiment(path))


@st.cache_data(max_entries=64, show_spinner=False)
def run_file(path: str, fingerprint: str) -> pd.DataFrame:
    return read_run(path)


def query_rows(context: AppContext, levels: dict, qid: str) -> pd.DataFrame:
    """One query's rows from the first of the condition's runs (folds) that retrieved it."""
    for path in select(context.experiment.conditions, levels).path:
        run = run_file(str(path), context.fingerprint)
        rows = run[run.qid == qid]
        if len(rows):
            return rows
    return pd.DataFrame({"qid": [], "docid": [], "score": []})


def current() -> AppContext:
    """The context app.py built for this run."""
    return st.session_state["_leakeval_context"]


def set_current(context: AppContext) -> None:
    st.session_state["_leakeval_context"] = context
