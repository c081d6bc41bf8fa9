"""Charts of the LEAKAGE table: shares of leaked topics, similarities, categories."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from leakeval_core.present.style import INK, LEAKED_COLOR, NEUTRAL, TEXT, style

__all__ = [
    "category_counts_figure",
    "detection_curves_figure",
    "leak_share_figure",
    "similarity_figure",
]


STUDY = "Fröbe et al. 2022, full MS MARCO + ORCAS logs"


def leak_share_figure(shares: pd.DataFrame, rule: str) -> go.Figure:
    """Share of topics with a near-duplicate per collection, beside the study's share;
    `rule` says which pairs make a topic leaked ("lexical similarity ≥ 0.691").

    The study searched the whole MS MARCO and ORCAS query logs; an experiment with a sample
    of a log finds fewer, so each mark says whose figure it is. Counts sit at the foot of
    the bars, where the study's mark cannot cover them; a bar too short to hold its count
    (a 0%) shows it above.
    """
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
            # at the bar's foot, clear of the study's mark above it; a short bar's outside
            textposition=["inside" if share >= 0.15 else "outside" for share in shares.share],
            insidetextanchor="start",
            cliponaxis=False,
            hovertemplate="%{x}: %{y:.1%} of topics leaked in this experiment<extra></extra>",
        )
    )
    study = shares.dropna(subset=["study_share"])
    if not study.empty:
        fig.add_trace(
            go.Scatter(
                x=study.collection,
                y=study.study_share,
                mode="markers+text",
                name=STUDY,
                text=[f"study: {s:.0%}" for s in study.study_share],
                textposition="middle right",
                marker={
                    "symbol": "line-ew-open",
                    "size": 60,
                    "line": {"width": 4},
                    "color": TEXT["light"],
                },
                hovertemplate="%{x}: the study found a near-duplicate for %{y:.0%} of topics "
                "in the full MS MARCO + ORCAS logs<extra></extra>",
            )
        )
    fig.update_yaxes(
        title="share of topics with a near-duplicate", tickformat=".0%", range=[0, 1.1]
    )
    fig.update_xaxes(title="collection")
    return style(fig, f"Topics with a near-duplicate in training<br><sup>leaked: {rule}</sup>")


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
            marker_color=INK,
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
            marker_color=INK,
            text=counts.pairs,
            textposition="outside",
            cliponaxis=False,  # the tallest bar's count sits above the plot area
            hovertemplate="%{x}: %{y} pairs<extra></extra>",
        )
    )
    fig.update_xaxes(title="how the training query relates to the topic")
    fig.update_yaxes(title="pairs at or above threshold")
    return style(fig, "Near-duplicate categories")


def detection_curves_figure(scored: pd.DataFrame, threshold: float, method: str) -> go.Figure:
    """ROC and precision-recall curves of a method on labelled pairs, the threshold marked.

    `scored` is `DetectionQuality.scored`: near_duplicate (1/0) and similarity per pair.
    """
    from plotly.subplots import make_subplots
    from sklearn.metrics import precision_recall_curve, roc_curve

    y, s = scored.near_duplicate.to_numpy(), scored.similarity.to_numpy()
    fpr, tpr, roc_t = roc_curve(y, s)
    precision, recall, pr_t = precision_recall_curve(y, s)
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            "ROC: near-duplicates found vs look-alikes let through",
            "Precision and recall",
        ),
        horizontal_spacing=0.12,
    )
    fig.add_trace(
        go.Scatter(
            x=fpr,
            y=tpr,
            mode="lines",
            name=method,
            line={"color": INK, "width": 3},
            customdata=roc_t,
            hovertemplate="threshold %{customdata:.3f}<br>"
            "different let through %{x:.2f}<br>near-duplicates found %{y:.2f}"
            "<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            line={"color": NEUTRAL, "dash": "dot"},
            hoverinfo="skip",
            showlegend=False,
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=recall[:-1],
            y=precision[:-1],
            mode="lines",
            showlegend=False,
            line={"color": INK, "width": 3},
            customdata=pr_t,
            hovertemplate="threshold %{customdata:.3f}<br>recall %{x:.2f}<br>"
            "precision %{y:.2f}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    flagged = s >= threshold
    at_fpr = float(flagged[y == 0].mean()) if (y == 0).any() else 0.0
    at_tpr = float(flagged[y == 1].mean()) if (y == 1).any() else 0.0
    at_precision = float(y[flagged].mean()) if flagged.any() else 1.0
    for col, x, value in ((1, at_fpr, at_tpr), (2, at_tpr, at_precision)):
        fig.add_trace(
            go.Scatter(
                x=[x],
                y=[value],
                mode="markers",
                name=f"threshold {threshold:.3f}",
                marker={"color": LEAKED_COLOR, "size": 13, "symbol": "diamond"},
                showlegend=col == 1,
                hovertemplate=f"threshold {threshold:.3f}<br>%{{x:.2f}}, %{{y:.2f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    fig.update_xaxes(
        title="share of different-topic pairs flagged (lower is better)", range=[0, 1], row=1, col=1
    )
    fig.update_yaxes(
        title="share of near-duplicates flagged (higher is better)", range=[0, 1.02], row=1, col=1
    )
    fig.update_xaxes(title="recall of near-duplicates", range=[0, 1], row=1, col=2)
    fig.update_yaxes(title="precision of flagged pairs", range=[0, 1.02], row=1, col=2)
    return style(fig, f"Detection quality of the {method} method on labelled pairs", height=430)
