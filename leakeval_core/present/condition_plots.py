"""Charts of conditions: A vs B per query, means per condition, inflation, ranking change."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.evaluation.measures import Measure
from leakeval_core.present.style import (
    CLEAN_COLOR,
    LEAKED_COLOR,
    NEUTRAL,
    TEXT,
    Palette,
    is_ordered,
    style,
)

__all__ = [
    "condition_figure",
    "difference_figure",
    "inflation_figure",
    "scatter_ab_figure",
    "significance_marks",
    "tau_figure",
]


def significance_marks(comparisons: pd.DataFrame, x: str, facet: str | None) -> pd.DataFrame:
    """One mark per (x, facet) position where any compared pair is significant.

    `comparisons` comes from stats.compare_levels; the label lists the significant pairs with
    their adjusted p-values, for the hover text.
    """
    keys = [x] if facet is None else [x, facet]
    hits = comparisons[comparisons.significant.astype(bool)]
    if hits.empty:
        return pd.DataFrame(columns=[*keys, "label"])
    labels = hits.assign(
        label=[
            f"{a} vs {b}: Δ {d:+.4f}, adjusted p = {p:.2g}"
            for a, b, d, p in zip(hits.a, hits.b, hits.delta, hits.p_adjusted, strict=True)
        ]
    )
    return labels.groupby(keys, sort=True).label.agg("<br>".join).reset_index()


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
                customdata=np.stack([hover, part.delta, part.qid], axis=-1) if len(part) else None,
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
    above = f"A {measure.direction.raw_reads(1.0)}"
    fig.update_xaxes(title=f"B: {label_b}<br>{measure.axis_title}")
    fig.update_yaxes(title=f"A: {label_a}")
    return style(fig, f"{measure.label} per query (above the diagonal: {above})", height=520)


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
    palette: Palette | None = None,
) -> go.Figure:
    """Mean per condition with its confidence interval, one panel per facet level.

    Along an ordered x (training sizes) the means are joined and the interval is a band;
    along names (models, collections) they are separate points with error bars, since a
    line would read as a trend. `significant` (columns x, facet, label) marks with ✱ the x
    positions where the colour levels differ significantly after correction.
    """
    panels, fig = _facet_panels(means, facet)
    groups = sorted(means[color].unique().tolist()) if color else [None]
    colors = (palette or Palette()).of_factor(color, groups)
    x_levels = sorted(means[x].unique().tolist())
    ordered = is_ordered(x_levels)
    for col, panel in enumerate(panels, start=1):
        in_panel = means if facet is None else means[means[facet] == panel]
        for group in groups:
            part = in_panel if color is None else in_panel[in_panel[color] == group]
            part = part.set_index(x).reindex(x_levels).dropna(subset=["mean"]).reset_index()
            xs = part[x].astype(str).tolist()
            line_color = colors[group]
            if ordered:
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
                    mode="lines+markers" if ordered else "markers",
                    name=f"{color} = {group}" if color else measure.label,
                    legendgroup=str(group),
                    offsetgroup=None if ordered else str(group),
                    showlegend=col == 1,
                    line={"color": line_color, "width": 3},
                    marker={"size": 9 if ordered else 11, "color": line_color},
                    error_y=None
                    if ordered
                    else {
                        "type": "data",
                        "array": (part.ci_high - part["mean"]).to_numpy(),
                        "arrayminus": (part["mean"] - part.ci_low).to_numpy(),
                        "thickness": 2,
                        "width": 6,
                        "color": line_color,
                    },
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
                            "color": TEXT["light"],
                            "line": {"width": 2, "color": TEXT["light"]},
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
    style(fig, f"Mean {measure.label} per condition, 95% CI over queries", height=500)
    fig.update_layout(scattermode="overlay" if ordered else "group")
    return fig


def difference_figure(
    tests: pd.DataFrame,
    measure: Measure,
    x: str,
    facet: str | None,
    vary: str,
    statistics: Statistics,
    palette: Palette | None = None,
) -> go.Figure:
    """A − B per condition (as scored) with the interval drawn beside it at the level the
    correction tests the comparison at, named as its declaration names it.

    The counterpart of the ✱ marks: a filled point is a significant comparison, and its
    interval excludes 0 (an open point's includes it). Positions are nominal, so points are
    not joined; an interval the test cannot bound (too few queries for the level) is drawn
    to the panel's edge and says so on hover.
    """
    panels, fig = _facet_panels(tests, facet)
    pairs = list(dict.fromkeys(zip(tests.a, tests.b, strict=True)))
    colors = (palette or Palette()).of_factor(vary, [a for a, _ in pairs])
    finite = tests[["ci_low", "ci_high", "delta"]].replace([np.inf, -np.inf], np.nan)
    span = float(np.nanmax(finite.abs().to_numpy())) if finite.notna().any().any() else 1.0
    for col, panel in enumerate(panels, start=1):
        in_panel = tests if facet is None else tests[tests[facet] == panel]
        for a, b in pairs:
            part = in_panel[(in_panel.a == a) & (in_panel.b == b)].sort_values(x)
            if part.empty:
                continue
            high = part.ci_high.clip(upper=part.delta + 2 * span)
            low = part.ci_low.clip(lower=part.delta - 2 * span)
            significant = part.significant.astype(bool)
            bounded = np.isfinite(part.ci_low) & np.isfinite(part.ci_high)
            fig.add_trace(
                go.Scatter(
                    x=part[x].astype(str),
                    y=part.delta,
                    mode="markers",
                    name=f"{vary} {a} − {b}",
                    legendgroup=f"{a}|{b}",
                    offsetgroup=f"{a}|{b}",
                    showlegend=col == 1,
                    error_y={
                        "type": "data",
                        "array": (high - part.delta).to_numpy(),
                        "arrayminus": (part.delta - low).to_numpy(),
                        "thickness": 2,
                        "width": 6,
                    },
                    marker={
                        "color": [colors[a] if s else "rgba(0, 0, 0, 0)" for s in significant],
                        "size": 11,
                        "line": {"color": colors[a], "width": 2},
                    },
                    customdata=np.stack(
                        [
                            part.ci_low,
                            part.ci_high,
                            100 * part.confidence,
                            part.p_adjusted,
                            np.where(significant, "significant", "not significant"),
                            np.where(bounded, "", " (unbounded: too few queries)"),
                        ],
                        axis=-1,
                    ),
                    hovertemplate=f"{x} %{{x}}<br>{a} − {b}: %{{y:+.4f}}<br>"
                    "%{customdata[2]:.2f}% interval [%{customdata[0]:.4f}, "
                    "%{customdata[1]:.4f}]%{customdata[5]}<br>adjusted p = "
                    "%{customdata[3]:.3g}, %{customdata[4]}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.add_hline(y=0, line_color=NEUTRAL, line_dash="dot", row=1, col=col)
        fig.update_xaxes(title=x, type="category", row=1, col=col)
    above = f"A {measure.direction.raw_reads(1.0)}"
    fig.update_yaxes(title=f"A − B, {measure.label}<br>(above 0: {above})", row=1, col=1)
    style(
        fig,
        f"Paired differences in {measure.label}<br><sup>filled: significant after correction; "
        f"bars: the {statistics.interval_name('paired')} at the level the correction tests "
        "it at</sup>",
        height=440,
    )
    fig.update_layout(scattermode="group", margin={"t": 100})
    return fig


def inflation_figure(
    summary: pd.DataFrame, measure: Measure, x: str, facet: str | None, height: int = 440
) -> go.Figure:
    """Mean per-query gain on leaked topics vs the others, along x (e.g. train size)."""
    panels, fig = _facet_panels(summary, facet)
    # one comparison by answers ("answer-leaked vs clean"): its two groups name the lines
    split = str(summary.split.iloc[0]) if "split" in summary and len(summary) else ""
    first, second = (
        (f"{g} topics" for g in split.split(" vs "))
        if " vs " in split
        else ("topics with a near-duplicate", "other topics")
    )
    series = (
        ("gain_leaked", first, LEAKED_COLOR),
        ("gain_other", second, CLEAN_COLOR),
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
    fig.update_yaxes(
        title=f"{measure.label} gain, leaked over clean<br>(positive: better)", row=1, col=1
    )
    title = (
        f"Where the gain from leakage lands<br><sup>mean {measure.label} gain per topic group</sup>"
    )
    style(fig, title, height=height)
    return fig


def tau_figure(taus: pd.DataFrame, x: str, palette: Palette | None = None) -> go.Figure:
    """Kendall's tau between system rankings per x, with its bootstrap interval over
    queries; 1 means leakage leaves the order alone. Joined by lines only along an ordered x."""
    fig = go.Figure()
    collections = sorted(taus.collection.unique().tolist()) if len(taus) else []
    colors = (palette or Palette()).of_factor("collection", collections)
    ordered = is_ordered(sorted(taus[x].unique().tolist())) if len(taus) else False
    for collection, part in taus.groupby("collection", sort=True):
        part = part.sort_values(x)
        fig.add_trace(
            go.Scatter(
                x=part[x].astype(str),
                y=part.tau,
                mode="lines+markers" if ordered else "markers",
                name=str(collection),
                offsetgroup=None if ordered else str(collection),
                line={"color": colors[collection], "width": 3},
                marker={"size": 10, "color": colors[collection]},
                error_y={
                    "type": "data",
                    "array": (part.tau_high - part.tau).to_numpy(),
                    "arrayminus": (part.tau - part.tau_low).to_numpy(),
                    "thickness": 2,
                    "width": 6,
                    "color": colors[collection],
                },
                customdata=np.stack(
                    [part.tau_low, part.tau_high, 100 * part.p_same, part.queries], axis=-1
                ),
                hovertemplate=f"{collection}, {x} %{{x}}<br>τ %{{y:.3f}}, 95% interval "
                "[%{customdata[0]:.2f}, %{customdata[1]:.2f}]<br>same ranking in "
                "%{customdata[2]:.0f}% of resampled query sets (%{customdata[3]} queries)"
                "<extra></extra>",
            )
        )
    fig.add_hline(y=1, line_color=NEUTRAL, line_dash="dot", annotation_text="same ranking")
    fig.update_xaxes(title=x, type="category")
    fig.update_yaxes(title="Kendall's τ between model rankings (1 = unchanged)", range=[-1.1, 1.15])
    style(
        fig,
        "Does leakage reorder the models?<br><sup>bars: 95% bootstrap interval over queries</sup>",
    )
    fig.update_layout(margin={"t": 80}, scattermode="overlay" if ordered else "group")
    return fig
