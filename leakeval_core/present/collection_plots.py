"""Charts of a test collection: judgments per topic and the grade distribution."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from leakeval_core.present.style import OTHER_COLORS, grade_color, style

__all__ = ["grade_figure", "per_topic_figure"]


def per_topic_figure(
    table: pd.DataFrame, columns: list[str], title: str, y_title: str
) -> go.Figure:
    """Stacked bars per topic, topics sorted by their total."""
    order = table.assign(_total=table[columns].sum(axis=1)).sort_values("_total", ascending=False)
    fig = go.Figure(
        [
            go.Bar(
                x=order.qid,
                y=order[c],
                name=c,
                marker_color=_column_color(c, i),
                hovertemplate="topic %{x}<br>" + c + ": %{y}<extra></extra>",
            )
            for i, c in enumerate(columns)
        ]
    )
    fig.update_layout(barmode="stack", bargap=0.05)
    fig.update_xaxes(title="topic (sorted by count)", type="category", showticklabels=False)
    fig.update_yaxes(title=y_title)
    return style(fig, title)


def grade_figure(counts: pd.DataFrame) -> go.Figure:
    fig = go.Figure(
        go.Bar(
            x=counts.grade.astype(str),
            y=counts.judgments,
            marker_color=[grade_color(g) for g in counts.grade],
            text=counts.judgments,
            textposition="outside",
            hovertemplate="grade %{x}: %{y} judgments<extra></extra>",
        )
    )
    fig.update_xaxes(title="relevance grade", type="category")
    fig.update_yaxes(title="judgments (qrels lines)")
    return style(fig, "Grade distribution")


def _column_color(column: str, i: int) -> str:
    """`grade N` columns in their grade's colour (the same in every chart), others in turn."""
    name, _, number = column.partition(" ")
    if name == "grade" and number.isdigit():
        return grade_color(int(number))
    return OTHER_COLORS[i % len(OTHER_COLORS)]
