"""Per-query drill-down: condition A vs B, query by query, down to the ranked lists."""

import html
from functools import partial

import pandas as pd
import streamlit as st

from leakeval_app import state, views
from leakeval_app.context import current
from leakeval_app.markup import plain
from leakeval_app.render import (
    collection_or_stop,
    error_text,
    lazy_expander,
    number,
    show_document,
    show_fig,
    show_selectable_fig,
    show_table,
)
from leakeval_core import api
from leakeval_core.api import doors
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.published import NOT_RECOMPUTED
from leakeval_core.present.condition_plots import scatter_ab_figure
from leakeval_core.present.display import fixed
from leakeval_core.present.query_plots import ranked_lists_figure
from leakeval_core.present.story import leaked_sentence, top_gains_note

ctx = current()
experiment = ctx.experiment
presenting = state.presenting()
st.header("Per-query drill-down")

names = doors.scored_collections(ctx.study, ctx.settings)
collection = state.control(st.selectbox, "Collection", "collection", names, default=names[0])
factors = [f for f in experiment.condition_factors if f != "collection"]
design = experiment.design
contrast = design.contrast({f: experiment.levels(f) for f in factors})
a, b = {"collection": collection}, {"collection": collection}
side_a, side_b = st.columns(2)
side_a.markdown("**Condition A**")
side_b.markdown("**Condition B**")
for factor in factors:
    levels = experiment.levels(factor)
    default_a, default_b = design.sides(factor, levels, contrast)
    with side_a:
        a[factor] = state.control(
            st.selectbox, plain(factor), f"a_{factor}", levels, default=default_a
        )
    with side_b:
        b[factor] = state.control(
            st.selectbox, plain(factor), f"b_{factor}", levels, default=default_b
        )

measure = ctx.measure
leakage = ctx.leakage
try:
    pairs, wide = views.paired(ctx, a, b)
except LeakevalError as exc:  # A or B is incomplete: said, not shown without its runs
    st.warning(error_text(exc), icon=":material/error:")
    st.stop()
table = pairs.table
if table.empty:
    st.warning("Conditions A and B share no scored query.")
    st.stop()

flagged, clean = table[table.leaked], table[~table.leaked]
cols = st.columns(5)
cols[0].metric(f"Mean {measure.label}, A", number(table.a.mean()))
cols[1].metric(f"Mean {measure.label}, B", number(table.b.mean()))
cols[2].metric("Mean A − B, all queries", number(table.delta.mean()))
cols[3].metric(f"A − B, {len(flagged)} leaked", number(flagged.delta.mean()))
cols[4].metric(f"A − B, {len(clean)} other", number(clean.delta.mean()))
notes = [f"{len(table)} queries paired by id"]
if pairs.only_a or pairs.only_b:
    notes.append(f"{pairs.only_a} only in A and {pairs.only_b} only in B are left out")
if not leakage.empty:
    rules = ctx.study.leaked_rule(ctx.view)
    notes.append(leaked_sentence(rules, leakage.source, collection).removesuffix("."))
notes.append(
    f"{measure.label}, {measure.direction.words}: a positive A − B means A is "
    f"{measure.direction.raw_reads(1.0)}"
)
st.caption(plain("; ".join(notes) + "."))

titles = collection_or_stop(ctx, collection).topics.set_index("qid").title


def open_topic(qid: str) -> None:
    """The per-topic view of a query picked in the scatter or the table (a callback: it
    runs once per new selection, so coming back to the chart does not reopen it)."""
    state.put(qid=qid, queries_tab="One query")


def on_point() -> None:
    points = st.session_state["queries_scatter"].selection.points
    if points and points[0].get("customdata"):  # the chart's text is HTML-escaped
        open_topic(html.unescape(str(points[0]["customdata"][2])))


def on_row(qids: list[str]) -> None:
    rows = st.session_state["queries_top"].selection.rows
    if rows:
        open_topic(qids[rows[0]])


tab_all, tab_measures, tab_one = state.tabs(
    ["All queries", "All measures per query", "One query"], "queries_tab"
)
with tab_all:
    if tab_all.open:
        # one above the other: beside the scatter, the table had room for qid and title only
        left, right = st.container(), st.container()
        with left:
            show_selectable_fig(
                scatter_ab_figure,
                table,
                measure,
                doors.condition_label(a),
                doors.condition_label(b),
                titles,
                key="queries_scatter",
                on_select=on_point,
            )
        with right:
            st.subheader("Leaked topics with A's largest gains")
            answer = doors.pair_answer(pairs, ctx.settings)
            st.caption(
                f"{top_gains_note(answer, measure, ctx.view.statistics.split_test)} Click a "
                "point in the scatter or a row here to open that topic."
            )
            top = doors.top_inflating(pairs, ctx.settings)
            top.insert(2, "title", top.qid.map(titles))
            if presenting:
                show_table(top[["title", "a", "b", "delta"]].rename(columns={"delta": "A − B"}))
                st.stop()
            st.dataframe(
                top[["qid", "title", "a", "b", "delta"]].rename(
                    columns={"a": "A", "b": "B", "delta": "A − B"}
                ),
                hide_index=True,
                width="stretch",
                key="queries_top",
                on_select=partial(on_row, top.qid.tolist()),
                selection_mode="single-row",
                column_config={  # narrow numbers: A − B is never the column cut off
                    "qid": st.column_config.TextColumn(width="small"),
                    "title": st.column_config.TextColumn(width="medium"),
                    "A": st.column_config.NumberColumn(format="%.3f", width="small"),
                    "B": st.column_config.NumberColumn(format="%.3f", width="small"),
                    "A − B": st.column_config.NumberColumn(format="%+.3f", width="small"),
                },
            )
with tab_measures:
    if tab_measures.open:
        st.caption(
            f"A − B in each measure, as scored (where lower is better, a positive A − B is "
            f"worse), on the {len(wide)} queries of {plain(collection)} that both conditions "
            "scored."
        )
        wide = wide.copy()
        wide.insert(2, "title", wide.qid.map(titles))
        sides = not presenting and st.toggle(
            "Titles and each side's value too",
            help="A and B beside A − B for every measure, and each topic's title: wider than "
            "a laptop's screen.",
        )
        differences = {c: c.removesuffix(" A−B") for c in wide.columns if c.endswith(" A−B")}
        if sides:
            shown, labels = [c for c in wide.columns if c != "collection"], {}
        else:  # qid, leaked and one A − B per measure: every measure fits 1280 px
            shown, labels = ["qid", "leaked", *differences], differences
        show_table(
            wide,
            height=520,
            columns=shown,
            qid=st.column_config.TextColumn(width="small"),
            title=st.column_config.TextColumn(width="medium"),
            **{
                c: st.column_config.NumberColumn(
                    labels.get(c, c), format="%+.3f", help=f"{labels.get(c, c)}: A − B, as scored"
                )
                for c in differences
            },
        )
with tab_one:
    if tab_one.open:
        by_delta = doors.by_gain(pairs, ctx.settings)
        labels = {
            q: f"{q}: {titles.get(q, '')} (A − B {fixed(d, 3, sign=True)}"
            f"{', leaked' if leaked else ''})"
            for q, d, leaked in zip(by_delta.qid, by_delta.delta, by_delta.leaked, strict=True)
        }
        qids = by_delta.qid.tolist()
        qid = state.control(
            st.selectbox,
            "Query (A's largest gain over B first)",
            "qid",
            qids,
            default=qids[0],
            format_func=lambda q: labels.get(q, q),
        )
        topic = collection_or_stop(ctx, collection).topics.set_index("qid").loc[qid]
        row = table.set_index("qid").loc[qid]
        st.markdown(f"### {plain(qid)}: {plain(topic.title)}")
        st.markdown(plain(topic.description))
        cols = st.columns(4)
        cols[0].metric(f"{measure.label}, A", number(row.a))
        cols[1].metric(f"{measure.label}, B", number(row.b))
        cols[2].metric("A − B", number(row.delta))
        cols[3].metric(
            "Leaked topic",
            "yes" if row.leaked else "no",
            help=plain(ctx.study.leaked_rule(ctx.view).get(collection, "")) or None,
        )
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

        if design.size and design.size in a and a.get(design.size) == b.get(design.size):
            st.markdown(f"**This topic along {plain(design.size)}**")
            along = doors.query_along(ctx.study, ctx.settings, a, b, qid, design.size)
            show_table(along, **{"A − B": st.column_config.NumberColumn(format="%+.4f")})

        lists = views.ranked_lists(ctx, a, b, qid)
        if not all(len(ranked) for ranked in lists):
            st.caption(
                "No ranked list of this query for "
                + " or ".join(label for label, r in zip("AB", lists, strict=True) if not len(r))
                + ": its run does not rank it, or its file holds published per-query values, "
                "not a ranking."
            )
        if any(len(ranked) for ranked in lists):
            show_fig(
                ranked_lists_figure, *lists, doors.condition_label(a), doors.condition_label(b)
            )
            for column, label, ranked in zip(st.columns(2), ("A", "B"), lists, strict=True):
                with column:
                    shown_label = plain(doors.condition_label(a if label == "A" else b))
                    st.markdown(f"**{label}: {shown_label}**")
                    shown = ranked.head(20).assign(
                        grade=ranked.grade.map(lambda g: "unjudged" if pd.isna(g) else str(int(g)))
                    )
                    show_table(
                        shown,
                        height=740,
                        moved=st.column_config.NumberColumn(
                            "moved",
                            help="positions higher than in the other list (empty: not "
                            "retrieved there)",
                        ),
                    )

        docids = list(dict.fromkeys([*lists[0].docid.head(20), *lists[1].docid.head(20)]))
        if docids and not presenting:
            show_document(
                collection_or_stop(ctx, collection),
                st.selectbox("Read a retrieved document", docids),
            )

if presenting:
    st.stop()
audit = lazy_expander(
    "Convention check: how these numbers move under other conventions", "queries_audit"
)
with audit:
    if audit.open and ctx.study.published:
        st.caption(NOT_RECOMPUTED)
    elif audit.open:
        st.caption(
            "Recomputes conditions A and B with one convention changed at a time. The "
            f"relevance level {doors.relevance_level_note()}."
        )
        if st.button("Recompute", key="audit_queries"):
            with st.spinner("Rescoring A and B under each alternative…"):
                show_table(api.convention_check(ctx.study, ctx.settings, [a, b]))
