"""Story: the leakage effect in one screen, for a meeting. Every number opens its detail."""

import streamlit as st

from leakeval_app import loaders, state, views
from leakeval_app.context import current, presenting
from leakeval_app.render import show_error, show_fig
from leakeval_core.errors import LeakevalError
from leakeval_core.present.condition_plots import inflation_figure
from leakeval_core.present.story import default_pair

ctx = current()
experiment, measure, design = ctx.experiment, ctx.measure, ctx.experiment.design
leakage = loaders.leakage(ctx.leakage_key)
if why := design.why_not("The story", "leakage"):
    st.header("Story", anchor=False)
    st.info(why, icon=":material/info:")
    st.stop()
if leakage.empty:
    st.header("Story", anchor=False)
    st.info(
        "The story needs leakage pairs: add `[training_queries]` or `[leakage] table` to "
        "experiment.toml.",
        icon=":material/info:",
    )
    st.stop()

threshold = state.get("threshold", leakage.threshold)
try:
    result = views.inflation_view(
        ctx.key,
        ctx.leakage_key,
        measure.name,
        {},
        threshold,
        (design.leaked, design.clean),
        measure.better,
        ctx.statistics.correction,
    )
except LeakevalError as exc:
    show_error(exc)
    st.stop()

factors = [f for f in experiment.condition_factors if f != design.leakage]
default = default_pair(result.summary, factors)
pair = {}
controls = st.columns(len(factors)) if factors and not presenting() else [None] * len(factors)
for column, factor in zip(controls, factors, strict=True):
    levels = experiment.levels(factor)
    key = state.seed(f"story_{factor}", default[factor], levels, type(levels[0]))
    if column is None:  # presentation mode: the pair comes from the URL or the default
        pair[factor] = st.session_state[key]
    else:
        pair[factor] = column.selectbox(factor, levels, key=key)
        state.remember(f"story_{factor}")

story = views.story(
    ctx.key, ctx.leakage_key, measure.name, threshold, tuple(pair.items()), ctx.statistics
)
st.header(story.headline, anchor=False)
st.markdown(story.evidence)
if pair == default:
    st.caption(
        "Shown first: the pair of conditions whose leaked topics gain most over the others, "
        "the clearest case, picked after looking (its p is adjusted over all the pairs of its "
        "collection)." + ("" if presenting() else " Choose any other pair above.")
    )


def open_drilldown(qid: str | None = None) -> None:
    """The pair as conditions A (leaked) and B (clean) in the drill-down, on one topic."""
    for factor, level in pair.items():
        if factor != "collection":
            state.put(f"a_{factor}", level)
            state.put(f"b_{factor}", level)
    state.put(f"a_{design.leakage}", design.leaked)
    state.put(f"b_{design.leakage}", design.clean)
    if "collection" in pair:
        state.put("collection", pair["collection"])
    if qid is not None:
        state.put("qid", qid)
        st.session_state["queries_tab"] = "One query"


def open_inflation() -> None:
    for factor, level in pair.items():
        if factor != story.x:
            state.put("collection" if factor == "collection" else f"fix_{factor}", level)
    if story.x:
        state.put("x", story.x)
    st.session_state["conditions_tab"] = "Inflation"


if not presenting():  # presentation mode: nothing to click, the story alone
    links = st.columns(3)
    if links[0].button("Every topic's gain: drill-down", icon=":material/query_stats:"):
        open_drilldown()
        st.switch_page("app_pages/queries.py")
    if links[1].button("All pairs, with their tests", icon=":material/monitoring:"):
        open_inflation()
        st.switch_page("app_pages/conditions.py")
    if links[2].button("Which topics leaked, and how", icon=":material/water_drop:"):
        if "collection" in pair:
            state.put("collection", pair["collection"])
        st.switch_page("app_pages/leakage.py")

chart, top = st.columns([5, 7] if presenting() else [2, 3])
with chart:
    if story.x is not None:
        show_fig(inflation_figure, story.trend, measure, story.x, None, 360)
        st.caption(
            f"Mean per-topic gain of {design.leaked} over {design.clean} along {story.x}, the "
            "other levels as chosen. Leaked: a training query with similarity ≥ "
            f"{threshold:.2f} ({leakage.source})."
        )
with top:
    st.markdown("**Topics that inflate it most**, with the training query that leaked each")
    shown = story.top.rename(
        columns={
            str(design.leaked): "A (leaked)",
            str(design.clean): "B (clean)",
            "inflation": "gain",
        }
    )
    columns = (
        ["title", "gain", "leaked training query"]
        if presenting()
        else [c for c in shown.columns if c != "collection" or "collection" not in pair]
    )
    # presentation mode: six rows at its larger type (44 px a row), nothing to select
    selection = st.dataframe(
        shown[columns],
        height=44 * 7 + 3 if presenting() else "auto",
        hide_index=True,
        width="stretch",
        on_select="ignore" if presenting() else "rerun",
        selection_mode="single-row",
        key="story_top",
        column_config={
            "similarity": st.column_config.NumberColumn(format="%.2f"),
            "A (leaked)": st.column_config.NumberColumn(format="%.3f"),
            "B (clean)": st.column_config.NumberColumn(format="%.3f"),
            "gain": st.column_config.NumberColumn(format="%+.3f"),
        },
    )
    if not presenting():
        st.caption("Select a row to open the topic in the drill-down.")
    rows = [] if presenting() else selection.selection.rows
    if rows:
        chosen = shown.iloc[rows[0]]
        state.put("collection", chosen.collection)
        open_drilldown(chosen.qid)
        st.switch_page("app_pages/queries.py")
