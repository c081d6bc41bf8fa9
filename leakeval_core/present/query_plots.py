"""One query under two conditions, in the manner of DiffIR: the two ranked lists side by
side, documents coloured by relevance, a line joining each document's two positions."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from leakeval_core.present.style import NEUTRAL, grade_color, style

__all__ = ["ranked_lists_figure"]


def ranked_lists_figure(
    list_a: pd.DataFrame, list_b: pd.DataFrame, label_a: str, label_b: str, depth: int = 20
) -> go.Figure:
    """The top `depth` of each list (docid, rank, grade): a box per document coloured by its
    grade, a line where a document is in both tops, steeper the more it moved."""
    top_a, top_b = (frame[frame["rank"] <= depth] for frame in (list_a, list_b))
    fig = go.Figure()
    both = top_a.merge(top_b, on="docid", suffixes=("_a", "_b"))
    for row in both.itertuples():
        relevant = pd.notna(row.grade_a) and row.grade_a > 0
        fig.add_trace(
            go.Scatter(
                x=[0, 1],
                y=[row.rank_a, row.rank_b],
                mode="lines",
                line={"color": grade_color(row.grade_a) if relevant else NEUTRAL, "width": 2},
                opacity=0.9 if relevant else 0.35,
                hoverinfo="skip",
                showlegend=False,
            )
        )
    for x, frame, side in ((0, top_a, "A"), (1, top_b, "B")):
        grades = [None if pd.isna(g) else int(g) for g in frame.grade]
        fig.add_trace(
            go.Scatter(
                x=[x] * len(frame),
                y=frame["rank"],
                mode="markers+text",
                marker={
                    "symbol": "square",
                    "size": 16,
                    "color": [grade_color(g) for g in grades],
                    "line": {"color": NEUTRAL, "width": 1},
                },
                text=frame.docid,
                textposition="middle left" if x == 0 else "middle right",
                textfont={"size": 11},
                customdata=[["unjudged" if g is None else f"grade {g}"] for g in grades],
                hovertemplate=f"{side} rank %{{y}}: %{{text}} (%{{customdata[0]}})<extra></extra>",
                showlegend=False,
            )
        )
    for grade, name in ((None, "unjudged"), (0, "grade 0"), (1, "grade 1"), (2, "grade 2")):
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker={"symbol": "square", "size": 12, "color": grade_color(grade)},
                name=name,
            )
        )
    fig.update_xaxes(
        tickvals=[0, 1],
        ticktext=["A", "B"],
        range=[-0.9, 1.9],
        side="top",
        showgrid=False,
        zeroline=False,
    )
    fig.update_yaxes(title="rank (1 = top)", dtick=1, range=[depth + 0.5, 0.5])
    title = (
        f"Top {depth} of A and B: the same document joined"
        f"<br><sup>A: {label_a} · B: {label_b}</sup>"
    )
    return style(fig, title, height=640)
