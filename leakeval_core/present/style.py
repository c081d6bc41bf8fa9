"""The dashboard's look for every chart: palette, fonts, axes, and colours by role."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from leakeval_core.experiment.design import Design

__all__ = [
    "CLEAN_COLOR",
    "LEAKED_COLOR",
    "NEUTRAL",
    "PALETTE",
    "UNJUDGED_COLOR",
    "grade_color",
    "level_colors",
    "style",
]

LEAKED_COLOR = "#d95f02"
CLEAN_COLOR = "#1b6ca8"
NEUTRAL = "#7a7a7a"
PALETTE = ["#1b6ca8", "#d95f02", "#2a9d55", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d"]
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


def level_colors(levels: Sequence[object], design: Design | None = None) -> dict[object, str]:
    """One colour per level: the design's leaked level orange and its clean level blue on
    every plot, the others from the palette in order."""
    roles = {} if design is None else {design.leaked: LEAKED_COLOR, design.clean: CLEAN_COLOR}
    others = iter(c for c in PALETTE if c not in roles.values())
    return {level: roles.get(level) or next(others, NEUTRAL) for level in levels}


# The look of plotly's "plotly_white" template, set as plain layout attributes. A figure
# carrying a template (plotly's, or the one Streamlit's chart theme merges in) makes plotly.js
# apply it to every trace on each draw, and Streamlit draws each chart twice on mount: about
# 55 ms more per chart in a page switch, measured in headless Chromium.
FONT = '"Source Sans", "Source Sans Pro", sans-serif'  # the dashboard's own font
TEXT = "#31333f"
FADED = "#6b6f7b"
GRID = "#ebf0f8"
AXIS = {
    "gridcolor": GRID,
    "linecolor": GRID,
    "zerolinecolor": GRID,
    "zerolinewidth": 2,
    "automargin": True,
    "title_font": {"size": 13, "color": FADED},
    "tickfont": {"size": 12, "color": FADED},
}


def style(fig: go.Figure, title: str, height: int = 380) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 16, "weight": 600}},
        height=height,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        font={"family": FONT, "size": 14, "color": TEXT},
        paper_bgcolor="white",
        plot_bgcolor="white",
        colorway=PALETTE,
        hovermode="closest",
        hoverlabel={"align": "left", "font": {"family": FONT}},
        legend={
            "orientation": "h",
            "yanchor": "bottom",
            "y": 1.02,
            "xanchor": "right",
            "x": 1,
            "font": {"size": 12},
        },
    )
    fig.update_xaxes(**AXIS)
    fig.update_yaxes(**AXIS)
    fig.layout.template = None  # after the updates: plotly.py fills in its default on creation
    return fig
