"""Condition comparison: means with confidence intervals across the factors of the design."""

import streamlit as st

from leakeval_app import data, state
from leakeval_app.render import show_fig, show_table
from leakeval_core.audit import audit_conventions
from leakeval_core.compare import condition_means
from leakeval_core.plots import condition_figure

ctx = data.current()
experiment = ctx.experiment
measure = ctx.measure
st.header("Condition comparison")

factors = list(experiment.condition_factors)
none = "(none)"


def default(name: str, fallback: str) -> str:
    return name if name in factors else fallback


cols = st.columns(3)
x = cols[0].selectbox(
    "x axis", factors, key=state.seed("x", default("train_size", factors[-1]), factors)
)
colour_options = [none, *[f for f in factors if f != x]]
colour = cols[1].selectbox(
    "colour", colour_options, key=state.seed("colour", default("leakage", none), colour_options)
)
facet_options = [none, *[f for f in factors if f not in (x, colour)]]
facet = cols[2].selectbox(
    "facet", facet_options, key=state.seed("facet", default("model", none), facet_options)
)
for key in ("x", "colour", "facet"):
    state.remember(key)
by = [f for f in (x, colour, facet) if f != none]

fixed = {}
rest = [f for f in factors if f not in by]
if rest:
    cols = st.columns(len(rest))
    for column, factor in zip(cols, rest, strict=True):
        levels = experiment.levels(factor)
        key = "collection" if factor == "collection" else f"fix_{factor}"  # shared with pages
        fixed[factor] = column.selectbox(
            factor, levels, key=state.seed(key, levels[0], levels, type(levels[0]))
        )
        state.remember(key)

means = condition_means(ctx.per_query(), by, fixed)
show_fig(
    condition_figure(
        means, measure, x, colour if colour != none else None, facet if facet != none else None
    )
)
st.caption(
    "Each query contributes one value per condition: folds that split the topics are "
    "concatenated, repeated folds are averaged per query. Error bars: 95% t interval "
    f"over queries. Fold rule detected: **{ctx.per_query().fold_rule}**."
)
st.info(
    "Significance tests (paired t-test over queries with Bonferroni correction) are "
    "pending: they arrive with the statistics work. Until then, compare intervals only "
    "as a rough guide: overlapping intervals do not imply a non-significant paired "
    "difference.",
    icon=":material/pending:",
)

st.subheader("Means")
show_table(
    means.assign(**fixed).rename(
        columns={
            "n": "queries",
            "sd": "std. dev.",
            "ci_low": "95% CI low",
            "ci_high": "95% CI high",
        }
    ),
    height=360,
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
            progress=lambda done, total, what: bar.progress(done / max(total, 1), text=what),
        )
        bar.empty()
        show_table(audit)
