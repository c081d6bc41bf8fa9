"""Story: the leakage effect in one screen, for a meeting. Every number opens its detail."""

import streamlit as st

from leakeval_app import navigation, state, views
from leakeval_app.context import current
from leakeval_app.markup import plain
from leakeval_app.render import error_text, show_error, show_fig, text_table
from leakeval_core.api import doors
from leakeval_core.errors import LeakevalError
from leakeval_core.present.audit_plots import category_gain_figure
from leakeval_core.present.condition_plots import inflation_figure
from leakeval_core.present.story import amount, answers_table

ctx = current()
experiment, measure, design = ctx.experiment, ctx.measure, ctx.experiment.design
presenting = state.presenting()
try:
    kind = doors.story_kind(ctx.study)
    why = (
        doors.needs_pairs("The story", error_text(ctx.leakage.error)) if ctx.leakage.empty else None
    )
except LeakevalError as exc:
    why = error_text(exc)
if why:
    st.header("Story", anchor=False)
    st.info(why, icon=":material/info:")
    st.stop()

factors = doors.story_factors(ctx.study)
names = doors.scored_collections(ctx.study, ctx.settings)
chosen = state.get("collection")
try:
    default = views.story_pair(ctx, chosen if chosen in names else None)
except LeakevalError as exc:
    show_error(exc)
    st.stop()
pair = {}
# presentation mode draws no selectors: the pair comes from the link or the default
controls = [st.container() for _ in factors] if presenting else st.columns(len(factors) or 1)
for column, factor in zip(controls, factors, strict=False):
    levels = doors.story_levels(ctx.study, factor)  # an audit's models: not its baselines
    if factor == "collection":
        levels = [level for level in levels if level in names]
    # the collection is the app's own (it follows the user from page to page)
    name = "collection" if factor == "collection" else f"story_{factor}"
    with column:
        pair[factor] = state.control(
            st.selectbox, plain(factor), name, levels, default=default[factor]
        )

try:
    story = views.story(ctx, tuple(pair.items()))
except LeakevalError as exc:  # an incomplete pair: say so, with no headline
    st.header("Story", anchor=False)
    st.warning(error_text(exc), icon=":material/error:")
    st.stop()
# an audit's headline is its answer, a sentence with figures: a smaller heading holds it
(st.header if kind == "twins" else st.subheader)(plain(story.headline), anchor=False)
for column, (label, value, interval, meaning) in zip(
    st.columns(4), doors.story_numbers(story, measure), strict=True
):
    column.metric(
        label,
        value,
        delta=interval,
        delta_color="off",
        delta_arrow="off",
        help=None if presenting else plain(meaning),
    )
if presenting:  # a slide: the cards and tables hold the figures, one line the test
    if kind == "twins":
        st.markdown(f"**{plain(story.answer)}**")
    note = f" {doors.AUDIT_NOTE}" if kind == "audit" else f" Verdict: {story.facts.verdict}."
    st.caption(plain(" ".join([doors.story_test_line(story) + note, *story.notes])))
else:
    st.markdown(f"**{plain(story.answer)}**" if kind == "twins" else plain(story.detail))
    st.markdown(plain(story.evidence))
    for said in story.notes:
        st.caption(plain(said))
for warning in story.warnings:
    st.warning(plain(warning), icon=":material/warning:")


def every_model() -> None:
    """Every audited model's answer, in the design's order: the question the Story asks."""
    against = plain(story.facts.b) if len(design.baselines) == 1 else "each baseline"
    st.markdown(f"**Every model against {against}**, in the design's order")
    answers = answers_table(story.answers, measure, str(design.system))
    brief = [
        c
        for c in answers.columns
        if c.startswith(("baseline", "Verdict", "Leaked", "Interval", "mde", "Topics for"))
    ]
    st.table(text_table(answers.set_index(str(design.system))[brief]))


if kind == "audit" and not presenting:  # a slide has it beside the chart
    every_model()
if pair == default and not presenting:
    st.caption(
        "Shown first: the pair of conditions whose leaked topics gain most over the others, "
        "the clearest case, picked after looking (its p is adjusted over all the pairs of "
        "its collection). Choose any other above."
        if kind == "twins"
        else "Shown first: the design's first model, picked before looking at any result. "
        "Choose any other above."
    )
if kind == "audit" and not presenting:
    st.caption(doors.AUDIT_CAVEAT)


def open_drilldown(qid: str | None = None) -> None:
    """The pair as conditions A (leaked, or the model) and B (clean, or the baseline) in
    the drill-down, on one topic."""
    levels = {}
    for factor, level in pair.items():
        if factor not in ("collection", "baseline"):
            levels[f"a_{factor}"] = levels[f"b_{factor}"] = level
    contrast = design.leakage if kind == "twins" else design.system
    levels[f"a_{contrast}"] = design.leaked if kind == "twins" else pair[contrast]
    levels[f"b_{contrast}"] = (
        design.clean if kind == "twins" else pair.get("baseline", design.baseline)
    )
    if qid is not None:
        levels |= {"qid": qid, "queries_tab": "One query"}
    if "collection" in pair:
        levels["collection"] = pair["collection"]
    state.put(**levels)


def open_inflation() -> None:
    fixed = {
        "collection" if f == "collection" else f"fix_{f}": level
        for f, level in pair.items()
        if f != story.x
    }
    state.put(x=story.x, conditions_tab="Inflation", **fixed)


if not presenting:  # presentation mode: nothing to click, the story alone
    links = st.columns(3)
    if links[0].button("Every topic's gain: drill-down", icon=":material/query_stats:"):
        open_drilldown()
        navigation.go("queries")
    if kind == "twins" and links[1].button(
        "All pairs, with their tests", icon=":material/monitoring:"
    ):
        open_inflation()
        navigation.go("conditions")
    if kind == "audit" and links[1].button("The whole audit", icon=":material/policy:"):
        navigation.go("audit")
    if links[2].button("Which topics leaked, and how", icon=":material/water_drop:"):
        if "collection" in pair:
            state.put(collection=pair["collection"])
        navigation.go("leakage")

# side by side on a slide; on a screen one above the other, so the table of topics has the
# page's width and shows its training query, similarity and category at 1280 px
chart, top = st.columns([5, 7]) if presenting else (st.container(), st.container())
spared = 40 * len(story.notes)  # a slide's chart gives each note's line of caption its room
with chart:
    leaked_means = story.leaked
    if kind == "audit":
        show_fig(
            category_gain_figure, story.chart, measure, story.facts.b, slide_height=380 - spared
        )
        if not presenting:
            st.caption(
                plain(
                    f"Mean per-topic gain of {story.facts.a} over {story.facts.b} by the "
                    f"kind of its nearest training query, with 95% t intervals. {leaked_means}"
                )
            )
    elif story.x is not None:
        show_fig(
            inflation_figure, story.chart, measure, story.x, None, 360, slide_height=400 - spared
        )
        if not presenting:
            st.caption(
                plain(
                    f"Mean per-topic gain of {design.leaked} over {design.clean} along "
                    f"{story.x}, the other levels as chosen. {leaked_means}"
                )
            )
with top:
    if presenting and kind == "audit":
        every_model()
    st.markdown(f"**{plain(story.top_title)}**, with the training query that leaked each")
    shown = story.top
    if presenting:  # a plain table at the slide's type, a few rows, nothing to select
        rows = 8 if kind == "twins" else max(2, 5 - len(story.answers))
        slide = shown[["title", "gain", "leaked training query"]].head(rows)
        st.table(
            text_table(slide.assign(gain=slide.gain.map(lambda g: amount(g, measure, 3)))),
            hide_index=True,
        )
        st.stop()
    # the gain, the training query and how close it is: what the table is for, all seen at
    # 1280 px; each side's score is in the drill-down a click away
    columns = [
        c
        for c in shown.columns
        if not c.startswith(("A (", "B (")) and (c != "collection" or "collection" not in pair)
    ]
    columns.insert(columns.index("title") + 1, columns.pop(columns.index("gain")))
    selection = st.dataframe(
        shown[columns],
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key="story_top",
        # narrow number columns, so the gain is never the one cut off
        column_config={
            "qid": st.column_config.TextColumn(width="small"),
            "similarity": st.column_config.NumberColumn(format="%.2f", width="small"),
            "gain": st.column_config.NumberColumn(
                format="%+.3f",
                width="small",
                help=f"A over B in the better direction ({measure.direction.words}): "
                "positive is an improvement",
            ),
            # the texts at a set width, so the category is never the column cut short
            "title": st.column_config.TextColumn(width="medium"),
            "leaked training query": st.column_config.TextColumn(width="medium"),
        },
    )
    st.caption(
        f"Select a row to open the topic in the drill-down, with {measure.label} on each side."
    )
    rows = selection.selection.rows
    if rows:
        chosen_row = shown.iloc[rows[0]]
        pair["collection"] = chosen_row.collection
        open_drilldown(chosen_row.qid)
        navigation.go("queries")
