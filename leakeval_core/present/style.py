"""The dashboard's look for every chart: palette, fonts, axes, and colours by role."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from leakeval_core.experiment.design import Design
from leakeval_core.present.literal import literal_text

__all__ = [
    "CLEAN_COLOR",
    "COLLECTION_COLORS",
    "INK",
    "LEAKED_COLOR",
    "NEUTRAL",
    "OTHER_COLORS",
    "SYSTEM_COLORS",
    "TEXT",
    "UNJUDGED_COLOR",
    "Palette",
    "bottom_legend",
    "fit_titles",
    "grade_color",
    "is_ordered",
    "slide_fig",
    "style",
    "themed",
    "wrap",
]

# One palette per role, on every page and in the report: orange is leaked and blue is clean
# (or "no near-duplicate"), nothing else; grades are greys and greens; collections, systems
# and the levels of other factors each have their own hues.
LEAKED_COLOR = "#d95f02"
CLEAN_COLOR = "#1b6ca8"
NEUTRAL = "#7a7a7a"
INK = "#4a5b6e"
"""A single quantity with no role (counts of pairs, a similarity histogram, one ROC curve)."""
COLLECTION_COLORS = ("#6a3d9a", "#a0522d", "#1f7872", "#8c6d31", "#b03a7a", "#5c6b2e")
SYSTEM_COLORS = ("#b5179e", "#c49a00", "#3d405b", "#7f5539", "#0081a7", "#6d597a")
OTHER_COLORS = ("#4a5b6e", "#9c6644", "#8d99ae", "#6b705c", "#a5a58d", "#2b2d42")
_GRADES = ["#c9ced6", "#8cc5a0", "#2a9d55", "#146b37"]
"""Relevance grades 0, 1, 2, 3+: grey for not relevant, then greens darkening with relevance,
on every chart (a grade is never orange or blue: those mean leaked and clean)."""
UNJUDGED_COLOR = "#f1f2f5"


def grade_color(grade: int | None) -> str:
    """The colour of a relevance grade on every chart; None (unjudged) is near-white, and a
    negative grade counts as not relevant."""
    if grade is None:
        return UNJUDGED_COLOR
    return _GRADES[min(max(int(grade), 0), len(_GRADES) - 1)]


def is_ordered(levels: Sequence[object]) -> bool:
    """Whether levels form a scale a line may join (training sizes), not names (models,
    collections), which a line would present as a trend."""
    return bool(levels) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in levels
    )


@dataclass(frozen=True)
class Palette:
    """The colour of every level of every factor, fixed from the experiment's full level
    lists: a collection keeps its colour on a chart that shows only some collections."""

    colors: tuple[tuple[str, tuple[tuple[object, str], ...]], ...] = ()

    @classmethod
    def of(cls, levels: Mapping[str, Sequence[object]], design: Design | None = None) -> Palette:
        """`levels`: each factor's levels in display order (collections in the manifest's)."""
        design = design or Design()
        table = []
        for factor, values in levels.items():
            if factor == design.leakage:
                roles = {design.leaked: LEAKED_COLOR, design.clean: CLEAN_COLOR}
                rest = iter(OTHER_COLORS)
                assigned = [(v, roles.get(v) or next(rest, NEUTRAL)) for v in values]
            else:
                hues = (
                    COLLECTION_COLORS
                    if factor == "collection"
                    else SYSTEM_COLORS
                    if factor == design.system
                    else OTHER_COLORS
                )
                assigned = [(v, hues[i % len(hues)]) for i, v in enumerate(values)]
            table.append((factor, tuple(assigned)))
        return cls(tuple(table))

    @classmethod
    def of_experiment(cls, experiment) -> Palette:
        """Every condition factor's levels, the collections in the manifest's order."""
        levels = {f: experiment.levels(f) for f in experiment.condition_factors}
        levels["collection"] = list(experiment.collections)
        return cls.of(levels, experiment.design)

    def of_factor(self, factor: str | None, levels: Sequence[object]) -> dict[object, str]:
        """Colours for `levels` of `factor`; levels the palette does not know take the other
        factors' hues (a chart of a level the experiment never declared still draws)."""
        known = dict(dict(self.colors).get(factor, ()))
        spare = iter(c for c in OTHER_COLORS if c not in known.values())
        return {v: known.get(v) or next(spare, NEUTRAL) for v in levels}


# The look of plotly's "plotly_white" template, set as plain layout attributes. A figure
# carrying a template (plotly's, or the one Streamlit's chart theme merges in) makes plotly.js
# apply it to every trace on each draw, and Streamlit draws each chart twice on mount, so a
# page switch pays for it once per chart (bench/page_switch_bench.py).
FONT = '"Source Sans", "Source Sans Pro", sans-serif'  # the dashboard's own font
TEXT = {"light": "#31333f", "dark": "#fafafa"}
FADED = {"light": "#6b6f7b", "dark": "#a3a8b8"}
GRID = "rgba(128, 128, 128, 0.2)"
"""Grid lines that read on a light and on a dark page; the backgrounds are transparent, so a
chart takes the page's own colour."""
AXIS = {
    "gridcolor": GRID,
    "linecolor": GRID,
    "zerolinecolor": GRID,
    "zerolinewidth": 2,
    "automargin": True,
    "title_font": {"size": 13, "color": FADED["light"]},
    "tickfont": {"size": 12, "color": FADED["light"]},
}


def style(fig: go.Figure, title: str, height: int = 380) -> go.Figure:
    """Every figure's look, and its last step: what it says from the data is shown as text
    (`literal_text`), whichever page, report or slide draws it."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 16, "weight": 600}},
        height=height,
        margin={"l": 60, "r": 20, "t": 60, "b": 96},
        font={"family": FONT, "size": 14, "color": TEXT["light"]},
        paper_bgcolor="rgba(0, 0, 0, 0)",
        plot_bgcolor="rgba(0, 0, 0, 0)",
        colorway=list(OTHER_COLORS),
        hovermode="closest",
        hoverlabel={"align": "left", "font": {"family": FONT}},
        legend=bottom_legend(12),
    )
    fig.update_xaxes(**AXIS)
    fig.update_yaxes(**AXIS)
    fig.layout.template = None  # after the updates: plotly.py fills in its default on creation
    return literal_text(fit_titles(fig))


CHAR_WIDTH = 0.56
"""An average character of the dashboard's font, as a share of its size (generous: digits
and capitals are wider than the lower case that most titles are made of)."""
LINE_HEIGHT = 1.3
"""A line of an axis title, as a multiple of its font size."""


def wrap(text: str, chars: int) -> str:
    """`text` in lines of at most `chars` characters, broken at spaces (a word longer than
    that keeps its own line); its own line breaks (<br>) are kept where every line fits."""
    lines = text.split("<br>")
    if all(len(line) <= chars for line in lines):
        return text
    out: list[str] = []
    for word in " ".join(lines).split():
        if out and len(out[-1]) + 1 + len(word) <= chars:
            out[-1] += " " + word
        else:
            out.append(word)
    return "<br>".join(out)


def title_lines(text: str | None) -> int:
    return 0 if not text else text.count("<br>") + 1


def plot_height(fig: go.Figure) -> float:
    """The height of the plotting area, margins taken off (before plotly's automargin, which
    only ever takes more)."""
    layout = fig.layout
    margin = layout.margin
    return (layout.height or 450) - (margin.t or 0) - (margin.b or 0)


def fit_titles(fig: go.Figure) -> go.Figure:
    """Each y axis's title broken into lines no longer than its axis is tall.

    Plotly centres a y title on its axis and never wraps it: one longer than the axis ran up
    into the chart's title and down past the x labels (at 1280×720, and on a slide, whose
    type is larger). Called again by `slide_fig` once the type has its slide size.
    """
    room = plot_height(fig)
    default = fig.layout.font.size or 14
    for axis in fig.select_yaxes():
        text = axis.title.text
        if not text:
            continue
        size = axis.title.font.size or default
        share = (axis.domain[1] - axis.domain[0]) if axis.domain else 1.0
        chars = max(int(0.92 * room * share / (CHAR_WIDTH * size)), 10)
        axis.title.text = wrap(text, chars)
    return fig


def bottom_legend(size: int) -> dict:
    """A legend in a row along the figure's bottom edge, below the axis title: there it runs
    into neither the data, the title, a subtitle nor the panels' titles, at any type size."""
    return {
        "orientation": "h",
        "yref": "container",
        "yanchor": "bottom",
        "y": 0.0,
        "xanchor": "left",
        "x": 0.0,
        "font": {"size": size},
    }


def themed(fig: go.Figure, theme: str | None) -> go.Figure:
    """`fig` with its text in the colours of the page's theme ("dark" or "light")."""
    if theme != "dark":
        return fig
    fig.update_layout(font_color=TEXT["dark"], title_font_color=TEXT["dark"])
    fig.update_xaxes(title_font_color=FADED["dark"], tickfont_color=FADED["dark"])
    fig.update_yaxes(title_font_color=FADED["dark"], tickfont_color=FADED["dark"])
    fig.update_annotations(font_color=TEXT["dark"])
    for trace in fig.data:  # marks drawn in the text colour (the ✱ of a significant point)
        marker = getattr(trace, "marker", None)
        if marker is not None and marker.color == TEXT["light"]:
            trace.marker.color = TEXT["dark"]
            trace.marker.line.color = TEXT["dark"]
    return fig


def slide_fig(figure: go.Figure, height: int | None = None, scale: float = 1.0) -> go.Figure:
    """A figure for a slide or a slide image: type of at least 18 px on a 1280-pixel slide
    (times `scale` on larger ones), `height` tall (times `scale`)."""
    size = round(18 * scale)
    figure.update_layout(
        font_size=size,
        title_font_size=round(26 * scale),  # its subtitle (<sup>) at 18 px
        hoverlabel_font_size=size,
        legend=bottom_legend(size),
        margin={
            "t": round(78 * scale),
            "b": round(128 * scale),
            "l": round(96 * scale),
            "r": round(16 * scale),
        },
    )
    figure.update_xaxes(title_font_size=size, tickfont_size=size)
    figure.update_yaxes(title_font_size=size, tickfont_size=size)
    figure.update_annotations(font_size=size)
    if height is not None:
        figure.update_layout(height=round(height * scale))
    return fit_titles(figure)
