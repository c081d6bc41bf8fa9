"""Derived views: every table a page shows, computed once per key and parameters.

Each view is a plain function of (key, parameters) over the loaders, cached by Streamlit, so
a warm rerun redraws without recomputing and two pages that show the same view share it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import pandas as pd
import streamlit as st

from leakeval_app import loaders
from leakeval_app.context import APP_MEASURES, DataKey, LeakageKey, max_upload_bytes
from leakeval_core.analysis.collection import collection_summary, ranked_list, topic_table
from leakeval_core.analysis.compare import (
    Paired,
    compare_levels,
    condition_means,
    paired,
    paired_wide,
    rank_changes,
    versus_condition,
)
from leakeval_core.analysis.folds import levels_of, select
from leakeval_core.analysis.inflation import Inflation, inflation
from leakeval_core.analysis.options import Statistics
from leakeval_core.analysis.ranking import ranking_change
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.measures import parse_measure
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import ScoreDiagnostics, score_run
from leakeval_core.io.trec import read_run
from leakeval_core.leakage import hybrid
from leakeval_core.leakage.evaluate import DetectionQuality, evaluate_detection
from leakeval_core.leakage.table import (
    agreement,
    category_counts,
    leak_share,
    leaked_qids,
)
from leakeval_core.present.story import Story, tell


@st.cache_data(max_entries=64, show_spinner=False)
def means(key: DataKey, measure: str, by: tuple, fixed: dict) -> pd.DataFrame:
    return condition_means(loaders.per_query_table(key, measure), list(by), fixed)


@st.cache_data(max_entries=16, show_spinner="Testing the differences…")
def _family(key: DataKey, measure: str, vary: str, statistics: Statistics) -> pd.DataFrame:
    """Every comparison of `vary`'s levels, corrected within each collection: computed once
    per setting, whichever levels a chart then fixes."""
    return compare_levels(
        loaders.per_query_table(key, measure),
        vary,
        None,
        statistics,
    )


@st.cache_data(max_entries=64, show_spinner=False)
def comparisons(
    key: DataKey, measure: str, vary: str, fixed: dict, statistics: Statistics
) -> pd.DataFrame:
    """The paired comparisons of `vary`'s levels at the `fixed` levels.

    Tested and corrected over the whole family first (every comparison of `vary` within one
    collection, as in the report and the CLI), then filtered: a comparison's adjusted p is
    the same whichever chart shows it.
    """
    rows = _family(key, measure, vary, statistics)
    return select(rows, {k: v for k, v in fixed.items() if k in rows.columns}).reset_index(
        drop=True
    )


@st.cache_data(max_entries=32, show_spinner=False)
def inflation_view(
    key: DataKey,
    leakage_key: LeakageKey,
    measure: str,
    fixed: dict,
    threshold: float,
    levels: tuple[object, object],
    better: str,
    correction: str,
) -> Inflation:
    """Inflation of the design's leakage factor, with the leaked and clean levels chosen, at
    the `fixed` levels: computed on every pair of conditions (so each row is adjusted over
    its collection's family, as in the report and the CLI), then filtered."""
    design = replace(loaders.experiment_of(key.files).design, leaked=levels[0], clean=levels[1])
    table = loaders.per_query_table(key, measure)
    flags = leaked_qids(loaders.leakage(leakage_key), threshold)
    whole = inflation(table, flags, design, better, 10, correction)
    return Inflation(*(levels_of(frame, fixed) for frame in (whole.summary, whole.top)))


@st.cache_data(max_entries=16, show_spinner=False)
def ranking(key: DataKey, measure: str, within: tuple) -> pd.DataFrame:
    design = loaders.experiment_of(key.files).design
    design.require("The ranking view", "system", "leakage")
    table = loaders.per_query_table(key, measure)
    return ranking_change(table, design.system, design.leakage, list(within))


@st.cache_data(max_entries=16, show_spinner=False)
def topics(key: LeakageKey, name: str, threshold: float) -> tuple[pd.DataFrame, dict]:
    """The dataset browser's topic table (with leaked flags) and collection summary."""
    collection = loaders.collection(key.files, name)
    leakage = loaders.leakage(key)
    leaked = None if leakage.empty else leaked_qids(leakage, threshold).query("collection == @name")
    return (
        topic_table(collection.topics, collection.qrels, leaked),
        collection_summary(collection.topics, collection.qrels),
    )


@st.cache_data(max_entries=8, show_spinner="Scoring the labelled pairs…")
def detection_quality(key: LeakageKey) -> DetectionQuality | None:
    """The detection method measured against the experiment's labelled pairs, if any."""
    labelled = loaders.labels(key.files)
    return None if labelled is None else evaluate_detection(labelled, key.method)


@st.cache_data(max_entries=8, show_spinner=False)
def labels_seen_in_fitting(key: LeakageKey) -> tuple[int, int]:
    """How many of the experiment's labelled pairs the shipped hybrid was fitted on, of all."""
    labelled = loaders.labels(key.files)
    if labelled is None:
        return 0, 0
    table = labelled.table
    return hybrid.seen_in_fitting(table.topic, table.train_text), len(table)


@dataclass(frozen=True)
class LeakageView:
    share: pd.DataFrame
    """Per collection: topics with a near-duplicate, and their share."""
    categories: pd.DataFrame
    agreement: dict | None
    """Detection scored against the demo's planted pairs, when both exist."""


@st.cache_data(max_entries=32, show_spinner=False)
def leakage_view(key: LeakageKey, threshold: float) -> LeakageView:
    """Everything the leakage explorer derives from the threshold, computed once each."""
    files = key.files
    leakage = loaders.leakage(key)
    every_topic = pd.concat(
        [
            loaders.collection(files, name).topics[["qid"]].assign(collection=name)
            for name in loaders.experiment_of(files).collections
        ],
        ignore_index=True,
    )
    truth = loaders.known_pairs(files)
    return LeakageView(
        share=leak_share(leakage, every_topic, threshold),
        categories=category_counts(leakage, threshold),
        agreement=(
            agreement(leakage, truth, threshold)
            if truth is not None and leakage.source != truth.source
            else None
        ),
    )


@st.cache_data(max_entries=32, show_spinner=False)
def paired_view(
    key: DataKey, leakage_key: LeakageKey, measure: str, a: dict, b: dict, threshold: float
) -> tuple[Paired, pd.DataFrame]:
    """A vs B on the chosen measure, and every app measure side by side."""
    leakage = loaders.leakage(leakage_key)
    flags = None if leakage.empty else leaked_qids(leakage, threshold)
    pairs = paired(loaders.per_query_table(key, measure), a, b, flags)
    wide = paired_wide(
        {m.label: loaders.per_query_table(key, m.name) for m in APP_MEASURES}, a, b, flags
    )
    return pairs, wide


def _query_rows(key: DataKey, levels: dict, qid: str) -> pd.DataFrame:
    """One query's rows from the first of the condition's runs (folds) that retrieved it."""
    conditions = loaders.experiment_of(key.files).conditions
    for run_path in select(conditions, levels).path:
        run = loaders.run_file(str(run_path), key.fingerprint)
        rows = run[run.qid == qid]
        if len(rows):
            return rows
    return pd.DataFrame({"qid": [], "docid": [], "score": []})


@st.cache_data(max_entries=32, show_spinner=False)
def ranked_lists(key: DataKey, a: dict, b: dict, qid: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's ranked lists under conditions A and B, each marking how far every
    document moved relative to the other list."""
    qrels = loaders.collection(key.files, a["collection"]).qrels
    lists = [
        ranked_list(_query_rows(key, levels, qid), qid, qrels, key.scoring()) for levels in (a, b)
    ]
    return rank_changes(*lists)


class ScoredUpload(NamedTuple):
    means: pd.DataFrame
    """The mean of every app measure."""
    scores: pd.DataFrame
    """qid, measure, value: the per-query scores a comparison pairs."""
    diagnostics: ScoreDiagnostics


@st.cache_data(max_entries=16, show_spinner="Scoring the uploaded run…")
def score_upload(key: DataKey, collection: str, name: str, data: bytes) -> ScoredUpload:
    """Score an uploaded run in memory: it is never written anywhere but this session's cache.

    Bad input raises LeakevalError with the file:line message.
    """
    if len(data) > max_upload_bytes():
        raise LeakevalError(
            f"{name}: {len(data) / 1e6:.0f} MB is over the upload limit of "
            f"{max_upload_bytes() / 1e6:.0f} MB (LEAKEVAL_MAX_UPLOAD_MB)"
        )
    qrels = PreparedQrels(loaders.collection(key.files, collection).qrels, key.scoring())
    result = score_run(read_run((name, data)), qrels, APP_MEASURES, name=name)
    values = result.scores.groupby("measure", sort=False).value.mean()
    table = pd.DataFrame(
        {"measure": [m.label for m in APP_MEASURES], "mean": [values[m.name] for m in APP_MEASURES]}
    )
    return ScoredUpload(table, result.scores, result.diagnostics)


@st.cache_data(max_entries=16, show_spinner=False)
def upload_versus(
    key: DataKey,
    leakage_key: LeakageKey,
    upload: ScoredUpload,
    measure: str,
    levels: dict,
    threshold: float,
    statistics: Statistics,
) -> tuple[pd.DataFrame, int, int]:
    """An uploaded run against one condition of the experiment, leaked and other topics."""
    leakage = loaders.leakage(leakage_key)
    values = upload.scores[upload.scores.measure == measure].set_index("qid").value
    return versus_condition(
        values,
        loaders.per_query_table(key, measure),
        levels,
        None if leakage.empty else leaked_qids(leakage, threshold),
        statistics,
    )


@st.cache_data(max_entries=32, show_spinner=False)
def story(
    key: DataKey,
    leakage_key: LeakageKey,
    measure: str,
    threshold: float,
    pair: tuple,
    statistics: Statistics,
) -> Story:
    """The story of one pair of conditions (`pair`: (factor, level) items), told from the
    same inflation result as the Inflation tab."""
    experiment = loaders.experiment_of(key.files)
    design = experiment.design
    result = inflation_view(
        key,
        leakage_key,
        measure,
        {},
        threshold,
        (design.leaked, design.clean),
        parse_measure(measure).better,
        statistics.correction,
    )
    return tell(
        result,
        dict(pair),
        design,
        parse_measure(measure),
        statistics,
        loaders.leakage(leakage_key).table,
        topic_titles(key),
        threshold,
    )


@st.cache_data(max_entries=8, show_spinner=False)
def topic_titles(key: DataKey) -> pd.DataFrame:
    """collection, qid and title of every topic of the experiment."""
    return pd.concat(
        [
            loaders.collection(key.files, name).topics[["qid", "title"]].assign(collection=name)
            for name in loaders.experiment_of(key.files).collections
        ],
        ignore_index=True,
    )
