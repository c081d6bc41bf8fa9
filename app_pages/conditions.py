"""Condition comparison: means, significance, inflation and ranking change across the design."""

import streamlit as st

from leakeval_app import loaders, state, views
from leakeval_app.context import current
from leakeval_app.render import show_error, show_fig, show_table, tabs
from leakeval_core.analysis.audit import audit_conventions
from leakeval_core.analysis.compare import significance_marks
from leakeval_core.analysis.folds import select
from leakeval_core.errors import LeakevalError
from leakeval_core.present.condition_plots import (
    condition_figure,
    difference_figure,
    inflation_figure,
    tau_figure,
)
from leakeval_core.present.meeting import (
    ReportOptions,
    build_report,
    chart_roles,
    interval_caption,
    significance_caption,
)
from leakeval_core.present.tables import to_latex

ctx = current()
experiment, measure, design = ctx.experiment, ctx.measure, ctx.experiment.design
st.header("Condition comparison")
factors = list(experiment.condition_factors)
charted = [f for f in factors if f != "collection"]
preferred = chart_roles(design, charted) if charted else ("collection", None, None)
none = "(none)"


def choose(label: str, key: str, options: list, preferred: str | None):
    default = preferred if preferred in options else options[0]
    value = st.selectbox(label, options, key=state.seed(key, default, options))
    state.remember(key)
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
    levels = experiment.levels(factor)
    key = "collection" if factor == "collection" else f"fix_{factor}"  # shared with pages
    # collections in the manifest's order, as on every other page; other levels sorted
    first = next(iter(experiment.collections)) if factor == "collection" else levels[0]
    fixed[factor] = column.selectbox(
        factor, levels, key=state.seed(key, first, levels, type(levels[0]))
    )
    state.remember(key)

means = views.means(ctx.key, measure.name, tuple(by), fixed)
stats = ctx.statistics
tests = views.comparisons(ctx.key, measure.name, colour, fixed, stats) if colour else None
marks = significance_marks(tests, x, facet) if tests is not None else None
show_fig(condition_figure, means, measure, x, colour, facet, marks, ctx.palette)
fold_rule = loaders.per_query_table(ctx.key, measure.name).fold_rule
st.caption(
    "Each query contributes one value per condition (folds combined per query; detected fold "
    f"rule: **{fold_rule}**). Bands: 95% t interval of each mean on its own; the paired "
    "differences and their corrected intervals are in the Significance tab. "
    + (
        f"✱: the {colour} levels differ significantly at this point. "
        + significance_caption(colour, "every pair of levels", tests, stats)
        if tests is not None
        else "Choose a colour factor to test its levels."
    )
)

tab_means, tab_tests, tab_inflation, tab_tau, tab_more = tabs(
    ["Means", "Significance", "Inflation", "Ranking change", "Audit & downloads"], "conditions_tab"
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
            show_fig(difference_figure, tests, measure, x, facet, colour, ctx.palette)
            st.caption(
                significance_caption(colour, "every pair of levels", tests, stats)
                + " "
                + interval_caption(tests, stats)
            )
            show_table(tests, height=360)
with tab_inflation:
    if tab_inflation.open:
        leakage = loaders.leakage(ctx.leakage_key)
        why = design.why_not("Inflation", "leakage")
        if why or leakage.empty:
            st.info(
                why
                or "Inflation needs leakage pairs: add `[training_queries]` or "
                "`[leakage] table` to experiment.toml.",
                icon=":material/info:",
            )
        else:
            factor = design.leakage
            levels = experiment.levels(factor)
            pick = st.columns(2)
            kind = type(levels[0])
            leaked_level = pick[0].selectbox(
                f"leaked level of {factor}",
                levels,
                key=state.seed("inflation_leaked", design.leaked, levels, kind),
            )
            clean_level = pick[1].selectbox(
                f"clean level of {factor}",
                levels,
                key=state.seed("inflation_clean", design.clean, levels, kind),
            )
            state.remember("inflation_leaked")
            state.remember("inflation_clean")
            threshold = state.get("threshold", leakage.threshold)
            try:
                result = views.inflation_view(
                    ctx.key,
                    ctx.leakage_key,
                    measure.name,
                    fixed,
                    threshold,
                    (leaked_level, clean_level),
                    measure.better,
                    stats.correction,
                )
            except LeakevalError as exc:  # e.g. the same level picked twice
                show_error(exc)
                st.stop()
            inflation_x = x if x != factor else next((f for f in by if f != factor), x)
            inflation_facet = facet if facet != factor else None
            show_fig(inflation_figure, result.summary, measure, inflation_x, inflation_facet)
            st.caption(
                f"Leaked = a training query with similarity ≥ {threshold:.2f} "
                f"({leakage.source}). p_difference: Welch's t-test of leaked vs other "
                f"topics' deltas, adjusted over the rows below ({stats.correction_label})."
            )
            show_table(result.summary, height=300)
            st.markdown("**Topics that inflate most**")
            show_table(result.top, height=300)
with tab_tau:
    if tab_tau.open:
        if why := design.why_not("The ranking view", "system", "leakage"):
            st.info(why, icon=":material/info:")
        else:
            within = [f for f in ("collection", x) if f not in (design.system, design.leakage)]
            taus = views.ranking(ctx.key, measure.name, tuple(dict.fromkeys(within)))
            taus = select(taus, {k: v for k, v in fixed.items() if k in taus.columns})
            show_fig(tau_figure, taus, within[-1], ctx.palette)
            st.caption(
                f"Kendall's τ between the {design.system} rankings under two {design.leakage} "
                "levels. With few systems τ moves in big steps, so each comes with a 95% "
                "bootstrap interval over queries and p_same, the share of resampled query "
                "sets that keep the ranking."
            )
            show_table(taus)
with tab_more:
    if tab_more.open:
        if tests is not None:
            caption = (
                f"{measure.label}: "
                + significance_caption(colour, "every pair of levels", tests, stats)
                + " † significant."
            )
            cols = st.columns(3)
            cols[0].download_button(
                "Significance table (CSV)",
                tests.to_csv(index=False),
                "significance.csv",
                "text/csv",
            )
            cols[1].download_button(
                "Significance table (LaTeX)",
                to_latex(tests, caption),
                "significance.tex",
                "text/x-tex",
            )
        # the report is kept for the settings it was built with, so its download button
        # stays after a download (which must not rerun the page either)
        options = ReportOptions(threshold=state.get("threshold"), statistics=stats)
        built_for = (ctx.key, ctx.leakage_key, measure.name, options)
        if st.button("Prepare the HTML meeting report", icon=":material/description:"):
            st.session_state["report"] = (
                built_for,
                build_report(
                    experiment,
                    loaders.results(ctx.key),
                    measure,
                    loaders.leakage(ctx.leakage_key),
                    options,
                ),
            )
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
        with st.expander("Metric-convention audit: how these means move under other conventions"):
            conditions = means[by].assign(**fixed).to_dict("records")
            st.caption(
                f"Recomputes the {len(conditions)} conditions on screen with one convention "
                "changed at a time; the first run rescoring many runs takes a while."
            )
            if st.button("Run the audit", key="audit_conditions"):
                bar = st.progress(0.0)
                audit = audit_conventions(
                    experiment,
                    conditions,
                    measure.name,
                    ctx.conventions,
                    progress=lambda done, total, what: bar.progress(
                        done / max(total, 1), text=what
                    ),
                )
                bar.empty()
                show_table(audit)
