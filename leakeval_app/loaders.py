"""The slow loaders: parse, score and detect once per key, held in memory for the process.

Experiment-wide objects (the SCORES table, leakage pairs, collections, per-query tables) are
large, read-only and shared across sessions, so they are held as they are (functools or
st.cache_resource), not copied per rerun. Keys carry the experiment's file fingerprint, so
an edited file is never served from memory; the disk cache underneath is keyed by content.

Scoring and detection draw a progress bar while they work, so they are memoised with
functools, not st.cache_resource: a Streamlit-cached function replays every element it drew
on each later call (hundreds of progress messages per rerun after a cold start). app.py calls
both at the top of each rerun, so the views built on them only ever hit. They run one at a
time: a second session opening the same cold experiment waits, then reads the first one's
result from the disk cache instead of scoring it again.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import pandas as pd
import streamlit as st

from leakeval_app.context import APP_MEASURES, DataKey, LeakageKey
from leakeval_core.analysis.folds import PerQuery, per_query
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.collections import Collection, load_collection
from leakeval_core.experiment.manifest import Experiment, load_experiment
from leakeval_core.experiment.scores import ExperimentScores, score_experiment
from leakeval_core.io.trec import read_run
from leakeval_core.leakage import table as leakage_table
from leakeval_core.leakage.labels import LabelledPairs, read_labels
from leakeval_core.leakage.options import DetectionOptions
from leakeval_core.leakage.table import LEAKAGE_COLUMNS, LeakageTable, ground_truth, load_leakage

_LOADING = threading.RLock()


@st.cache_resource(max_entries=4, show_spinner=False)
def experiment(path: str, stamp: int) -> Experiment:
    """The parsed manifest and run listing; `stamp` (the manifest's mtime in ns) only splits
    entries, so an edited manifest is read again. (It once had a leading underscore, which
    Streamlit leaves out of the key: an edited manifest was served stale.)"""
    return load_experiment(path)


@lru_cache(maxsize=8)
def experiment_of(files: tuple[str, str]) -> Experiment:
    """The experiment behind a key's files, for views that need its design or conditions."""
    return load_experiment(files[0])


@lru_cache(maxsize=6)
def results(key: DataKey) -> ExperimentScores:
    with _LOADING:
        bar = st.progress(0.0, text="Scoring runs…")

        def progress(done: int, total: int, what: str) -> None:
            bar.progress(done / max(total, 1), text=f"Scoring run {done} of {total}: {what}")

        scored = score_experiment(
            experiment_of(key.files), APP_MEASURES, key.scoring(), progress=progress
        )
        bar.empty()
        return scored


@st.cache_resource(max_entries=48, show_spinner=False)
def per_query_table(key: DataKey, measure: str) -> PerQuery:
    return per_query(results(key), measure)


@st.cache_resource(max_entries=8, show_spinner=False)
def collection(files: tuple[str, str], name: str) -> Collection:
    return load_collection(experiment_of(files).collections[name])


@lru_cache(maxsize=8)
def leakage(key: LeakageKey) -> LeakageTable:
    """The experiment's leakage pairs; an error is kept in the table so that the rest of the
    app still works without leaked flags."""
    with _LOADING:
        bar = st.progress(0.0, text="Finding near-duplicates of the topics in the training log…")

        def progress(done: int, total: int, what: str) -> None:
            bar.progress(min(done / max(total, 1), 1.0), text=f"{done:,} {what}")

        try:
            options = DetectionOptions(method=key.method)
            table = load_leakage(
                experiment_of(key.files),
                progress=progress,
                options=options,
                max_queries=leakage_table.APP_DETECTION_LIMIT,
            )
        except LeakevalError as exc:
            table = LeakageTable(pd.DataFrame(columns=LEAKAGE_COLUMNS), "none", str(exc))
        bar.empty()
        return table


@st.cache_resource(max_entries=4, show_spinner=False)
def known_pairs(files: tuple[str, str]) -> LeakageTable | None:
    """Known near-duplicates (the demo's planted ones), to score detection against."""
    return ground_truth(experiment_of(files))


@st.cache_resource(max_entries=4, show_spinner=False)
def labels(files: tuple[str, str]) -> LabelledPairs | None:
    """The experiment's labelled pairs (`[leakage] labels`), checked against its topics."""
    experiment = experiment_of(files)
    if experiment.labels is None:
        return None
    topics = pd.concat([collection(files, name).topics for name in experiment.collections])
    return read_labels(experiment.labels, topics)


@st.cache_resource(max_entries=16, show_spinner=False)
def run_file(path: str, fingerprint: str) -> pd.DataFrame:
    return read_run(path)
