"""Plot builders: each returns a labelled, interactive plotly Figure and never renders it.

Pages render them; the HTML report can reuse them. Axis titles say which way is better.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from leakeval_core.evaluation.measures import Measure

__all__ = [
    "category_counts_figure",
    "condition_figure",
    "grade_figure",
    "inflation_figure",
    "leak_share_figure",
    "level_color",
    "per_topic_figure",
    "scatter_ab_figure",
    "similarity_figure",
    "tau_figure",
]

LEAKED_COLOR = "#d95f02"
CLEAN_COLOR = "#1b6ca8"
NEUTRAL = "#7a7a7a"
PALETTE = ["#1b6ca8", "#d95f02", "#2a9d55", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d"]


def level_color(level: object, index: int) -> str:
    """Leaked conditions are orange and clean ones blue on every plot; others cycle."""
    name = str(level).lower()
    if name in {"none", "clean", "no", "false"}:
        return CLEAN_COLOR
    if name in {"leaked", "leak", "yes", "true"}:
        return LEAKED_COLOR
    return PALETTE[index % len(PALETTE)]


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


def _style(fig: go.Figure, title: str, height: int = 380) -> go.Figure:
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
                marker_color=PALETTE[i % len(PALETTE)],
                hovertemplate="topic %{x}<br>" + c + ": %{y}<extra></extra>",
            )
            for i, c in enumerate(columns)
        ]
    )
    fig.update_layout(barmode="stack", bargap=0.05)
    fig.update_xaxes(title="topic (sorted by count)", type="category", showticklabels=False)
    fig.update_yaxes(title=y_title)
    return _style(fig, title)


def grade_figure(counts: pd.DataFrame) -> go.Figure:
    fig = go.Figure(
        go.Bar(
            x=counts.grade.astype(str),
            y=counts.judgments,
            marker_color=PALETTE[0],
            text=counts.judgments,
            textposition="outside",
            hovertemplate="grade %{x}: %{y} judgments<extra></extra>",
        )
    )
    fig.update_xaxes(title="relevance grade", type="category")
    fig.update_yaxes(title="judgments (qrels lines)")
    return _style(fig, "Grade distribution")


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
    return _style(fig, f"Topics with a near-duplicate in training (similarity ≥ {threshold:.2f})")


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
    return _style(fig, "Similarity of candidate pairs")


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
    return _style(fig, "Near-duplicate categories")


def scatter_ab_figure(
    pairs: pd.DataFrame,
    measure: Measure,
    label_a: str,
    label_b: str,
    titles: pd.Series | None = None,
) -> go.Figure:
    """Per-query A vs B; points above the diagonal are queries where A scores higher."""
    fig = go.Figure()
    finite = pairs.dropna(subset=["a", "b"])
    for flag, name, color in (
        (True, "leaked topic", LEAKED_COLOR),
        (False, "no near-duplicate", CLEAN_COLOR),
    ):
        part = finite[finite.leaked == flag]
        hover = part.qid if titles is None else part.qid + ": " + part.qid.map(titles).fillna("")
        fig.add_trace(
            go.Scatter(
                x=part.b,
                y=part.a,
                mode="markers",
                name=f"{name} ({len(part)})",
                marker={
                    "color": color,
                    "size": 9,
                    "opacity": 0.75,
                    "line": {"width": 0.5, "color": "white"},
                },
                customdata=np.stack([hover, part.delta], axis=-1) if len(part) else None,
                hovertemplate="%{customdata[0]}<br>A %{y:.3f} · B %{x:.3f}"
                " · A−B %{customdata[1]:.3f}<extra></extra>",
            )
        )
    if len(finite):
        low = float(min(finite.a.min(), finite.b.min()))
        high = float(max(finite.a.max(), finite.b.max()))
        fig.add_trace(
            go.Scatter(
                x=[low, high],
                y=[low, high],
                mode="lines",
                name="A = B",
                line={"color": NEUTRAL, "dash": "dash"},
                hoverinfo="skip",
            )
        )
    above = "A better" if measure.better == "higher" else "B better"
    fig.update_xaxes(title=f"B: {label_b} — {measure.axis_title}")
    fig.update_yaxes(title=f"A: {label_a}")
    return _style(fig, f"{measure.label} per query (above the diagonal: {above})", height=520)


def _facet_panels(frame: pd.DataFrame, facet: str | None) -> tuple[list, go.Figure]:
    """One panel per level of `facet` (one panel when None), sharing the y axis."""
    panels = sorted(frame[facet].unique().tolist()) if facet else [None]
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        subplot_titles=[f"{facet} = {p}" for p in panels] if facet else None,
        horizontal_spacing=0.04,
    )
    return panels, fig


def condition_figure(
    means: pd.DataFrame,
    measure: Measure,
    x: str,
    color: str | None,
    facet: str | None,
    significant: pd.DataFrame | None = None,
) -> go.Figure:
    """Mean per condition with a shaded confidence band, one panel per facet level.

    `significant` (columns x, facet, label) marks with ✱ the x positions where the colour
    levels differ significantly after correction.
    """
    panels, fig = _facet_panels(means, facet)
    groups = sorted(means[color].unique().tolist()) if color else [None]
    x_levels = sorted(means[x].unique().tolist())
    for col, panel in enumerate(panels, start=1):
        in_panel = means if facet is None else means[means[facet] == panel]
        for i, group in enumerate(groups):
            part = in_panel if color is None else in_panel[in_panel[color] == group]
            part = part.set_index(x).reindex(x_levels).dropna(subset=["mean"]).reset_index()
            xs = part[x].astype(str).tolist()
            line_color = level_color(group, i)
            fig.add_trace(
                go.Scatter(
                    x=xs + xs[::-1],
                    y=part.ci_high.tolist() + part.ci_low.tolist()[::-1],
                    mode="lines",
                    fill="toself",
                    fillcolor=line_color,
                    opacity=0.15,
                    line={"width": 0},
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=str(group),
                ),
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=part["mean"],
                    mode="lines+markers",
                    name=f"{color} = {group}" if color else measure.label,
                    legendgroup=str(group),
                    showlegend=col == 1,
                    line={"color": line_color, "width": 3},
                    marker={"size": 9},
                    customdata=np.stack([part.n, part.ci_low, part.ci_high], axis=-1),
                    hovertemplate=f"{x} %{{x}}<br>mean %{{y:.4f}}<br>95% CI "
                    "[%{customdata[1]:.4f}, %{customdata[2]:.4f}]<br>"
                    "%{customdata[0]} queries<extra></extra>",
                ),
                row=1,
                col=col,
            )
        if significant is not None and len(significant):
            marks = significant if facet is None else significant[significant[facet] == panel]
            tops = in_panel.groupby(x).ci_high.max()
            lift = 0.06 * (in_panel.ci_high.max() - in_panel.ci_low.min())  # above the band
            marks = marks[marks[x].isin(tops.index)]
            if len(marks):
                fig.add_trace(
                    go.Scatter(
                        x=marks[x].astype(str),
                        y=tops.reindex(marks[x]).to_numpy() + lift,
                        mode="markers",
                        marker={
                            "symbol": "asterisk-open",
                            "size": 14,
                            "color": "#111",
                            "line": {"width": 2, "color": "#111"},
                        },
                        name="significant difference",
                        showlegend=col == 1,
                        hovertext=marks.label,
                        hoverinfo="text",
                    ),
                    row=1,
                    col=col,
                )
        fig.update_xaxes(title=x, type="category", row=1, col=col)
    fig.update_yaxes(title=measure.axis_title, row=1, col=1)
    _style(fig, f"Mean {measure.label} per condition, 95% CI over queries", height=500)
    fig.update_layout(
        legend={"y": -0.22, "yanchor": "top", "x": 0.5, "xanchor": "center"}, margin={"b": 110}
    )
    return fig


def inflation_figure(
    summary: pd.DataFrame, measure: Measure, x: str, facet: str | None
) -> go.Figure:
    """Mean per-query gain on leaked topics vs the others, along x (e.g. train size)."""
    panels, fig = _facet_panels(summary, facet)
    series = (
        ("delta_leaked", "topics with a near-duplicate", LEAKED_COLOR),
        ("delta_other", "other topics", CLEAN_COLOR),
    )
    for col, panel in enumerate(panels, start=1):
        part = (summary if facet is None else summary[summary[facet] == panel]).sort_values(x)
        for column, name, color in series:
            fig.add_trace(
                go.Scatter(
                    x=part[x].astype(str),
                    y=part[column],
                    mode="lines+markers",
                    name=name,
                    legendgroup=column,
                    showlegend=col == 1,
                    line={"color": color, "width": 3},
                    marker={"size": 9},
                    hovertemplate=f"{x} %{{x}}<br>{name}: %{{y:+.4f}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.add_hline(y=0, line_color=NEUTRAL, line_dash="dot", row=1, col=col)
        fig.update_xaxes(title=x, type="category", row=1, col=col)
    direction = "higher" if measure.better == "higher" else "lower"
    fig.update_yaxes(
        title=f"mean Δ {measure.label}, leaked − clean ({direction} is better)", row=1, col=1
    )
    _style(fig, f"Where the gain from leakage lands: Δ{measure.label} per topic group", height=440)
    fig.update_layout(
        legend={"y": -0.25, "yanchor": "top", "x": 0.5, "xanchor": "center"}, margin={"b": 110}
    )
    return fig


def tau_figure(taus: pd.DataFrame, x: str) -> go.Figure:
    """Kendall's tau between system rankings per x; 1 means leakage leaves the order alone."""
    fig = go.Figure()
    for i, (collection, part) in enumerate(taus.groupby("collection", sort=True)):
        part = part.sort_values(x)
        fig.add_trace(
            go.Scatter(
                x=part[x].astype(str),
                y=part.tau,
                mode="lines+markers",
                name=str(collection),
                line={"color": PALETTE[i % len(PALETTE)], "width": 3},
                marker={"size": 9},
            )
        )
    fig.add_hline(y=1, line_color=NEUTRAL, line_dash="dot", annotation_text="same ranking")
    fig.update_xaxes(title=x, type="category")
    fig.update_yaxes(title="Kendall's τ between model rankings (1 = unchanged)", range=[-1.05, 1.1])
    return _style(fig, "Does leakage reorder the models?")
