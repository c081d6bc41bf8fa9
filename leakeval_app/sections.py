"""Page sections big enough to keep out of the page scripts, with no logic of their own."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from leakeval_app import state, uploads, views
from leakeval_app.context import current
from leakeval_app.limits import uploads_allowed
from leakeval_app.markup import code, plain
from leakeval_app.render import (
    number,
    show_error,
    show_fig,
    show_scoring_warnings,
    show_table,
    show_text_table,
)
from leakeval_core import api
from leakeval_core.api import doors
from leakeval_core.api.terms import is_hybrid
from leakeval_core.errors import LeakevalError
from leakeval_core.present.audit_plots import audit_figure
from leakeval_core.present.display import (
    CHANGES_TITLE,
    DASH,
    NO_CHANGES,
    changes_table,
    leaderboard_table,
    tau_text,
)
from leakeval_core.present.leaderboard_plots import figure_height, rank_interval_figure
from leakeval_core.present.leakage_plots import detection_curves_figure
from leakeval_core.present.report import interval_caption
from leakeval_core.present.story import answers_table, leaked_sentence


def show_detection_quality(
    quality, threshold: float, source: str, seen: tuple[int, int] = (0, 0)
) -> None:
    """How the current method and threshold agree with people's judgments.

    `seen`: how many of the labelled pairs the shipped hybrid model was fitted on, of all
    (the demo's are the study's development pairs). The tab must say so: its figures refit
    the model within each fold, but detection elsewhere uses the model that saw them.
    """
    now = doors.at_threshold(quality, threshold)
    fitted = (
        "out-of-fold similarities (5 folds grouped by topic)"
        if quality.cross_validated
        else "the method's similarities (nothing fitted)"
    )
    st.caption(
        f"**{quality.method}** on {quality.pairs} labelled pairs over {quality.topics} topics "
        f"({quality.near_duplicates} near-duplicates, {quality.different} different) from "
        f"{code(source)}; {fitted}."
    )
    if seen[0] and is_hybrid(quality.method):
        st.warning(
            f"{seen[0]} of these {seen[1]} labelled pairs are among the development pairs the "
            "shipped hybrid model was fitted on. The figures below refit it within each "
            "fold, so they are out-of-fold; the detection on the other tabs uses the model "
            "fitted on all of them, so its agreement with these pairs there is in-sample "
            "and optimistic.",
            icon=":material/warning:",
        )
    cols = st.columns(5)
    cols[0].metric("ROC AUC", number(quality.roc_auc, 3))
    cols[1].metric("PR AUC", number(quality.pr_auc, 3))
    cols[2].metric(
        f"Different rejected at {api.TARGET_RECALL:.0%} recall",
        f"{quality.rejected_at_90:.0%}",
        help="Share of different-topic pairs scored below the similarity that keeps 90% of "
        f"the near-duplicates (95%: {quality.rejected_at_95:.0%}).",
    )
    cols[3].metric(
        f"Precision / recall at {threshold:.3f}",
        f"{number(now['precision'], 2)} / {number(now['recall'], 2)}",
        help=f"The method's default threshold is {quality.threshold:.3f}; chosen on other "
        f"folds' topics it gives precision {quality.precision:.3f}, recall "
        f"{quality.recall:.3f}.",
    )
    cols[4].metric(
        "Category agreement",
        f"{quality.category_agreement:.0%}",
        help="Near-duplicates whose category equals the annotators' relation to the text they "
        "matched (the variant, else the title).",
    )
    show_fig(detection_curves_figure, quality.scored, threshold, quality.method)
    left, right = st.columns([2, 3])
    with left:
        st.markdown("**Verdicts by the annotators' relation**")
        st.caption("Rows: the method's verdict at its default threshold (different: below it).")
        show_table(quality.confusion.reset_index(names="verdict"))
    with right:
        scored = quality.scored
        wrong = scored[(scored.similarity >= threshold) != (scored.near_duplicate == 1)]
        st.markdown(f"**Misjudged at {threshold:.3f}: {len(wrong)} pairs**")
        show_table(
            wrong[["topic", "test_text", "train_text", "similarity", "relation", "category"]]
            .rename(columns={"test_text": "matched topic text", "relation": "annotators"})
            .sort_values("similarity", ascending=False),
            height=320,
            similarity=st.column_config.NumberColumn(format="%.3f"),
        )


def show_uploaded_scores(collection: str) -> None:
    """Each uploaded run scored against the collection's qrels, removable, then one compared
    with a condition. Uploads are only ever named inside functions like this one: a page's
    globals outlive its session's last run, and would keep a closed tab's uploads alive."""
    ctx = current()
    scored = {}
    kept = uploads.uploader()
    names = [run.name for run in kept]
    for run in kept:  # two different files of one name are told apart by their content
        label = run.name if names.count(run.name) == 1 else f"{run.name} ({run.digest[:6]})"
        head = st.columns([5, 1])
        head[0].markdown(f"**{plain(label)}**")
        if head[1].button("Remove", key=f"forget_{run.digest}", icon=":material/delete:"):
            uploads.forget(run.digest)
            st.rerun()
        try:
            scored[label] = views.score_upload(ctx, collection, run)
        except LeakevalError as exc:
            show_error(exc)
            continue
        result = scored[label]
        st.caption(
            f"{result.diagnostics.coverage(ctx.conventions.missing)}; "
            f"{result.diagnostics.tie_note(ctx.conventions.tie_order)}."
        )
        show_scoring_warnings(result.warnings)
        show_table(result.means)
    if scored:
        show_upload_comparison(scored, collection)


def show_uploaded_audit(collection: str) -> None:
    """The uploaded runs audited against a condition or another upload (uploads named only
    in here, as in `show_uploaded_scores`)."""
    ctx = current()
    kept = {run.name: run for run in uploads.uploader()}
    if not kept:
        if uploads_allowed():
            st.caption("Upload a run to audit it.")
        return
    conditions = views.conditions_of(ctx, collection)
    choices = [*conditions, *(f"upload: {n}" for n in kept)]
    baseline = st.selectbox("Baseline", choices, key="audit_upload_baseline")
    audited = [n for n in kept if f"upload: {n}" != baseline]
    try:
        result = views.audit_upload(
            ctx,
            collection,
            tuple(kept[n] for n in audited),
            baseline,
            conditions.get(baseline),
            kept.get(baseline.removeprefix("upload: ")),
        )
    except LeakevalError as exc:
        show_error(exc)
    else:  # as the experiment's models are shown: the verdict first, never cut off
        show_scoring_warnings(result.scoring_warnings)
        rows = doors.headline_rows(result.table)
        show_fig(
            audit_figure,
            rows,
            ctx.measure,
            [*result.keys, result.factor, "baseline"],
            result.baseline,
        )
        st.caption(plain(result.caption))
        show_text_table(answers_table(rows, ctx.measure, result.factor, result.keys))


def show_upload_comparison(scored: dict, collection: str) -> None:
    """An uploaded run against one condition of the experiment, split by leaked topics."""
    ctx = current()
    experiment, design = ctx.experiment, ctx.experiment.design
    st.markdown(f"**Compare an uploaded run with a condition** ({ctx.measure.label})")
    run = st.selectbox("Uploaded run", list(scored), key="upload_run")
    factors = [f for f in experiment.condition_factors if f not in ("collection", design.fold)]
    levels = {"collection": collection}
    for column, factor in zip(st.columns(len(factors)) if factors else [], factors, strict=True):
        options = experiment.levels(factor)
        preferred = design.clean if factor == design.leakage else options[0]
        default = preferred if preferred in options else options[0]
        levels[factor] = column.selectbox(
            plain(factor), options, index=options.index(default), key=f"upload_{factor}"
        )
    leakage = ctx.leakage
    try:
        table, only_run, only_condition = views.upload_versus(ctx, scored[run], levels)
    except LeakevalError as exc:
        show_error(exc)
        return
    first = ["topics", "n", "mean_a", "mean_b", "delta", "ci_low", "ci_high", "p_adjusted"]
    first.append("significant")
    show_table(
        table[[*first, *(c for c in table.columns if c not in first)]].rename(
            columns={"mean_a": f"{run} (A)", "mean_b": "condition (B)", "delta": "A − B"}
        )
    )
    unpaired = (
        f" {only_run} topics only the run scored and {only_condition} only the condition "
        "scored are left out."
        if only_run or only_condition
        else ""
    )
    rules = ctx.study.leaked_rule(ctx.view)
    split = (
        " " + leaked_sentence(rules, leakage.source, levels.get("collection"))
        if not leakage.empty
        else " No leakage table, so no leaked/other split."
    )
    st.caption(
        plain(
            f"A: the uploaded run; B: {doors.condition_label(levels)}; paired by topic."
            f"{unpaired}{split} "
            f"{ctx.statistics.describe()}, over the {len(table)} rows of this table. "
            + interval_caption(table, ctx.statistics)
        )
    )


def show_leaderboard(board: api.Leaderboard, name: str) -> None:
    """One leaderboard of `board` (chosen where it holds several, the choice kept as view
    value `name`): each system's mean, HSD group and rank interval on all and on clean
    topics, the rank-interval chart, the pairs whose verdict or order changes, and Kendall's
    τ."""
    places = board.places()
    if not places:
        st.caption(
            "A leaderboard needs a system factor with two or more systems scored on the same "
            "topics."
        )
        return
    labels = list(places)
    chosen = labels[0]
    if len(labels) > 1:
        chosen = state.control(st.selectbox, "Leaderboard at", name, labels, default=labels[0])
    one = board.at(places[chosen])
    st.markdown("**Leaderboard on all topics and on the topics without a near-duplicate**")
    table, note = leaderboard_table(one.table, one.keys)
    # a slide has room for the groups and ranks, not the intervals beside them too: with
    # them, the rank change the note explains was the column cut off
    show_table(table, slide=[c for c in table.columns if "CI" not in c])
    st.caption(plain(note))
    systems = one.systems
    show_fig(
        rank_interval_figure,
        systems,
        board.measure,
        # a slide's margins are 50 px taller than a page's: the rows keep their height
        slide_height=figure_height(systems.system.nunique()) + 50,
    )
    st.caption(plain(one.caption))
    moved = changes_table(one.changes)
    if moved.empty:
        st.caption(NO_CHANGES)
    else:
        st.markdown(f"**{CHANGES_TITLE}**")
        show_text_table(moved)
    for tau in one.tau.itertuples():
        st.caption(tau_text(tau))


def show_topic_answers(ctx, labels: dict, first: tuple | None = None) -> None:
    """A topic's near-duplicate training queries and each one's positive documents, the
    test qrels' grade beside each: which answers the model was trained on. `first`: the
    topic shown first (an answer-leaked one)."""
    st.markdown("**A topic's near-duplicates and the documents they were trained on**")
    choice = st.selectbox(
        "Topic whose training positives to show",
        list(labels),
        index=list(labels).index(first) if first in labels else 0,
        format_func=labels.get,
        key="answers_topic",
    )
    answers = views.topic_answers(ctx, *choice)
    st.caption(plain(answers.sentence))
    table = answers.table.assign(
        grade=[DASH if g != g else str(int(g)) for g in answers.table.grade],  # NaN: unjudged
        text=answers.table.text.fillna(DASH),
    )
    columns = ["train_qid", "train_text", "similarity", "docid", "grade", "relevant", "text"]
    if answers.table.text.isna().all():  # no document at hand: the ids get its room
        columns.remove("text")
        st.caption(
            "The collection's documents are not at hand here (a BEIR corpus or a downloaded "
            "ir_datasets collection shows their text)."
        )
    show_table(
        table[columns],
        height=min(36 * (len(answers.table) + 1) + 3, 320),
        train_qid=st.column_config.TextColumn("query id", width="small"),
        train_text=st.column_config.TextColumn("training query", width="medium"),
        similarity=st.column_config.NumberColumn("sim.", format="%.3f", width="small"),
        docid=st.column_config.TextColumn("positive document", width="medium"),
        grade=st.column_config.TextColumn(
            "grade", width="small", help="the topic's qrels' grade; – unjudged"
        ),
        relevant=st.column_config.CheckboxColumn(
            "relevant", width="small", help="relevant to the topic at the relevance level"
        ),
        text=st.column_config.TextColumn(
            "document text",
            width="large",
            help="from the collection's documents where they are at hand (a BEIR corpus, "
            "an ir_datasets collection downloaded); – otherwise",
        ),
    )


def show_training_qrels(ctx) -> None:
    """Where the training qrels come from (the experiment's, or this session's upload), the
    line saying how many of their positives the test qrels judge, and the uploader."""
    declared = ctx.experiment.training_qrels  # a path; an upload's study holds it read
    pairs = ctx.leakage
    if isinstance(declared, Path):
        st.caption(
            f"Training qrels: **{plain(declared.name)}** (experiment.toml): {plain(pairs.answers)}."
        )
        return
    if state.presenting():  # a slide has no controls
        return
    with st.expander(
        "Which answers leaked: the training qrels",
        icon=":material/upload:",
        expanded=uploads.training_held(),
    ):
        st.caption(
            "The training queries' positive documents. With them, each pair says which of its "
            "topic's relevant documents the model was trained on, and every page can split "
            "the topics into answer-leaked, query-leaked and clean. Declare them in "
            "experiment.toml (`[training_queries] qrels`) to keep them."
        )
        upload = uploads.training_uploader()
        if upload is None:
            return
        head = st.columns([5, 1])
        head[0].markdown(f"**{plain(upload.name)}**")
        if head[1].button("Remove", key="forget_training", icon=":material/delete:"):
            uploads.forget_training()
            st.rerun()
        _, problem = uploads.training_study(ctx.study, ctx.key)
        if problem is not None:
            show_error(LeakevalError(problem))
        elif pairs.answered:
            st.caption(plain(pairs.answers))
