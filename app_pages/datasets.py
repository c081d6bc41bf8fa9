"""Dataset browser: topics, judgments, pooling depth of each run."""

import streamlit as st

from leakeval_app import state, views
from leakeval_app.context import current
from leakeval_app.markup import plain
from leakeval_app.render import (
    collection_or_stop,
    number,
    show_document,
    show_fig,
    show_table,
)
from leakeval_app.sections import show_uploaded_scores
from leakeval_core.api import doors
from leakeval_core.evaluation.scoring_warnings import JUDGED_BELOW
from leakeval_core.present.collection_plots import grade_figure, per_topic_figure

ctx = current()
st.header("Dataset browser")
names = list(ctx.experiment.collections)
name = state.control(st.selectbox, "Collection", "collection", names, default=names[0])
collection = collection_or_stop(ctx, name)
leakage = ctx.leakage
topics, summary = views.topics(ctx, name)

cols = st.columns(5)
cols[0].metric("Topics", summary["topics"])
cols[1].metric("Judged topics", summary["judged_topics"])
cols[2].metric("Judgments", f"{summary['qrels']:,}")
cols[3].metric("Relevant per topic (median)", number(summary["relevant_per_topic"]["median"], 0))
if "leaked" in topics:
    flagged = int(topics.leaked.sum())
    cols[4].metric(
        "Topics with a near-duplicate",
        f"{flagged} ({flagged / len(topics):.0%})",
        help=f"From the leakage table: {plain(leakage.source)}.",
    )
st.caption(f"Source: {plain(collection.source)}.")

tab_topics, tab_judgments, tab_runs, tab_upload = state.tabs(
    ["Topics", "Judgments", "Runs: judged@10", "Score your own run"], "datasets_tab"
)
with tab_topics:
    if tab_topics.open:
        # the counts before the long texts, which are cut to fit 1280 px (a cell shows all);
        # the narrative, the longest, only when asked for
        narrative = (
            "narrative" in topics
            and not state.presenting()  # a slide draws no widget
            and st.toggle("Narratives too", key="topic_narratives")
        )
        texts = [c for c in ("description", "narrative") if c in topics]
        kept = texts if narrative else texts[:1]
        show_table(
            topics,
            height=420,
            columns=[*(c for c in topics.columns if c not in texts), *kept],
            title=st.column_config.TextColumn(width="medium"),
            description=st.column_config.TextColumn(width="medium"),
            narrative=st.column_config.TextColumn(width="medium"),
        )
with tab_judgments:
    if tab_judgments.open:
        grades = [c for c in topics.columns if c.startswith("grade ")]
        relevant_grades = [c for c in grades if int(c.split()[1]) > 0]
        left, right = st.columns(2)
        with left:
            show_fig(per_topic_figure, topics, grades, "Judgments per topic", "judged documents")
        with right:
            show_fig(
                per_topic_figure,
                topics,
                relevant_grades,
                "Relevant documents per topic",
                "relevant documents (grade ≥ 1)",
            )
        show_fig(grade_figure, doors.grade_counts(collection.qrels))
with tab_runs:
    if tab_runs.open:
        label = ctx.measure.label
        st.markdown(
            "Share of each condition's top 10 that has **any** judgment, averaged over queries, "
            f"beside its mean {plain(label)}. Below {JUDGED_BELOW:.0%}, most retrieved "
            "documents were never judged, so every score of that run is a **lower bound** "
            "(pooling bias): compare it with bpref, or turn on condensed lists in the "
            "sidebar's Conventions."
        )
        factors = [f for f in ctx.experiment.condition_factors if f != "collection"]
        judged = views.means(ctx, tuple(factors), {"collection": name}, measure="judged_10")
        scored = views.means(ctx, tuple(factors), {"collection": name})
        judged = judged.assign(  # a copy: the study's table is every reader's
            pooling=judged["mean"].map(lambda v: "⚠ lower bound" if v < JUDGED_BELOW else "ok")
        ).merge(scored[[*factors, "mean"]].rename(columns={"mean": label}), on=factors)
        show_table(
            judged[[*factors, "n", "mean", label, "pooling"]].rename(
                columns={"mean": "judged@10", "n": "queries"}
            ),
            height=360,
            **{
                "judged@10": st.column_config.ProgressColumn(
                    min_value=0.0, max_value=1.0, format="%.2f"
                )
            },
        )

with tab_upload:
    if tab_upload.open and not state.presenting():
        st.markdown(
            f"Score run files (TREC, MTEB predictions, ranx JSON, PyTerrier CSV or Parquet) "
            f"against **{plain(name)}**'s qrels under the current conventions, "
            "and compare one with a condition of the experiment. Runs stay in this browser "
            "session's memory until you remove them or close the tab: nothing is saved."
        )
        show_uploaded_scores(name)
if state.presenting():
    st.stop()
st.subheader("Topic detail")
by_qid = topics.set_index("qid")
qids = by_qid.index.tolist()
labels = {q: f"{q}: {t}" for q, t in zip(qids, by_qid.title, strict=True)}
qid = state.control(st.selectbox, "Topic", "topic", qids, default=qids[0], format_func=labels.get)
row = by_qid.loc[qid]
st.markdown(f"### {plain(qid)}: {plain(row.title)}")
st.markdown(f"**Description.** {plain(row.description or '—')}")
st.markdown(f"**Narrative.** {plain(row.narrative or '—')}")
st.caption(f"{row.judged} judged documents, {row.relevant} relevant.")
judged_docs = collection.qrels[collection.qrels.qid == qid].sort_values("grade", ascending=False)
if len(judged_docs):
    grade_of = dict(zip(judged_docs.docid, judged_docs.grade, strict=True))
    docid = st.selectbox(
        "Judged document", list(grade_of), format_func=lambda d: f"{d} (grade {grade_of[d]})"
    )
    show_document(collection, docid)
