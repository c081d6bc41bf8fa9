"""Cached access to core results, shared by every page.

Experiment-wide objects (the SCORES table, leakage pairs, collections, per-query tables)
are held in memory for the process (st.cache_resource, or functools where a progress bar
is drawn): they are large, read-only, and shared across sessions, and copying them on each
rerun (st.cache_data pickles) would cost more than the page itself. Keys include the
experiment's file fingerprint, so an edited run file is never served from memory; the disk
cache underneath is keyed by content.
"""

from __future__ import annotations

import os
import threading
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd
import streamlit as st

from leakeval_core.analysis.collection import collection_summary, ranked_list, topic_table
from leakeval_core.analysis.compare import (
    Paired,
    condition_means,
    paired,
    paired_wide,
    rank_changes,
    select,
)
from leakeval_core.analysis.inflation import Inflation, inflation
from leakeval_core.analysis.stats import PerQuery, compare_levels, per_query, ranking_change
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import Measure, parse_measures
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_run
from leakeval_core.experiment.collections import Collection, load_collection
from leakeval_core.experiment.manifest import Experiment, load_experiment
from leakeval_core.experiment.scores import ExperimentScores, score_experiment
from leakeval_core.io.trec import read_run
from leakeval_core.leakage.table import (
    LEAKAGE_COLUMNS,
    LeakageTable,
    agreement,
    category_counts,
    ground_truth,
    leak_share,
    leaked_qids,
    load_leakage,
)

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
        """The collection, or a page that shows its file:line error and stops there."""
        try:
            return _collection(str(self.experiment.root), self.fingerprint, name)
        except LeakevalError as exc:
            st.error(f"leakeval: {exc}")
            st.stop()

    def leakage(self) -> LeakageTable:
        return _leakage(str(self.experiment.root), self.fingerprint)

    def ground_truth(self) -> LeakageTable | None:
        return _ground_truth(str(self.experiment.root), self.fingerprint)

    # Derived tables: cached per view, so a warm rerun redraws without recomputing.

    def means(self, by: list[str], fixed: dict, measure: str | None = None) -> pd.DataFrame:
        return _means(*self._key, measure or self.measure.name, tuple(by), _items(fixed))

    def comparisons(self, vary: str, fixed: dict) -> pd.DataFrame:
        return _comparisons(
            *self._key,
            self.measure.name,
            vary,
            _items(fixed),
            self.test,
            self.correction,
            self.alpha,
        )

    def inflation(
        self, fixed: dict, threshold: float, leaked: str, clean: str, factor: str
    ) -> Inflation:
        return _inflation(
            *self._key,
            self.measure.name,
            _items(fixed),
            threshold,
            leaked,
            clean,
            factor,
            self.measure.better,
            self.correction,
        )

    def ranking(self, within: list[str]) -> pd.DataFrame:
        return _ranking(*self._key, self.measure.name, tuple(within))

    def topics(self, collection: str, threshold: float) -> tuple[pd.DataFrame, dict]:
        """The dataset browser's topic table (with leaked flags) and collection summary."""
        return _topics(str(self.experiment.root), self.fingerprint, collection, threshold)

    def score_upload(self, collection: str, name: str, data: bytes) -> tuple[pd.DataFrame, dict]:
        return score_upload(*self._key, collection, name, data)

    def leakage_view(self, threshold: float) -> LeakageView:
        """Everything the leakage explorer derives from the threshold, computed once each."""
        for name in self.experiment.collections:
            self.collection(name)  # a collection that cannot be read shows its error here
        return _leakage_view(
            str(self.experiment.root),
            self.fingerprint,
            tuple(self.experiment.collections),
            threshold,
        )

    def ranked_lists(self, a: dict, b: dict, qid: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        """One query's ranked lists under conditions A and B, each marking how far every
        document moved relative to the other list."""
        return _ranked_lists(*self._key, _items(a), _items(b), qid)

    def paired(self, a: dict, b: dict, threshold: float) -> tuple[Paired, pd.DataFrame]:
        """A vs B on the chosen measure, and every app measure side by side."""
        return _paired(*self._key, self.measure.name, _items(a), _items(b), threshold)


@dataclass(frozen=True)
class LeakageView:
    share: pd.DataFrame
    """Per collection: topics with a near-duplicate, and their share."""
    categories: pd.DataFrame
    leaked: pd.DataFrame
    """collection, qid of every flagged topic."""
    agreement: dict | None
    """Detection scored against the demo's planted pairs, when both exist."""


@st.cache_data(max_entries=32, show_spinner=False)
def _leakage_view(
    path: str, fingerprint: str, collections: tuple[str, ...], threshold: float
) -> LeakageView:
    leakage = _leakage(path, fingerprint)
    topics = pd.concat(
        [
            _collection(path, fingerprint, name).topics[["qid"]].assign(collection=name)
            for name in collections
        ],
        ignore_index=True,
    )
    truth = _ground_truth(path, fingerprint)
    return LeakageView(
        share=leak_share(leakage, topics, threshold),
        categories=category_counts(leakage, threshold),
        leaked=leaked_qids(leakage, threshold),
        agreement=(
            agreement(leakage, truth, threshold)
            if truth is not None and leakage.source != truth.source
            else None
        ),
    )


def _items(levels: dict) -> tuple:
    return tuple(sorted((k, v) for k, v in levels.items()))


@st.cache_data(max_entries=16, show_spinner=False)
def _topics(path: str, fingerprint: str, name: str, threshold: float) -> tuple[pd.DataFrame, dict]:
    collection = _collection(path, fingerprint, name)
    leakage = _leakage(path, fingerprint)
    leaked = None if leakage.empty else leaked_qids(leakage, threshold).query("collection == @name")
    return (
        topic_table(collection.topics, collection.qrels, leaked),
        collection_summary(collection.topics, collection.qrels),
    )


@st.cache_data(max_entries=64, show_spinner=False)
def _means(
    path: str, fingerprint: str, conventions: tuple, measure: str, by: tuple, fixed: tuple
) -> pd.DataFrame:
    table = _per_query(path, fingerprint, conventions, measure)
    return condition_means(table, list(by), dict(fixed))


@st.cache_data(max_entries=64, show_spinner="Testing the differences…")
def _comparisons(
    path: str,
    fingerprint: str,
    conventions: tuple,
    measure: str,
    vary: str,
    fixed: tuple,
    test: str,
    correction: str,
    alpha: float,
) -> pd.DataFrame:
    table = _per_query(path, fingerprint, conventions, measure).subset(dict(fixed))
    return compare_levels(table, vary, test=test, correction=correction, alpha=alpha)


@st.cache_data(max_entries=32, show_spinner=False)
def _inflation(
    path: str,
    fingerprint: str,
    conventions: tuple,
    measure: str,
    fixed: tuple,
    threshold: float,
    leaked: str,
    clean: str,
    factor: str,
    better: str,
    correction: str,
) -> Inflation:
    table = _per_query(path, fingerprint, conventions, measure).subset(dict(fixed))
    flags = leaked_qids(_leakage(path, fingerprint), threshold)
    return inflation(table, flags, leaked, clean, factor, better, 10, correction)


@st.cache_data(max_entries=16, show_spinner=False)
def _ranking(
    path: str, fingerprint: str, conventions: tuple, measure: str, within: tuple
) -> pd.DataFrame:
    table = _per_query(path, fingerprint, conventions, measure)
    return ranking_change(table, "model", "leakage", list(within))


@st.cache_data(max_entries=32, show_spinner=False)
def _paired(
    path: str,
    fingerprint: str,
    conventions: tuple,
    measure: str,
    a: tuple,
    b: tuple,
    threshold: float,
) -> tuple[Paired, pd.DataFrame]:
    leakage = _leakage(path, fingerprint)
    flags = None if leakage.empty else leaked_qids(leakage, threshold)
    pairs = paired(_per_query(path, fingerprint, conventions, measure), dict(a), dict(b), flags)
    wide = paired_wide(
        {m.label: _per_query(path, fingerprint, conventions, m.name) for m in APP_MEASURES},
        dict(a),
        dict(b),
        flags,
    )
    return pairs, wide


@st.cache_resource(max_entries=4, show_spinner=False)
def experiment(path: str, _stamp: float) -> Experiment:
    """The parsed manifest and run listing; `_stamp` (manifest mtime) only splits entries."""
    return load_experiment(path)


# The two slow loaders below draw a progress bar while they work, so they are memoised with
# functools, not st.cache_resource: a Streamlit-cached function replays every element it
# drew on each later call, which after a cold start meant hundreds of progress messages
# sent with every rerun of every page. app.py calls both at the top of each run, outside
# any cached function, so the cached functions that build on them only ever hit. They run
# one at a time: a second session opening the same cold experiment waits, then finds the
# first one's result in the disk cache instead of scoring it again.
_LOADING = threading.RLock()


@lru_cache(maxsize=6)
def _results(path: str, fingerprint: str, conventions: tuple) -> ExperimentScores:
    with _LOADING:
        return _score_with_progress(path, conventions)


def _score_with_progress(path: str, conventions: tuple) -> ExperimentScores:
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


@lru_cache(maxsize=4)
def _leakage(path: str, fingerprint: str) -> LeakageTable:
    with _LOADING:
        return _detect_with_progress(path)


def _detect_with_progress(path: str) -> LeakageTable:
    bar = st.progress(0.0, text="Finding near-duplicates of the topics in the training log…")

    def progress(done: int, total: int, what: str) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{done:,} {what}")

    try:
        table = load_leakage(load_experiment(path), progress=progress)
    except LeakevalError as exc:  # the rest of the app works without leakage flags
        table = LeakageTable(pd.DataFrame(columns=LEAKAGE_COLUMNS), "none", str(exc))
    bar.empty()
    return table


@st.cache_resource(max_entries=4, show_spinner=False)
def _ground_truth(path: str, fingerprint: str) -> LeakageTable | None:
    return ground_truth(load_experiment(path))


@st.cache_resource(max_entries=16, show_spinner=False)
def _run_file(path: str, fingerprint: str) -> pd.DataFrame:
    return read_run(path)


def _query_rows(conditions: pd.DataFrame, fingerprint: str, levels: dict, qid: str) -> pd.DataFrame:
    """One query's rows from the first of the condition's runs (folds) that retrieved it."""
    for run_path in select(conditions, levels).path:
        run = _run_file(str(run_path), fingerprint)
        rows = run[run.qid == qid]
        if len(rows):
            return rows
    return pd.DataFrame({"qid": [], "docid": [], "score": []})


@st.cache_data(max_entries=32, show_spinner=False)
def _ranked_lists(
    path: str, fingerprint: str, conventions: tuple, a: tuple, b: tuple, qid: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    a, b = dict(a), dict(b)
    qrels = _collection(path, fingerprint, a["collection"]).qrels
    conditions = load_experiment(path).conditions
    lists = [
        ranked_list(
            _query_rows(conditions, fingerprint, levels, qid),
            qid,
            qrels,
            Conventions(**dict(conventions)),
        )
        for levels in (a, b)
    ]
    return rank_changes(*lists)


def current() -> AppContext:
    """The context app.py built for this run."""
    return st.session_state["_leakeval_context"]


def set_current(context: AppContext) -> None:
    st.session_state["_leakeval_context"] = context


def max_upload_bytes() -> int:
    """Upload size limit: LEAKEVAL_MAX_UPLOAD_MB, default 200 (Streamlit enforces it too)."""
    return int(float(os.environ.get("LEAKEVAL_MAX_UPLOAD_MB", "200")) * 1_000_000)


@st.cache_data(max_entries=16, show_spinner="Scoring the uploaded run…")
def score_upload(
    path: str, fingerprint: str, conventions: tuple, collection: str, name: str, data: bytes
) -> tuple[pd.DataFrame, dict]:
    """Score an uploaded run in memory: it is never written anywhere but this session's cache.

    Returns the mean of every app measure and the scoring diagnostics; bad input raises
    LeakevalError with the file:line message.
    """
    if len(data) > max_upload_bytes():
        raise LeakevalError(
            f"{name}: {len(data) / 1e6:.0f} MB is over the upload limit of "
            f"{max_upload_bytes() / 1e6:.0f} MB (LEAKEVAL_MAX_UPLOAD_MB)"
        )
    qrels = PreparedQrels(
        _collection(path, fingerprint, collection).qrels, Conventions(**dict(conventions))
    )
    result = score_run(read_run((name, data)), qrels, APP_MEASURES, name=name)
    means = result.scores.groupby("measure", sort=False).value.mean()
    table = pd.DataFrame(
        {"measure": [m.label for m in APP_MEASURES], "mean": [means[m.name] for m in APP_MEASURES]}
    )
    return table, asdict(result.diagnostics)
