"""Each page's derived tables: one API call each, kept by the study per settings.

Every number a page shows is built once per study and View settings, in the study's memory
(`Study.remember`), which all sessions share: a second reader asking for a table another is
building joins that build, a reader who clicks away leaves it running, and a rerun gets the
table itself, not a copy. The study is the experiment at one file fingerprint
(`loaders.study`), so a key needs only the settings. Pages must not change what they get.
What is computed from uploaded runs is kept with them in their session instead
(`uploads.derived`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeVar

import pandas as pd
import streamlit as st

from leakeval_app import uploads
from leakeval_app.context import AppContext
from leakeval_app.uploads import Upload
from leakeval_core import api
from leakeval_core.api import View, doors
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.measures import parse_measures
from leakeval_core.evaluation.published import measures_for
from leakeval_core.evaluation.scoring_warnings import collection_qrels

T = TypeVar("T")


def remembered(ctx: AppContext, key: tuple, build: Callable[[], T], spinner: str = "") -> T:
    """The study's value under `key`, built by `build` the first time (under a spinner
    saying `spinner`, where given)."""
    if not spinner or ctx.study.remembers(key):
        return ctx.study.remember(key, lambda _: build())
    with st.spinner(spinner):
        return ctx.study.remember(key, lambda _: build())


def items(levels: dict) -> tuple:
    """Levels as part of a key (a dict is not hashable)."""
    return tuple(sorted(levels.items()))


def means(ctx: AppContext, by: tuple, fixed: dict, measure: str | None = None) -> pd.DataFrame:
    settings = ctx.settings if measure is None else ctx.settings.replace(measure=measure)
    return remembered(
        ctx,
        ("means", settings, by, items(fixed)),
        lambda: doors.condition_means(ctx.study, settings, by, fixed),
    )


def comparisons(ctx: AppContext, vary: str, fixed: dict) -> api.Comparison:
    """Every comparison of `vary`'s levels, corrected within each collection, then the rows
    at the `fixed` levels: a comparison's adjusted p is the same whichever chart shows it."""
    family = remembered(
        ctx,
        ("compare", ctx.settings, vary),
        lambda: api.compare(ctx.study, view=ctx.settings, vary=vary),
        spinner="Testing the differences…",
    )
    return family.at(fixed)


def inflation(ctx: AppContext, leaked: object = None, clean: object = None) -> api.Inflation:
    """Inflation of every pair of conditions (each row adjusted over its collection's
    pairs, as in the report and the CLI), with the leaked and clean levels chosen (the
    verb keeps it in the study)."""
    return api.inflation(ctx.study, view=ctx.settings, leaked=leaked, clean=clean)


def ranking_change(ctx: AppContext, within: tuple) -> pd.DataFrame:
    return remembered(
        ctx,
        ("ranking_change", ctx.settings, within),
        lambda: doors.ranking_change(ctx.study, ctx.settings, within),
    )


def topics(ctx: AppContext, name: str) -> tuple[pd.DataFrame, dict]:
    """The dataset browser's topic table (with leaked flags) and collection summary."""
    return remembered(
        ctx,
        ("topics", ctx.settings, name),
        lambda: doors.collection_topics(ctx.study, ctx.settings, name),
    )


def detection_quality(ctx: AppContext):
    return remembered(
        ctx,
        ("detection_quality", ctx.method),
        lambda: doors.detection_quality(ctx.study, View(method=ctx.method)),
        spinner="Scoring the labelled pairs…",
    )


def labels_seen_in_fitting(ctx: AppContext) -> tuple[int, int]:
    return remembered(ctx, ("labels_seen",), lambda: doors.labels_seen_in_fitting(ctx.study))


def leakage_overview(ctx: AppContext):
    """Everything the leakage explorer derives from the threshold, computed once each."""
    return remembered(
        ctx,
        ("leakage_overview", ctx.settings),
        lambda: doors.leakage_overview(ctx.study, ctx.settings),
    )


def topic_answers(ctx: AppContext, collection: str, qid: str):
    """One topic's near-duplicates' positive documents, relevant ones first."""
    return remembered(
        ctx,
        ("topic_answers", ctx.settings, collection, qid),
        lambda: api.topic_answers(ctx.study, ctx.settings, collection, qid),
    )


def paired(ctx: AppContext, a: dict, b: dict):
    """A vs B on the chosen measure, and every app measure side by side."""
    return remembered(
        ctx,
        ("paired", ctx.settings, items(a), items(b)),
        lambda: (
            doors.paired(ctx.study, ctx.settings, a, b),
            doors.paired_measures(ctx.study, ctx.settings, a, b, ctx.measures),
        ),
    )


def ranked_lists(ctx: AppContext, a: dict, b: dict, qid: str):
    """One query's ranked lists under conditions A and B."""
    return remembered(
        ctx,
        ("ranked_lists", ctx.settings, items(a), items(b), qid),
        lambda: doors.ranked_lists(ctx.study, ctx.settings, a, b, qid),
    )


class ScoredUpload(NamedTuple):
    means: pd.DataFrame
    """Every app measure, combined as the measure says."""
    scores: pd.DataFrame
    """qid, measure, value: the per-query scores a comparison pairs."""
    diagnostics: object
    warnings: tuple[str, ...]
    """What the reader must be told about the run's scores (`ScoreDiagnostics.warnings`)."""


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
    # under the collection's own conventions, as the experiment's runs are scored
    conventions = conventions.declared(study.experiment.collections[collection].conventions)
    with st.spinner("Scoring the uploaded run…"):
        qrels = study.collection(collection).qrels
        upload = (run.name, run.data)
        measures = parse_measures(measures_for(upload, study.scoring_measures()))
        result = api.score(qrels, {run.name: upload}, measures, conventions)
    means = result.means().loc[run.name]
    table = pd.DataFrame(
        {"measure": [m.label for m in measures], "mean": [means[m.name] for m in measures]}
    )
    diagnostics = result.diagnostics[run.name]
    warnings = diagnostics.warnings(run.name, collection_qrels(collection))
    return ScoredUpload(table, result.runs[run.name].table, diagnostics, warnings)


def upload_versus(ctx: AppContext, upload: ScoredUpload, levels: dict):
    """An uploaded run against one condition of the experiment, leaked and other topics."""
    return _upload_versus(ctx.key, ctx.settings, upload, levels, ctx.study)


@st.cache_data(max_entries=16, show_spinner=False)
def _upload_versus(key, settings: View, upload: ScoredUpload, levels: dict, _study):
    carried = list(dict.fromkeys(upload.scores.measure))
    if settings.measure not in carried:  # published values, of other measures
        raise LeakevalError(
            f"the uploaded values hold no {settings.parsed_measure.label}; they carry "
            f"{', '.join(m.label for m in parse_measures(carried))}: "
            "choose one of them as the measure"
        )
    values = upload.scores[upload.scores.measure == settings.measure].set_index("qid").value
    return doors.versus_run(_study, settings, values, levels)


def story(ctx: AppContext, pair: tuple):
    """The story of one pair of conditions (`pair`: (factor, level) items), told from the
    same inflation result as the Inflation tab."""
    return remembered(
        ctx,
        ("story", ctx.settings, pair),
        lambda: api.story(ctx.study, view=ctx.settings, pair=dict(pair)),
    )


def story_pair(ctx: AppContext, collection: str | None) -> dict:
    settings = ctx.settings.replace(collection=collection)
    return remembered(ctx, ("story_pair", settings), lambda: doors.story_pair(ctx.study, settings))


def topic_titles(ctx: AppContext) -> pd.DataFrame:
    """collection, qid and title of every topic of the experiment."""
    return ctx.study.titles()


def audit(ctx: AppContext, strata: int) -> api.Audit:
    """The experiment's audit: each model against its baseline (or each leaked condition
    against its clean twin), every collection (the verb keeps it in the study)."""
    with st.spinner("Auditing: permutation tests and intervals…"):
        return api.audit(ctx.study, view=ctx.settings, strata=strata)


def leaderboard(ctx: AppContext) -> api.Leaderboard:
    """Every system ranked on all and on clean topics at every level of the other factors,
    with the Tukey HSD groups (the verb keeps it in the study)."""
    with st.spinner("Ranking the systems: Tukey HSD permutations…"):
        return api.leaderboard(ctx.study, view=ctx.settings)


def card(ctx: AppContext) -> api.Card:
    """The contamination card of every collection, as `leakeval card` on the experiment
    folder with these settings writes it: the audit it shows is the one above (kept by the
    study), so making it costs only its wording."""
    return remembered(ctx, ("card", ctx.settings), lambda: api.card(ctx.study, view=ctx.settings))


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
        runs = api.RunSet(
            study.collection(collection).qrels,
            named,
            leakage=pairs[pairs.collection == collection],
            collection=collection,  # a frame's qrels have no file to name it after
        )
        return api.audit(
            runs,
            baseline=baseline,
            view=settings,
            covers=None if covered is None else covered[covered.collection == collection],
        )
