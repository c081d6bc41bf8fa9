"""Leakage audit: does a model gain suspiciously more on leaked topics than a baseline says?"""

import json

import streamlit as st

from leakeval_app import state, views
from leakeval_app.context import current
from leakeval_app.markup import plain
from leakeval_app.render import show_error, show_fig, show_text_table
from leakeval_app.sections import show_leaderboard, show_uploaded_audit
from leakeval_core.api import doors
from leakeval_core.api.terms import TESTS
from leakeval_core.errors import LeakevalError
from leakeval_core.present.audit_plots import (
    audit_figure,
    category_gain_figure,
    dose_figure,
    sensitivity_figure,
)
from leakeval_core.present.display import fixed
from leakeval_core.present.story import answers_table
from leakeval_core.present.tables import flat_topics_needed

ctx = current()
experiment, measure, design = ctx.experiment, ctx.measure, ctx.experiment.design
st.header("Leakage audit")
st.caption(
    "Each model's gain over a baseline that never saw the training queries, on the topics "
    "with a near-duplicate in them minus on the others: a model that memorised leaked "
    "queries gains more where they leaked. " + doors.AUDIT_CAVEAT
)

names = doors.scored_collections(ctx.study, ctx.settings)
collection = state.control(st.selectbox, "Collection", "collection", names, default=names[0])
cols = st.columns(2)
strata = 1
with cols[0]:
    if ctx.view.statistics.procedure.two_sample.strata:
        strata = state.control(
            st.selectbox,
            "Permute the leaked flags",
            "audit_strata",
            [1, 4],
            default=1,
            format_func=lambda n: (
                "over all topics" if n == 1 else f"within {n} strata of the baseline's score"
            ),
            help="Stratified: leaked topics are compared with others of similar difficulty, "
            "as the baseline measures it.",
        )
    elif not state.presenting():
        st.caption(
            f"Test: {ctx.view.statistics.split_test}. To permute the leaked flags within "
            "strata of the baseline's score, choose "
            + " or ".join(t.shown for t in TESTS.values() if t.two_sample.strata)
            + " under Statistics."
        )
    if not ctx.leakage.empty and ctx.leakage.answered:  # training qrels: split by answers
        split = state.control(
            st.radio,
            "Leaked topics",
            "split",
            ["leaked", "answer"],
            default="leaked",
            format_func={
                "leaked": "leaked vs other",
                "answer": "answer-leaked · query-leaked · clean",
            }.get,
            horizontal=True,
            help="Answer-leaked: a near-duplicate training query's positive is a relevant "
            "document of the topic; query-leaked: near-duplicates, none sharing one. The "
            "three comparisons are one family.",
        )
        if split != ctx.view.split:
            st.rerun()  # every page reads the split from the context the frame builds
UPLOAD_TAB = "Audit uploaded runs"
tab_models, tab_closer, tab_board, tab_upload = state.tabs(
    ["Per model", "Closer look", "Leaderboard", UPLOAD_TAB], "audit_tab"
)
result = None
if tab_models.open or tab_closer.open or tab_board.open:
    if why := doors.why_not_audit(design):
        st.info(
            f"{why} Runs you upload can be audited against any condition on the "
            f"**{UPLOAD_TAB}** tab.",
            icon=":material/info:",
        )
    else:
        try:
            result = views.audit(ctx, strata).at({"collection": collection})
        except LeakevalError as exc:
            show_error(exc)
if result is not None and len(result.table):
    factor = result.factor
    splits = sorted(result.table.split.unique(), key=lambda s: (s != "leaked", s))
    with cols[1]:
        split = state.control(
            st.selectbox, "Split the topics by", "audit_split", splits, default=splits[0]
        )
    with tab_models:
        if tab_models.open:
            rows = result.table[result.table.split == split]
            places = [*result.keys, factor, "baseline"]
            show_fig(audit_figure, rows, measure, places, result.baseline)
            st.caption(plain(result.caption))
            shown = answers_table(rows, measure, factor, result.keys)
            show_text_table(shown)
            for warning in result.warnings:
                st.warning(plain(warning), icon=":material/warning:")
            if not state.presenting():
                # one row, each button as wide as its label: four equal columns cut the
                # card's label on a laptop's screen
                downloads = st.container(horizontal=True)
                downloads.download_button(
                    "Audit table (CSV)",
                    flat_topics_needed(result.table).to_csv(index=False),
                    "audit.csv",
                    "text/csv",
                )
                downloads.download_button(
                    "Every figure (JSON)",
                    lambda: json.dumps(result.as_dict(), indent=2),  # every model's: on a click
                    "audit.json",
                    "application/json",
                )
                card = views.card(ctx)  # every collection's, as `leakeval card` writes it
                downloads.download_button(
                    "Contamination card (Markdown)", card.markdown, "card.md", "text/markdown"
                )
                downloads.download_button(
                    "Card's figures (JSON)", card.to_json(), "card.json", "application/json"
                )
    with tab_closer:
        if tab_closer.open:
            looks = result.looks(split)
            look = state.control(
                st.selectbox,
                "Closer look at",
                "audit_model",
                list(looks),
                default=next(iter(looks)),
                help="Ordered by the difference on the Per model tab, largest first.",
            )
            closer = result.at(looks[look])  # one model against one baseline
            left, right = st.columns(2)
            with left:
                show_fig(dose_figure, closer.dose, measure, closer.baseline, slide_height=430)
                trend = closer.trend
                if len(trend):
                    row = trend.iloc[0]
                    st.caption(
                        f"Spearman's ρ between the nearest training query's similarity and the "
                        f"gain, over {int(row.topics)} topics: {fixed(row.rho, 3, sign=True)} "
                        f"(permutation p = {row.p:.3g}). A positive ρ: the closer the leaked "
                        "query, the larger the gain."
                    )
            with right:
                show_fig(
                    category_gain_figure,
                    closer.categories,
                    measure,
                    closer.baseline,
                    slide_height=430,
                )
            show_fig(
                sensitivity_figure,
                closer.sensitivity,
                measure,
                result.threshold,
                slide_height=440,
            )
            st.caption(
                "The same estimate at every detection threshold, with its "
                f"{ctx.view.statistics.interval_name('split')} "
                f"({ctx.view.statistics.split_test}) at the level its row on the Per "
                "model tab is tested at. Detection is imperfect: the Leakage overlap page "
                "measures it on human judgments."
            )
    with tab_board:
        if tab_board.open:
            show_leaderboard(result.board, "audit_board")
with tab_upload:
    if tab_upload.open and not state.presenting():
        st.markdown(
            f"Audit runs of your own model on **{plain(collection)}** against a baseline: one "
            "of the experiment's conditions, or another uploaded run. The leaked topics are the "
            "experiment's, at the current threshold. Runs stay in this browser session."
        )
        show_uploaded_audit(collection)
