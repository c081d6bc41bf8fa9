"""The leaderboard's chart: each system's rank interval on all topics and on the clean ones.

A rank interval runs from the best to the worst rank the Tukey HSD test leaves a system
(1 + the systems significantly better; the number of systems − those significantly worse),
and the dot is the rank of its mean. Rank 1, the best, is on the left; systems are listed
best first on all topics, so a line that moves right on the clean topics is a system that
owes part of its place to the leaked ones.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from leakeval_core.evaluation.measures import Measure
from leakeval_core.present.style import CLEAN_COLOR, INK, style

__all__ = ["figure_height", "rank_interval_figure"]

_SETS = (
    ("all", "all topics", INK, -0.17, "top center"),
    ("clean", "clean topics", CLEAN_COLOR, 0.17, "bottom center"),
)
"""Each topic set: its label, colour, offset from the system's row, and where its letters
stand (away from the other set's line)."""


def figure_height(systems: int) -> int:
    """The chart's height for `systems` rows: each row holds two lines and their letters."""
    return max(320, 110 + 75 * systems)


def rank_interval_figure(systems: pd.DataFrame, measure: Measure) -> go.Figure:
    """`systems` (`Leaderboard.systems` of one leaderboard): per topic set and system, the
    rank interval as a line and the mean's rank as a dot, labelled with the group letters."""
    fig = go.Figure()
    if systems.empty:
        return style(fig, "Rank intervals: no leaderboard here")
    first = systems[systems.topics == "all"].sort_values(["rank", "system"], kind="stable")
    order = first.system.astype(str).tolist()
    row = {name: i for i, name in enumerate(order)}
    count = len(order)
    for topics, label, colour, offset, letters in _SETS:
        part = systems[systems.topics == topics]
        if part.empty:
            continue
        n = int(part.n_topics.iloc[0])
        y = [row[str(s)] + offset for s in part.system]
        xs, ys = [], []
        for low, high, at in zip(part.rank_low, part.rank_high, y, strict=True):
            xs += [int(low) - 0.3, int(high) + 0.3, None]
            ys += [at, at, None]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"color": colour, "width": 6},
                name=f"{label} ({n:,})",
                legendgroup=topics,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=part["rank"].astype(int),
                y=y,
                mode="markers+text",
                marker={"color": colour, "size": 11, "line": {"color": "white", "width": 1}},
                text=part.group.astype(str),
                textposition=letters,
                textfont={"color": colour},
                # the top row's letters stand above the plot area, the bottom row's below:
                # clipped, they vanished on a slide, where the type is larger
                cliponaxis=False,
                name=f"{label}: rank of the mean",
                legendgroup=topics,
                showlegend=False,
                customdata=list(
                    zip(part.system, part.rank_low, part.rank_high, part["mean"], strict=True)
                ),
                hovertemplate=f"%{{customdata[0]}} ({label})<br>group %{{text}}<br>ranks "
                f"%{{customdata[1]}}–%{{customdata[2]}}<br>mean {measure.label} "
                "%{customdata[3]:.3f}<extra></extra>",
            )
        )
    fig.update_xaxes(
        title_text=f"Rank (1 = best; {measure.label}: {measure.direction.words})",
        range=[0.4, count + 0.6],
        tickvals=list(range(1, count + 1)),
    )
    fig.update_yaxes(
        title_text="System (best first on all topics)",
        tickvals=list(range(count)),
        ticktext=order,
        range=[count - 0.5, -0.5],  # the best at the top
    )
    return style(
        fig,
        "Rank intervals on all and on clean topics (letters: tied groups)",
        height=figure_height(count),
    )
