"""Per-query drill-down: condition A vs B, query by query, down to the ranked lists."""

import pandas as pd
import streamlit as st

from leakeval_app import loaders, state, views
from leakeval_app.context import current
from leakeval_app.render import (
    collection_or_stop,
    lazy_expander,
    number,
    show_document,
    show_fig,
    show_table,
    tabs,
)
from leakeval_core.analysis.audit import audit_conventions
from leakeval_core.analysis.compare import (
    condition_label,
    top_inflating,
)
from leakeval_core.present.condition_plots import scatter_ab_figure

ctx = current()
experiment = ctx.experiment
st.header("Per-query drill-down")

names = list(experiment.collections)
collection = st.selectbox("Collection", names, key=state.seed("collection", names[0], names))
state.remember("collection")
factors = [f for f in experiment.condition_factors if f != "collection"]
design = experiment.design
contrast = design.leakage or next((f for f in factors if len(experiment.levels(f)) > 1), None)
a, b = {"collection": collection}, {"collection": collection}
side_a, side_b = st.columns(2)
side_a.markdown("**Condition A**")
side_b.markdown("**Condition B**")
for factor in factors:
    levels = experiment.levels(factor)
    default_a, default_b = levels[0], levels[0]
    if factor == design.leakage:
        default_a, default_b = design.leaked, design.clean
    elif factor == contrast:
        default_b = levels[1]
    a[factor] = side_a.selectbox(
        factor, levels, key=state.seed(f"a_{factor}", default_a, levels, type(levels[0]))
    )
    b[factor] = side_b.selectbox(
        factor, levels, key=state.seed(f"b_{factor}", default_b, levels, type(levels[0]))
    )
    state.remember(f"a_{factor}")
    state.remember(f"b_{factor}")

measure = ctx.measure
leakage = loaders.leakage(ctx.leakage_key)
threshold = state.get("threshold", leakage.threshold)
pairs, wide = views.paired_view(ctx.key, ctx.leakage_key, measure.name, a, b, threshold)
table = pairs.table
if table.empty:
    st.warning("Conditions A and B share no scored query.")
    st.stop()

flagged, clean = table[table.leaked], table[~table.leaked]
cols = st.columns(5)
cols[0].metric(f"Mean {measure.label}, A", number(table.a.mean()))
cols[1].metric(f"Mean {measure.label}, B", number(table.b.mean()))
cols[2].metric("Mean A − B, all queries", number(table.delta.mean()))
cols[3].metric(f"A − B on leaked topics ({len(flagged)})", number(flagged.delta.mean()))
cols[4].metric(f"A − B on other topics ({len(clean)})", number(clean.delta.mean()))
notes = [f"{len(table)} queries paired by id"]
if pairs.only_a or pairs.only_b:
    notes.append(f"{pairs.only_a} only in A and {pairs.only_b} only in B are left out")
if not leakage.empty:
    notes.append(f"leaked = a training query with similarity ≥ {threshold:.2f} ({leakage.source})")
if measure.better == "lower":
    notes.append(f"{measure.label} is lower-is-better: negative A − B means A is better")
st.caption("; ".join(notes) + ".")

titles = collection_or_stop(ctx.key, collection).topics.set_index("qid").title
tab_all, tab_measures, tab_one = tabs(
    ["All queries", "All measures per query", "One query"], "queries_tab"
)
with tab_all:
    if tab_all.open:
        left, right = st.columns([3, 2])
        with left:
            show_fig(
                scatter_ab_figure, table, measure, condition_label(a), condition_label(b), titles
            )
        with right:
            st.subheader("Top inflating queries")
            st.caption("Leaked topics where A beats B by most: they inflate A's mean.")
            top = top_inflating(pairs, 10, measure.better)
            top.insert(2, "title", top.qid.map(titles))
            show_table(
                top[["qid", "title", "a", "b", "delta"]].rename(
                    columns={"a": "A", "b": "B", "delta": "A − B"}
                ),
                height=420,
            )
with tab_measures:
    if tab_measures.open:
        st.caption(
            f"Each measure for A and B, and A − B, on the {len(wide)} queries of "
            f"{collection} that both conditions scored."
        )
        wide = wide.copy()
        wide.insert(2, "title", wide.qid.map(titles))
        show_table(wide.drop(columns="collection"), height=520)
with tab_one:
    if tab_one.open:
        labels = {q: f"{q}: {t}" for q, t in titles.items()}
        qids = table.sort_values("delta", ascending=measure.better == "lower").qid.tolist()
        qid = st.selectbox(
            "Query",
            qids,
            key=state.seed("qid", qids[0], qids),
            format_func=lambda q: labels.get(q, q),
        )
        state.remember("qid")
        topic = collection_or_stop(ctx.key, collection).topics.set_index("qid").loc[qid]
        st.markdown(f"### {qid}: {topic.title}")
        st.markdown(f"{topic.description}")
        if not leakage.empty:
            near = leakage.table[
                (leakage.table.collection == collection) & (leakage.table.test_qid == qid)
            ]
            if len(near):
                st.markdown("**Nearest training queries**")
                show_table(
                    near.sort_values("similarity", ascending=False).head(5)[
                        ["train_qid", "train_text", "similarity", "category", "method"]
                    ]
                )
            else:
                st.caption("No training query resembles this topic.")

        lists = views.ranked_lists(ctx.key, a, b, qid)
        for column, label, ranked in zip(st.columns(2), ("A", "B"), lists, strict=True):
            with column:
                st.markdown(f"**{label}: {condition_label(a if label == 'A' else b)}**")
                shown = ranked.head(20).assign(
                    grade=ranked.grade.map(lambda g: "unjudged" if pd.isna(g) else str(int(g)))
                )
                show_table(
                    shown,
                    height=740,
                    moved=st.column_config.NumberColumn(
                        "moved",
                        help="positions higher than in the other list (empty: not retrieved there)",
                    ),
                )

        docids = list(dict.fromkeys([*lists[0].docid.head(20), *lists[1].docid.head(20)]))
        if docids:
            show_document(
                collection_or_stop(ctx.key, collection),
                st.selectbox("Read a retrieved document", docids),
            )

audit = lazy_expander(
    "Metric-convention audit: how these numbers move under other conventions", "queries_audit"
)
with audit:
    if audit.open:
        st.caption("Recomputes conditions A and B with one convention changed at a time.")
        if st.button("Run the audit", key="audit_queries"):
            with st.spinner("Rescoring A and B under each alternative…"):
                show_table(audit_conventions(experiment, [a, b], measure.name, ctx.conventions))
