"""Condition comparison: means, significance, inflation and ranking change across the design."""

import streamlit as st

from leakeval_app import state, views
from leakeval_app.context import current
from leakeval_app.markup import plain
from leakeval_app.render import show_error, show_fig, show_table, show_text_table
from leakeval_app.sections import show_leaderboard
from leakeval_core import api
from leakeval_core.api import doors
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.published import NOT_RECOMPUTED
from leakeval_core.present.condition_plots import (
    condition_figure,
    difference_figure,
    inflation_figure,
    significance_marks,
    tau_figure,
)
from leakeval_core.present.display import COMPARED_FIGURES, RANKING_FIGURES, key_columns
from leakeval_core.present.report import chart_roles
from leakeval_core.present.story import answers_table
from leakeval_core.present.tables import flat_topics_needed, to_latex

ctx = current()
experiment, measure, design = ctx.experiment, ctx.measure, ctx.experiment.design
st.header("Condition comparison")
factors = list(experiment.condition_factors)
charted = [f for f in factors if f != "collection"]
preferred = chart_roles(design, charted) if charted else ("collection", None, None)
none = "(none)"


def choose(label: str, name: str, options: list, preferred: str | None):
    default = preferred if preferred in options else options[0]
    value = state.control(st.selectbox, label, name, options, default=default)
    return None if value == none else value


cols = st.columns(3)
with cols[0]:
    x = choose("x axis", "x", factors, preferred[0])
with cols[1]:
    colour = choose("colour", "colour", [none, *[f for f in factors if f != x]], preferred[1])
with cols[2]:
    facet_options = [none, *[f for f in factors if f not in (x, colour)]]
    facet = choose("facet", "facet", facet_options, preferred[2])
by = [f for f in (x, colour, facet) if f]
fixed = {}
rest = [f for f in factors if f not in by]
for column, factor in zip(st.columns(len(rest)) if rest else [], rest, strict=True):
    # the collection is shared with every page, in the manifest's order (those scored);
    # other levels are this page's, sorted
    if factor == "collection":
        levels, name = doors.scored_collections(ctx.study, ctx.settings), "collection"
    else:
        levels, name = experiment.levels(factor), f"fix_{factor}"
    with column:
        fixed[factor] = state.control(st.selectbox, plain(factor), name, levels, default=levels[0])

means = views.means(ctx, tuple(by), fixed)
stats = ctx.statistics
tests = views.comparisons(ctx, colour, fixed) if colour else None
marks = significance_marks(tests.table, x, facet) if tests is not None else None
show_fig(condition_figure, means, measure, x, colour, facet, marks, ctx.palette)
st.caption(
    "Each query contributes one value per condition (folds combined per query; detected fold "
    f"rule: **{plain(doors.fold_rule(ctx.study, ctx.settings))}**). Bands: 95% t interval of "
    "each mean on its own; the paired differences and their corrected intervals are in the "
    "Significance tab. "
    + (
        f"✱: the {plain(colour)} levels differ significantly at this point. {plain(tests.caption)}"
        if tests is not None
        else "Choose a colour factor to test its levels."
    )
)

tab_means, tab_tests, tab_inflation, tab_tau, tab_board, tab_more = state.tabs(
    ["Means", "Significance", "Inflation", "Ranking change", "Leaderboard", "Audit & downloads"],
    "conditions_tab",
)
with tab_means:
    if tab_means.open:
        show_table(
            means.assign(**fixed).rename(
                columns={
                    "n": "queries",
                    "sd": "std. dev.",
                    "ci_low": "95% CI low",
                    "ci_high": "95% CI high",
                }
            )
        )
with tab_tests:
    if tab_tests.open:
        if tests is None:
            st.caption("Choose a colour factor: its levels are compared at every point.")
        else:
            show_fig(
                difference_figure,
                tests.table,
                measure,
                x,
                facet,
                colour,
                ctx.statistics,
                ctx.palette,
            )
            st.caption(plain(tests.caption))
            places = [f for f in ("collection", *by, "a", "b") if f in tests.table]
            show_table(
                tests.table, height=360, columns=key_columns(tests.table, COMPARED_FIGURES, places)
            )
            st.caption(
                "The statistic, p before correction, the effect size and wins, ties and "
                "losses are in Significance (CSV) under Audit & downloads."
            )
with tab_inflation:
    if tab_inflation.open:
        why = design.why_not("Inflation", "leakage") or (
            doors.needs_pairs("Inflation", ctx.leakage.error) if ctx.leakage.empty else None
        )
        if why:
            st.info(why, icon=":material/info:")
        else:
            factor = design.leakage
            levels = experiment.levels(factor)
            pick = st.columns(2)
            with pick[0]:
                leaked_level = state.control(
                    st.selectbox,
                    f"leaked level of {plain(factor)}",
                    "inflation_leaked",
                    levels,
                    default=design.leaked,
                )
            with pick[1]:
                clean_level = state.control(
                    st.selectbox,
                    f"clean level of {plain(factor)}",
                    "inflation_clean",
                    levels,
                    default=design.clean,
                )
            try:
                result = views.inflation(ctx, leaked_level, clean_level).at(fixed)
            except LeakevalError as exc:  # e.g. the same level picked twice
                show_error(exc)
                st.stop()
            rows = result.table
            if "split" in rows:  # by answers: three comparisons per pair, one drawn at a time
                splits = list(dict.fromkeys(rows.split))
                split = state.control(
                    st.selectbox,
                    "Split the topics by",
                    "inflation_split",
                    splits,
                    default=splits[0],
                )
                rows = rows[rows.split == split]
            inflation_x = x if x != factor else next((f for f in by if f != factor), x)
            inflation_facet = facet if facet != factor else None
            show_fig(inflation_figure, rows, measure, inflation_x, inflation_facet)
            st.caption(plain(result.caption))
            columns = result.table.columns[: result.table.columns.get_loc("leaked_topics")]
            places = [c for c in columns if c != "split"]
            show_text_table(answers_table(result.table, measure, None, places))
            st.markdown("**Leaked topics with the largest gains**")
            show_table(result.top, height=300)
with tab_tau:
    if tab_tau.open:
        if why := design.why_not("The ranking view", "system", "leakage"):
            st.info(why, icon=":material/info:")
        else:
            within = [f for f in ("collection", x) if f not in (design.system, design.leakage)]
            taus = doors.rows_at(views.ranking_change(ctx, tuple(dict.fromkeys(within))), fixed)
            show_fig(tau_figure, taus, within[-1], ctx.palette)
            st.caption(
                f"Kendall's τ between the {plain(design.system)} rankings under two "
                f"{plain(design.leakage)} "
                "levels. With few systems τ moves in big steps, so each comes with a 95% "
                "bootstrap interval over queries and p_same, the share of resampled query "
                "sets that keep the ranking. Each ranking names the systems best first "
                f"({measure.direction.words})."
            )
            rankings = [c for c in taus.columns if c.startswith("ranking (")]
            places = ["collection", *within, "a", "b"]
            show_table(taus, columns=key_columns(taus, [*RANKING_FIGURES, *rankings], places))
with tab_board:
    if tab_board.open:
        if why := design.why_not("The leaderboard", "system") or (
            doors.needs_pairs("The leaderboard", ctx.leakage.error) if ctx.leakage.empty else None
        ):
            st.info(why, icon=":material/info:")
        else:
            show_leaderboard(views.leaderboard(ctx).at(fixed), "conditions_board")
with tab_more:
    if tab_more.open and not state.presenting():
        st.markdown("**Tables** (CSV for analysis, LaTeX for a paper: `\\usepackage{booktabs}`)")
        cols = st.columns(4)
        cols[0].download_button(
            "Means (CSV)", means.assign(**fixed).to_csv(index=False), "means.csv", "text/csv"
        )
        cols[1].download_button(
            "Per-query scores (CSV)",
            doors.per_query_table(ctx.study, ctx.settings).to_csv(index=False),
            "per-query.csv",
            "text/csv",
            help=f"{measure.label}: one value per condition and query, folds combined.",
        )
        if tests is not None:
            cols[2].download_button(
                "Significance (CSV)",
                flat_topics_needed(tests.table).to_csv(index=False),
                "significance.csv",
                "text/csv",
            )
            cols[3].download_button(
                "Significance (LaTeX)",
                to_latex(tests.table, tests.caption + " † significant."),
                "significance.tex",
                "text/x-tex",
            )
        if not (design.why_not("Inflation", "leakage") or ctx.leakage.empty):
            inflated = views.inflation(ctx)
            cols = st.columns(4)
            cols[0].download_button(
                "Inflation (CSV)", inflated.table.to_csv(index=False), "inflation.csv", "text/csv"
            )
            cols[1].download_button(
                "Inflation (LaTeX)",
                to_latex(inflated.table, inflated.caption),
                "inflation.tex",
                "text/x-tex",
            )
            cols[2].download_button(
                "Top inflating topics (CSV)",
                inflated.top.to_csv(index=False),
                "top-inflating.csv",
                "text/csv",
            )
        # the report is kept for the settings it was built with, so its download button
        # stays after a download (which must not rerun the page either)
        built_for = (ctx.key, ctx.settings)
        if st.button("Prepare the HTML meeting report", icon=":material/description:"):
            st.session_state["report"] = (built_for, api.report(ctx.study, view=ctx.settings))
        kept = st.session_state.get("report")
        if kept is not None and kept[0] == built_for:
            st.download_button(
                "Download report.html",
                kept[1],
                "leakeval-report.html",
                "text/html",
                type="primary",
                on_click="ignore",
                key="report_download",
            )
        with st.expander("Convention check: how these means move under other conventions"):
            conditions = means[by].assign(**fixed).to_dict("records")
            if ctx.study.published:
                st.caption(NOT_RECOMPUTED)
            else:
                st.caption(
                    f"Recomputes the {len(conditions)} conditions on screen with one convention "
                    "changed at a time; the first run rescoring many runs takes a while. The "
                    f"relevance level {doors.relevance_level_note()}."
                )
                if st.button("Recompute", key="audit_conditions"):
                    bar = st.progress(0.0)
                    checked = api.convention_check(
                        ctx.study,
                        ctx.settings,
                        conditions,
                        progress=lambda done, total, what: bar.progress(
                            done / max(total, 1), text=what
                        ),
                    )
                    bar.empty()
                    show_table(checked)
