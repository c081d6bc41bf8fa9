"""Charts of a leakage audit: the difference per model, the gain by closeness of the nearest
training query (similarity bins, categories), and the estimate across detection thresholds.

Every gain is in the measure's better direction (positive is an improvement over the
baseline, for a lower-is-better measure too), and every axis says so. Every label reads
horizontally: a bar's topic count is in its axis label, never written over the bar and its
interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from leakeval_core.evaluation.measures import Measure
from leakeval_core.present.style import CLEAN_COLOR, INK, LEAKED_COLOR, NEUTRAL, style

__all__ = ["audit_figure", "category_gain_figure", "dose_figure", "sensitivity_figure"]


def _gain_title(measure: Measure, over: str) -> str:
    # two lines: one ran past a narrow chart (the Story's column) and into its title
    return f"{measure.label} gain over {over}<br>(positive: better)"


def _topics(n: object) -> str:
    n = int(n)
    return f"{n} topic" if n == 1 else f"{n:,} topics"


def _nothing_to_show(fig: go.Figure, text: str) -> None:
    fig.add_annotation(
        text=text,
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
        showarrow=False,
        font={"size": 14, "color": NEUTRAL},
    )


def _error(frame: pd.DataFrame, value: str = "gain") -> dict:
    return {
        "type": "data",
        "symmetric": False,
        "array": (frame.ci_high - frame[value]).to_numpy(),
        "arrayminus": (frame[value] - frame.ci_low).to_numpy(),
        "thickness": 2,
        "width": 6,
    }


def audit_figure(
    table: pd.DataFrame, measure: Measure, places: list[str], baseline: str
) -> go.Figure:
    """Leaked minus other gain per audited model, with its interval; 0 is no sign of
    leakage inflation. Each row is labelled by the `places` columns that vary."""
    varying = [c for c in places if table[c].nunique() > 1] or places[-1:]
    label = table[varying[0]].astype(str)
    for column in varying[1:]:
        label = label + " · " + table[column].astype(str)
    rows = table.assign(label=label)
    # split by answers ("answer-leaked vs clean"): its two groups name the axis and title
    split = str(rows.split.iloc[0]) if "split" in rows and len(rows) else "leaked"
    first, second = split.split(" vs ") if " vs " in split else ("leaked", "other")
    colours = rows.verdict.map({"inflated": LEAKED_COLOR, "reversed": CLEAN_COLOR}).fillna(INK)
    fig = go.Figure(
        go.Scatter(
            x=rows.difference,
            y=rows.label,
            mode="markers",
            marker={"color": colours, "size": 12},
            error_x=_error(rows, "difference") | {"color": NEUTRAL},
            customdata=np.c_[
                rows.p_adjusted, rows.leaked_topics, rows.other_topics, rows.verdict, rows.mde
            ],
            hovertemplate="%{y}: %{x:+.4f}, %{customdata[3]}<br>adjusted p "
            f"%{{customdata[0]:.3g}}, mde %{{customdata[4]:.3f}}<br>%{{customdata[1]}} {first} vs "
            f"%{{customdata[2]}} {second} topics<extra></extra>",
            showlegend=False,
        )
    )
    fig.add_vline(x=0, line_color=NEUTRAL, line_dash="dot")
    if not np.isfinite(rows.difference.to_numpy(dtype=float)).any():
        fewest = int(rows.leaked_topics.min()) if len(rows) else 0
        _nothing_to_show(
            fig,
            "No leaked topics at this threshold: nothing to compare"
            if fewest == 0
            else "Too few leaked or other topics to compare",
        )
    fig.update_xaxes(
        title=f"{measure.label} gain over {baseline}: {first} minus {second} topics"
        f"<br>(positive: {first} topics gain more)"
    )
    fig.update_yaxes(title=None, autorange="reversed", type="category")
    # 40 px a model, never fewer than three rows' worth: with one model the margins would
    # leave its row no height to draw in
    height = 160 + 40 * max(len(rows), 3)
    title = (
        f"{first.capitalize()} minus {second}, per model<br><sup>orange: inflated · blue: the "
        f"{second} topics gain more · grey: not significant, or too few topics to test</sup>"
    )
    return style(fig, title, height)


def _bin_label(position: int, low: float, high: float) -> str:
    if position == 0:
        return "no candidate"
    low_text, high_text = f"{low:.2f}", f"{high:.2f}"
    return low_text if low_text == high_text else f"{low_text}–{high_text}"


def dose_figure(bins: pd.DataFrame, measure: Measure, baseline: str) -> go.Figure:
    """Mean gain per bin of the nearest training query's similarity, with t intervals; each
    bin's topic count under its label."""
    labels = [
        f"{_bin_label(b, lo, hi)}<br>{_topics(n)}"
        for b, lo, hi, n in zip(
            bins.bin, bins.similarity_low, bins.similarity_high, bins.topics, strict=True
        )
    ]
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=bins.gain,
            marker_color=[CLEAN_COLOR if b == 0 else LEAKED_COLOR for b in bins.bin],
            error_y=_error(bins) | {"color": NEUTRAL},
            hovertemplate="similarity %{x}: %{y:+.4f}<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_color=NEUTRAL, line_dash="dot")
    fig.update_xaxes(title="similarity of the nearest training query", type="category", tickangle=0)
    fig.update_yaxes(title=_gain_title(measure, baseline))
    return style(fig, "Gain by how close the nearest training query is", height=400)


def category_gain_figure(categories: pd.DataFrame, measure: Measure, baseline: str) -> go.Figure:
    """Mean gain per category of the nearest training query, with t intervals: a bar per
    category, lying down, so that its name and topic count read across, at any width."""
    rows = categories.iloc[::-1]  # plotly draws the first category at the bottom
    fig = go.Figure(
        go.Bar(
            y=[f"{c} ({_topics(n)})" for c, n in zip(rows.category, rows.topics, strict=True)],
            x=rows.gain,
            orientation="h",
            marker_color=[
                CLEAN_COLOR if c == "no near-duplicate" else LEAKED_COLOR for c in rows.category
            ],
            error_x=_error(rows) | {"color": NEUTRAL},
            hovertemplate="%{y}: %{x:+.4f}<extra></extra>",
        )
    )
    fig.add_vline(x=0, line_color=NEUTRAL, line_dash="dot")
    fig.update_xaxes(title=_gain_title(measure, baseline))
    fig.update_yaxes(title="nearest training query", type="category")
    return style(fig, "Gain by the kind of near-duplicate", height=400)


def sensitivity_figure(table: pd.DataFrame, measure: Measure, threshold: float) -> go.Figure:
    """The estimate and its interval at each detection threshold, the one in use marked;
    a note where no threshold leaves enough topics on both sides to test."""
    empty = table.empty
    if empty:
        columns = ["threshold", "ci_low", "ci_high", "difference", "leaked_topics", "p"]
        table = pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
    fig = go.Figure(
        [
            go.Scatter(
                x=np.r_[table.threshold, table.threshold[::-1]],
                y=np.r_[table.ci_high, table.ci_low[::-1]],
                fill="toself",
                fillcolor="rgba(217, 95, 2, 0.18)",
                line={"width": 0},
                hoverinfo="skip",
                name="95% interval",
            ),
            go.Scatter(
                x=table.threshold,
                y=table.difference,
                mode="lines+markers",
                line={"color": LEAKED_COLOR, "width": 3},
                customdata=np.c_[table.leaked_topics, table.p],
                hovertemplate="threshold %{x:.2f}: %{y:+.4f} (%{customdata[0]} leaked topics, "
                "p %{customdata[1]:.3g})<extra></extra>",
                name="leaked minus other",
            ),
        ]
    )
    fig.add_hline(y=0, line_color=NEUTRAL, line_dash="dot")
    fig.add_vline(
        x=threshold,
        line_color=INK,
        line_dash="dash",
        annotation_text="in use",
        annotation_position="top",
    )
    if empty:
        _nothing_to_show(fig, "Too few leaked or other topics at every threshold to compare")
    fig.update_xaxes(title="detection threshold<br>(similarity at which a topic counts as leaked)")
    # two lines, and room for them: in one the title ran past the plot into the chart's title
    fig.update_yaxes(
        title=f"{measure.label} gain, leaked minus other<br>(positive: leaked topics gain more)"
    )
    return style(fig, "Does the conclusion depend on the threshold?", height=440)
