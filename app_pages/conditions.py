"""Condition comparison: means, significance, inflation and ranking change across the design."""

import streamlit as st

from leakeval_app import data, state
from leakeval_app.render import show_fig, show_table, tabs
from leakeval_core.analysis.audit import audit_conventions
from leakeval_core.analysis.compare import significance_marks
from leakeval_core.leakage.table import DEFAULT_THRESHOLD
from leakeval_core.present.meeting import ReportOptions, build_report
from leakeval_core.present.plots import condition_figure, inflation_figure, tau_figure
from leakeval_core.present.tables import to_latex

ctx = data.current()
experiment, measure = ctx.experiment, ctx.measure
st.header("Condition comparison")
factors = list(experiment.condition_factors)
none = "(none)"


def choose(label: str, key: str, options: list, preferred: str):
    default = preferred if preferred in options else options[0]
    value = st.selectbox(label, options, key=state.seed(key, default, options))
    state.remember(key)
    return None if value == none else value


cols = st.columns(3)
with cols[0]:
    x = choose("x axis", "x", factors, "train_size")
with cols[1]:
    colour = choose("colour", "colour", [none, *[f for f in factors if f != x]], "leakage")
with cols[2]:
    facet = choose("facet", "facet", [none, *[f for f in factors if f not in (x, colour)]], "model")
by = [f for f in (x, colour, facet) if f]
fixed = {}
rest = [f for f in factors if f not in by]
for column, factor in zip(st.columns(len(rest)) if rest else [], rest, strict=True):
    levels = experiment.levels(factor)
    key = "collection" if factor == "collection" else f"fix_{factor}"  # shared with pages
    fixed[factor] = column.selectbox(
        factor, levels, key=state.seed(key, levels[0], levels, type(levels[0]))
    )
    state.remember(key)

means = ctx.means(by, fixed)
tests = ctx.comparisons(colour, fixed) if colour else None
marks = significance_marks(tests, x, facet) if tests is not None else None
show_fig(condition_figure, means, measure, x, colour, facet, marks)
st.caption(
    "Each query contributes one value per condition (folds combined per query; detected fold "
    f"rule: **{ctx.per_query().fold_rule}**). Bands: 95% t interval over queries. "
    + (
        f"✱: the {colour} levels differ significantly at this point (paired {ctx.test}, "
        f"{ctx.correction} over the {len(tests)} comparisons on screen, α = {ctx.alpha})."
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
            show_table(tests, height=360)
with tab_inflation:
    if tab_inflation.open:
        leakage = ctx.leakage()
        factor = "leakage" if "leakage" in factors else None
        if factor is None or leakage.empty:
            st.info("Inflation needs a `leakage` factor and a leakage table.")
        else:
            levels = [str(v) for v in experiment.levels(factor)]
            pick = st.columns(2)
            leaked_level = pick[0].selectbox(
                "leaked level", levels, index=levels.index("leaked") if "leaked" in levels else 0
            )
            clean_level = pick[1].selectbox(
                "clean level",
                levels,
                index=levels.index("none") if "none" in levels else len(levels) - 1,
            )
            threshold = state.get("threshold", DEFAULT_THRESHOLD)
            result = ctx.inflation(fixed, threshold, leaked_level, clean_level, factor)
            inflation_x = x if x != factor else next((f for f in by if f != factor), x)
            inflation_facet = facet if facet != factor else None
            show_fig(inflation_figure, result.summary, measure, inflation_x, inflation_facet)
            st.caption(
                f"Leaked = a training query with similarity ≥ {threshold:.2f} "
                f"({leakage.source}). p_difference: Welch's t-test of leaked vs other "
                f"topics' deltas, {ctx.correction}-adjusted over the rows below."
            )
            show_table(result.summary, height=300)
            st.markdown("**Topics that inflate most**")
            show_table(result.top, height=300)
with tab_tau:
    if tab_tau.open:
        if not {"model", "leakage"} <= set(factors):
            st.info("The ranking view needs `model` and `leakage` factors.")
        else:
            within = [f for f in ("collection", x) if f not in ("model", "leakage")]
            taus = ctx.ranking(list(dict.fromkeys(within)))
            show_fig(tau_figure, taus, within[-1])
            show_table(taus)
with tab_more:
    if tab_more.open:
        if tests is not None:
            caption = (
                f"{measure.label}: paired {ctx.test}, {ctx.correction} correction over "
                f"{len(tests)} comparisons, alpha {ctx.alpha}; † significant."
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
        if st.button("Prepare the HTML meeting report", icon=":material/description:"):
            options = ReportOptions(
                threshold=state.get("threshold", DEFAULT_THRESHOLD),
                test=ctx.test,
                correction=ctx.correction,
                alpha=ctx.alpha,
            )
            report = build_report(experiment, ctx.results(), measure, ctx.leakage(), options)
            st.download_button(
                "Download report.html", report, "leakeval-report.html", "text/html", type="primary"
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
