"""Charts of the LEAKAGE table: shares of leaked topics, similarities, categories."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from leakeval_core.present.style import LEAKED_COLOR, PALETTE, style

__all__ = ["category_counts_figure", "leak_share_figure", "similarity_figure"]


def leak_share_figure(shares: pd.DataFrame, threshold: float) -> go.Figure:
    """Share of topics with a near-duplicate per collection, with the study's figures."""
    fig = go.Figure(
        go.Bar(
            x=shares.collection,
            y=shares.share,
            name="this experiment",
            marker_color=LEAKED_COLOR,
            text=[
                f"{s:.0%} ({n}/{t})"
                for s, n, t in zip(shares.share, shares.leaked, shares.topics, strict=True)
            ],
            textposition="inside",
            insidetextanchor="start",
            textfont={"color": "white"},
            hovertemplate="%{x}: %{y:.1%} of topics leaked<extra></extra>",
        )
    )
    study = shares.dropna(subset=["study_share"])
    if not study.empty:
        fig.add_trace(
            go.Scatter(
                x=study.collection,
                y=study.study_share,
                mode="markers",
                name="reported by Fröbe et al. 2022 (MS MARCO/ORCAS)",
                marker={
                    "symbol": "line-ew-open",
                    "size": 60,
                    "line": {"width": 4},
                    "color": "#222",
                },
                hovertemplate="%{x}: study reports %{y:.0%}<extra></extra>",
            )
        )
    fig.update_yaxes(
        title="share of topics with a near-duplicate", tickformat=".0%", range=[0, 1.1]
    )
    fig.update_xaxes(title="collection")
    return style(fig, f"Topics with a near-duplicate in training (similarity ≥ {threshold:.2f})")


def similarity_figure(pairs: pd.DataFrame, threshold: float, bins: int = 40) -> go.Figure:
    """Histogram of pair similarities, binned here: a log's thousands of pairs would
    otherwise travel to the browser one value at a time."""
    counts, edges = np.histogram(pairs.similarity, bins=bins, range=(0.0, 1.0))
    fig = go.Figure(
        go.Bar(
            x=(edges[:-1] + edges[1:]) / 2,
            y=counts,
            width=np.diff(edges),
            customdata=np.column_stack([edges[:-1], edges[1:]]),
            marker_color=PALETTE[0],
            hovertemplate="similarity %{customdata[0]:.3f}–%{customdata[1]:.3f}: "
            "%{y} pairs<extra></extra>",
        )
    )
    fig.update_layout(bargap=0.02)
    fig.add_vline(
        x=threshold,
        line_dash="dash",
        line_color=LEAKED_COLOR,
        annotation_text=f"threshold {threshold:.2f}",
        # beside the line on its emptier side: most candidate pairs sit below the threshold
        annotation_position="top right" if threshold <= 0.85 else "top left",
    )
    fig.update_xaxes(
        title="similarity of topic and training query (1 = identical)", range=[0, 1.02]
    )
    fig.update_yaxes(title="candidate pairs")
    return style(fig, "Similarity of candidate pairs")


def category_counts_figure(counts: pd.DataFrame) -> go.Figure:
    fig = go.Figure(
        go.Bar(
            x=counts.category,
            y=counts.pairs,
            marker_color=PALETTE[2],
            text=counts.pairs,
            textposition="outside",
            cliponaxis=False,  # the tallest bar's count sits above the plot area
            hovertemplate="%{x}: %{y} pairs<extra></extra>",
        )
    )
    fig.update_xaxes(title="how the training query relates to the topic")
    fig.update_yaxes(title="pairs at or above threshold")
    return style(fig, "Near-duplicate categories")
