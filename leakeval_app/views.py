"""Each page's derived tables: one API call each, cached per fingerprint and settings.

A view passes the study as `_study`, which Streamlit leaves out of the cache key: the key
(the experiment's path and file fingerprint) and the View's settings say everything the
result depends on. Two pages that show the same view share it. What is computed from
uploaded runs is kept with them in their session instead (`uploads.derived`).
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from leakeval_app import uploads
from leakeval_app.context import APP_MEASURES, AppContext
from leakeval_app.uploads import Upload
from leakeval_core import api
from leakeval_core.api import View, doors
from leakeval_core.errors import LeakevalError


def means(ctx: AppContext, by: tuple, fixed: dict, measure: str | None = None) -> pd.DataFrame:
    settings = ctx.settings if measure is None else ctx.settings.replace(measure=measure)
    return _means(ctx.key, settings, by, fixed, ctx.study)


@st.cache_data(max_entries=64, show_spinner=False)
def _means(key, settings: View, by: tuple, fixed: dict, _study) -> pd.DataFrame:
    return doors.condition_means(_study, settings, by, fixed)


def comparisons(ctx: AppContext, vary: str, fixed: dict) -> api.Comparison:
    """Every comparison of `vary`'s levels, corrected within each collection, then the rows
    at the `fixed` levels: a comparison's adjusted p is the same whichever chart shows it."""
    return _family(ctx.key, ctx.settings, vary, ctx.study).at(fixed)


@st.cache_data(max_entries=16, show_spinner="Testing the differences…")
def _family(key, settings: View, vary: str, _study) -> api.Comparison:
    return api.compare(_study, view=settings, vary=vary)


def inflation(ctx: AppContext, leaked: object = None, clean: object = None) -> api.Inflation:
    """Inflation of every pair of conditions (each row adjusted over its collection's
    pairs, as in the report and the CLI), with the leaked and clean levels chosen."""
    return _inflation(ctx.key, ctx.settings, leaked, clean, ctx.study)


@st.cache_data(max_entries=32, show_spinner=False)
def _inflation(key, settings: View, leaked, clean, _study) -> api.Inflation:
    return api.inflation(_study, view=settings, leaked=leaked, clean=clean)


def ranking_change(ctx: AppContext, within: tuple) -> pd.DataFrame:
    return _ranking_change(ctx.key, ctx.settings, within, ctx.study)


@st.cache_data(max_entries=16, show_spinner=False)
def _ranking_change(key, settings: View, within: tuple, _study) -> pd.DataFrame:
    return doors.ranking_change(_study, settings, within)


def topics(ctx: AppContext, name: str) -> tuple[pd.DataFrame, dict]:
    """The dataset browser's topic table (with leaked flags) and collection summary."""
    return _topics(ctx.key, ctx.settings, name, ctx.study)


@st.cache_data(max_entries=16, show_spinner=False)
def _topics(key, settings: View, name: str, _study) -> tuple[pd.DataFrame, dict]:
    return doors.collection_topics(_study, settings, name)


def detection_quality(ctx: AppContext):
    return _detection_quality(ctx.key, ctx.method, ctx.study)


@st.cache_data(max_entries=8, show_spinner="Scoring the labelled pairs…")
def _detection_quality(key, method: str, _study):
    return doors.detection_quality(_study, View(method=method))


def labels_seen_in_fitting(ctx: AppContext) -> tuple[int, int]:
    return _seen(ctx.key, ctx.study)


@st.cache_data(max_entries=8, show_spinner=False)
def _seen(key, _study) -> tuple[int, int]:
    return doors.labels_seen_in_fitting(_study)


def leakage_overview(ctx: AppContext):
    """Everything the leakage explorer derives from the threshold, computed once each."""
    return _overview(ctx.key, ctx.settings, ctx.study)


@st.cache_data(max_entries=32, show_spinner=False)
def _overview(key, settings: View, _study):
    return doors.leakage_overview(_study, settings)


def paired(ctx: AppContext, a: dict, b: dict):
    """A vs B on the chosen measure, and every app measure side by side."""
    return _paired(ctx.key, ctx.settings, a, b, ctx.study)


@st.cache_data(max_entries=32, show_spinner=False)
def _paired(key, settings: View, a: dict, b: dict, _study):
    return (
        doors.paired(_study, settings, a, b),
        doors.paired_measures(_study, settings, a, b, APP_MEASURES),
    )


def ranked_lists(ctx: AppContext, a: dict, b: dict, qid: str):
    """One query's ranked lists under conditions A and B."""
    return _ranked_lists(ctx.key, ctx.settings, a, b, qid, ctx.study)


@st.cache_data(max_entries=32, show_spinner=False)
def _ranked_lists(key, settings: View, a: dict, b: dict, qid: str, _study):
    return doors.ranked_lists(_study, settings, a, b, qid)


class ScoredUpload(NamedTuple):
    means: pd.DataFrame
    """Every app measure, combined as the measure says."""
    scores: pd.DataFrame
    """qid, measure, value: the per-query scores a comparison pairs."""
    diagnostics: object


def score_upload(ctx: AppContext, collection: str, run: Upload) -> ScoredUpload:
    """Score an uploaded run in memory: it is never written anywhere. The result is kept
    with the upload in its session (`uploads.derived`), an error too.

    Bad input raises LeakevalError with the file:line message.
    """
    key = ("score", ctx.key, ctx.conventions, collection)
    return uploads.derived(
        (run,), key, lambda: _score_upload(ctx.study, ctx.conventions, collection, run)
    )


def _score_upload(study, conventions, collection: str, run: Upload) -> ScoredUpload:
    with st.spinner("Scoring the uploaded run…"):
        qrels = study.collection(collection).qrels
        result = api.score(qrels, {run.name: (run.name, run.data)}, APP_MEASURES, conventions)
    means = result.means().loc[run.name]
    table = pd.DataFrame(
        {"measure": [m.label for m in APP_MEASURES], "mean": [means[m.name] for m in APP_MEASURES]}
    )
    return ScoredUpload(table, result.runs[run.name].table, result.diagnostics[run.name])


def upload_versus(ctx: AppContext, upload: ScoredUpload, levels: dict):
    """An uploaded run against one condition of the experiment, leaked and other topics."""
    return _upload_versus(ctx.key, ctx.settings, upload, levels, ctx.study)


@st.cache_data(max_entries=16, show_spinner=False)
def _upload_versus(key, settings: View, upload: ScoredUpload, levels: dict, _study):
    values = upload.scores[upload.scores.measure == settings.measure].set_index("qid").value
    return doors.versus_run(_study, settings, values, levels)


def story(ctx: AppContext, pair: tuple):
    """The story of one pair of conditions (`pair`: (factor, level) items), told from the
    same inflation result as the Inflation tab."""
    return _story(ctx.key, ctx.settings, pair, ctx.study)


@st.cache_data(max_entries=32, show_spinner=False)
def _story(key, settings: View, pair: tuple, _study):
    return api.story(_study, view=settings, pair=dict(pair))


def story_pair(ctx: AppContext, collection: str | None) -> dict:
    return _story_pair(ctx.key, ctx.settings, collection, ctx.study)


@st.cache_data(max_entries=32, show_spinner=False)
def _story_pair(key, settings: View, collection: str | None, _study) -> dict:
    return doors.story_pair(_study, settings.replace(collection=collection))


def topic_titles(ctx: AppContext) -> pd.DataFrame:
    """collection, qid and title of every topic of the experiment."""
    return ctx.study.titles()


def audit(ctx: AppContext, strata: int) -> api.Audit:
    """The experiment's audit: each model against its baseline (or each leaked condition
    against its clean twin), every collection. Not in Streamlit's data cache, which hands
    each rerun a copy: the study keeps the one audit (`api.audit`), so a model's closer look,
    computed when a reader first opens it, is kept for every later rerun and session."""
    with st.spinner("Auditing: permutation tests and intervals…"):
        return api.audit(ctx.study, view=ctx.settings, strata=strata)


def conditions_of(ctx: AppContext, collection: str) -> dict[str, dict]:
    """The experiment's conditions on a collection, by label: each a baseline to choose."""
    conditions = ctx.experiment.conditions
    factors = [f for f in ctx.experiment.condition_factors if f != "collection"]
    mine = conditions[conditions.collection == collection][factors].drop_duplicates()
    return {
        doors.condition_label(levels): {"collection": collection, **levels}
        for levels in mine.to_dict("records")
    }


def audit_upload(
    ctx: AppContext,
    collection: str,
    runs: tuple[Upload, ...],
    baseline: str,
    levels: dict | None,
    baseline_upload: Upload | None,
) -> api.Audit:
    """Uploaded runs audited against a condition's runs (folds joined) or another upload,
    with the experiment's leaked topics on `collection`; kept with the uploads in their
    session (`uploads.derived`), an error too."""
    used = (*runs, baseline_upload) if baseline_upload is not None else runs
    key = (
        "audit",
        ctx.key,
        ctx.settings,
        collection,
        tuple(run.name for run in runs),
        baseline,
        None if levels is None else tuple(levels.items()),
    )
    return uploads.derived(
        used,
        key,
        lambda: _audit_upload(ctx, collection, runs, baseline, levels, baseline_upload),
    )


def _audit_upload(ctx: AppContext, collection, runs, baseline, levels, baseline_upload):
    if not runs:
        raise LeakevalError("upload a run to audit besides the baseline")
    study, settings = ctx.study, ctx.settings
    with st.spinner("Auditing the uploaded runs…"):
        named = {run.name: (run.name, run.data) for run in runs}
        if levels is not None:
            paths = doors.rows_at(study.experiment.conditions, levels).path
            named[baseline] = pd.concat([study.run_file(path) for path in paths], ignore_index=True)
        else:
            named[baseline] = (baseline, baseline_upload.data)
        pairs = study.pairs(settings).table
        covered = study.covered()
        return api.audit(
            study.collection(collection).qrels,
            named,
            baseline=baseline,
            view=settings,
            leakage=pairs[pairs.collection == collection],
            covers=None if covered is None else covered[covered.collection == collection],
        )
