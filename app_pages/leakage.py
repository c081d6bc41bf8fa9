"""Leakage-overlap explorer: which test topics have near-duplicates among training queries."""

import streamlit as st

from leakeval_app import navigation, sections, state, views
from leakeval_app.context import current
from leakeval_app.markup import code, plain
from leakeval_app.render import collection_or_stop, error_text, show_fig, show_table
from leakeval_core import api
from leakeval_core.api import doors
from leakeval_core.api.terms import JUDGED
from leakeval_core.errors import LeakevalError
from leakeval_core.present.display import agreement_figures
from leakeval_core.present.leakage_plots import (
    category_counts_figure,
    leak_share_figure,
    similarity_figure,
)
from leakeval_core.present.story import leaked_sentence

ctx = current()
st.header("Leakage overlap")
experiment = ctx.experiment
if experiment.training_queries is not None and experiment.leakage_table is None:
    methods = ctx.study.methods()
    labels = {
        "lexical": "lexical (TF-IDF)",
        "semantic": "semantic (MiniLM)",
        "hybrid": "hybrid (MiniLM, fitted on human judgments)",
        "semantic-mpnet": "semantic (mpnet)",
        "hybrid-mpnet": "hybrid (mpnet, fitted on human judgments): most accurate",
    }
    method = state.control(
        st.selectbox,
        "Detection method",
        "method",
        methods,
        default=ctx.method,
        format_func=labels.get,
        # the new method's own threshold: another method's similarities are on its scale
        on_change=lambda: state.put(threshold=None),
        help="Each method finds candidates lexically, then scores them its way; its "
        "default threshold is chosen on human judgments. The first switch to a method "
        "detects again (cached after).",
    )
    if method != ctx.method:
        st.rerun()  # every page reads the method from the context the frame builds
    if experiment.detection_method not in (None, *methods):
        st.warning(
            f"experiment.toml names the method {code(experiment.detection_method)}, which is not "
            f"installed here, so this page detects with `{ctx.method}` and may flag other "
            "topics than on a machine that has it (docs: Leakage detection).",
            icon=":material/warning:",
        )
leakage = ctx.leakage
if leakage.empty:
    st.info(
        doors.needs_pairs("The leakage overlap", error_text(leakage.error)),
        icon=":material/info:",
    )
    st.stop()
st.caption(f"Pairs of test topic and training query from: **{plain(leakage.source)}**.")

if leakage.method == JUDGED:  # a person's judgment has no threshold to move
    threshold = ctx.threshold
else:
    threshold = state.control(
        st.slider,
        "Near-duplicate threshold (similarity ≥)",
        "threshold",
        default=ctx.threshold,
        parse=state.bounded(float, 0.0, 1.0),
        min_value=0.0,
        max_value=1.0,
        step=0.01,
        help="Moving it only re-filters the pairs; nothing is recomputed. Every page counts "
        "a topic as leaked at this threshold (pairs a person judged stay as judged).",
    )
    if threshold != ctx.threshold:
        st.rerun()  # every page reads the threshold from the context the frame builds
st.markdown(plain(leaked_sentence(ctx.study.leaked_rule(ctx.view))))
sections.show_training_qrels(ctx)
for warning in ctx.study.leakage_warnings(ctx.view):
    st.warning(plain(warning), icon=":material/warning:")
for name in ctx.experiment.collections:
    collection_or_stop(ctx, name)  # a collection that cannot be read shows its error
view = views.leakage_overview(ctx)
if view.agreement is not None:
    score = view.agreement
    shown = agreement_figures(score, threshold)
    cols = st.columns(4)
    cols[0].metric("Topics flagged", score["flagged"])
    cols[1].metric("Topics with planted duplicates", score["known"])
    cols[2].metric("Precision vs ground truth", shown["precision"])
    cols[3].metric("Recall vs ground truth", shown["recall"])
    st.caption(
        (shown["note"] + " " if shown["note"] else "")
        + "The demo knows which near-duplicates it planted, so detection is scored "
        "against them at the current threshold (topic level)."
    )

show_fig(leak_share_figure, view.share, leakage.rule(ctx.view.threshold))
if view.share.study_share.notna().any():
    st.caption(
        "The marks are the leakage study's shares (Fröbe et al., SPIRE 2022): topics with a "
        "near-duplicate among all MS MARCO and ORCAS training queries, by embedding "
        f"similarity and human judgment. {leakage.origin(ctx.view.threshold)}"
    )

names = ["Pairs", "Similarity distribution", "Categories"]
labelled = ctx.experiment.labels is not None
tab_pairs, tab_similarity, tab_categories, *tab_quality = state.tabs(
    [*names, "Detection quality"] if labelled else names, "leakage_tab"
)
with tab_pairs:
    if tab_pairs.open:
        presenting = state.presenting()
        filters = st.columns([1, 1, 2]) if not presenting else None
        # the collection the user came with (a Story's, say) is the first filter
        chosen = [c for c in [state.get("collection")] if c in ctx.experiment.collections]
        collections = (
            chosen
            if presenting
            else filters[0].multiselect(
                "Collection", list(ctx.experiment.collections), default=chosen
            )
        )
        categories = [] if presenting else filters[1].multiselect("Category", list(api.CATEGORIES))
        text = "" if presenting else filters[2].text_input("Topic or training query contains")
        pairs = leakage.table[leakage.reached(ctx.view.threshold)]  # the leaked rule's pairs
        if collections:
            pairs = pairs[pairs.collection.isin(collections)]
        if categories:
            pairs = pairs[pairs.category.isin(categories)]
        if text:
            needle = text.casefold()
            pairs = pairs[
                pairs.test_text.str.casefold().str.contains(needle, regex=False)
                | pairs.train_text.str.casefold().str.contains(needle, regex=False)
            ]
        # the columns a reader judges a pair by, so all fit 1280 px; the CSV has every one
        columns = ["collection", "test_qid", "test_text", "train_text", "similarity", "category"]
        if pairs.method.nunique() > 1:
            columns.insert(-1, "method")
        if leakage.answered:  # how many of the topic's relevant documents it trained on
            columns.insert(columns.index("similarity") + 1, "shared_relevant")
            if pairs.collection.nunique() == 1:  # room for it at 1280 px
                columns.remove("collection")
        st.caption(
            f"{len(pairs):,} pair{'' if len(pairs) == 1 else 's'} shown; the CSV adds "
            "each pair's field, training query id and method."
        )
        if not presenting:
            st.download_button(
                "These pairs (CSV)", pairs.to_csv(index=False), "leakage-pairs.csv", "text/csv"
            )
        show_table(
            pairs.sort_values(
                ["similarity", "collection", "test_qid"], ascending=[False, True, True]
            )[columns],
            height=360,
            similarity=st.column_config.NumberColumn(format="%.3f", width="small"),
            test_qid=st.column_config.TextColumn("topic", width="small"),
            category=st.column_config.TextColumn(width="small"),
            shared_relevant=st.column_config.NumberColumn(
                "shared",
                width="small",
                help="relevant documents of the topic that are "
                "positives of the training query: the answer leaked too",
            ),
        )

        if presenting:
            st.stop()
        shown = (
            pairs[["collection", "test_qid"]]
            .drop_duplicates()
            .rename(columns={"test_qid": "qid"})
            .merge(views.topic_titles(ctx), on=["collection", "qid"], how="left")
            .sort_values(["collection", "qid"])
        )
        if shown.empty:
            st.caption("No topic in the table: loosen the filters or the threshold.")
        else:
            labels = {
                (c, q): f"{c} · {q} · {t}" if isinstance(t, str) else f"{c} · {q}"
                for c, q, t in zip(shown.collection, shown.qid, shown.title, strict=True)
            }
            if leakage.answered:  # an answer-leaked topic first, where the table has one
                shared = pairs[pairs.shared_relevant > 0].sort_values(["collection", "test_qid"])
                first = next(zip(shared.collection, shared.test_qid, strict=True), None)
                sections.show_topic_answers(ctx, labels, first)
            st.markdown("**Open a topic of this table in the drill-down**")
            cols = st.columns([3, 1])
            choice = cols[0].selectbox(
                "Topic", list(labels), format_func=labels.get, label_visibility="collapsed"
            )
            if cols[1].button("Open in drill-down", type="primary", icon=":material/open_in_new:"):
                state.put(collection=choice[0], qid=choice[1], queries_tab="One query")
                navigation.go("queries")
with tab_similarity:
    if tab_similarity.open:
        show_fig(similarity_figure, leakage.table, threshold)
with tab_categories:
    if tab_categories.open:
        show_fig(category_counts_figure, view.categories)
        rules = api.CATEGORY_RULES.items()
        st.caption(" · ".join(f"**{name}**: {rule}" for name, rule in rules))
        st.caption(api.HOW_RELATED)
for tab in tab_quality:
    with tab:
        if tab.open:  # scoring the labelled pairs takes a while: only here, and only once
            try:
                quality = views.detection_quality(ctx)
            except LeakevalError as exc:
                st.info(error_text(exc), icon=":material/info:")
            else:
                seen = views.labels_seen_in_fitting(ctx)
                sections.show_detection_quality(
                    quality, threshold, ctx.experiment.labels.name, seen
                )
