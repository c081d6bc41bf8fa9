"""Formatting at the edge: tables as CSV / LaTeX / Markdown, and one self-contained HTML report.

Compute code never rounds; this module is the only place numbers become text.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from datetime import UTC, datetime

import pandas as pd
import plotly.graph_objects as go

__all__ = ["format_table", "html_report", "to_latex", "to_markdown"]

_PROB_COLUMNS = {
    "p",
    "p_adjusted",
    "p_leaked",
    "p_other",
    "p_difference",
    "p_leaked_adjusted",
    "p_other_adjusted",
    "p_difference_adjusted",
}


def _cell(column: str, value: object, digits: int = 4) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if column in _PROB_COLUMNS:
            return f"{value:.2e}" if value < 1e-3 else f"{value:.4f}"
        return f"{value:.{digits}f}"
    return str(value)


def _text_rows(frame: pd.DataFrame) -> list[list[str]]:
    return [
        [_cell(c, v) for c, v in zip(frame.columns, row, strict=True)]
        for row in frame.itertuples(index=False)
    ]


def to_markdown(frame: pd.DataFrame) -> str:
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(row) + " |" for row in _text_rows(frame)]
    return "\n".join([header, rule, *body]) + "\n"


def _latex_escape(text: str) -> str:
    for char, escaped in (
        ("\\", r"\textbackslash{}"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("$", r"\$"),
        ("#", r"\#"),
        ("_", r"\_"),
        ("{", r"\{"),
        ("}", r"\}"),
    ):
        text = text.replace(char, escaped)
    return text


def to_latex(frame: pd.DataFrame, caption: str, mark: str = "delta") -> str:
    """A booktabs table; the `mark` cell of every significant row gets a dagger."""
    columns = [c for c in frame.columns if c != "significant"]
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{" + "l" * len(columns) + "}",
        r"\toprule",
        " & ".join(_latex_escape(str(c)) for c in columns) + r" \\",
        r"\midrule",
    ]
    significant = frame["significant"] if "significant" in frame else pd.Series(False, frame.index)
    for (_, row), flag in zip(frame[columns].iterrows(), significant, strict=True):
        cells = [_latex_escape(_cell(c, row[c])) for c in columns]
        if flag and mark in columns:
            cells[columns.index(mark)] += r"$^\dagger$"
        lines.append(" & ".join(cells) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{_latex_escape(caption)}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def format_table(frame: pd.DataFrame, fmt: str, caption: str = "") -> str:
    if fmt == "csv":
        return frame.to_csv(index=False, float_format="%.6g")
    if fmt == "latex":
        return to_latex(frame, caption)
    if fmt == "markdown":
        return to_markdown(frame)
    raise ValueError(f"unknown format {fmt!r}")


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
        for row in _text_rows(frame)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_report(title: str, sections: Sequence[tuple[str, str, object]], notes: str) -> str:
    """One self-contained HTML file: plotly.js is inlined once, nothing is fetched.

    `sections` holds (heading, explanation, content) where content is a Figure or a table.
    """
    parts, plotly_inlined = [], False
    for heading, explanation, content in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2><p>{html.escape(explanation)}</p>")
        if isinstance(content, go.Figure):
            parts.append(
                content.to_html(
                    full_html=False,
                    include_plotlyjs=not plotly_inlined,
                    config={"displaylogo": False},
                )
            )
            plotly_inlined = True
        else:
            parts.append(_html_table(content))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px;
       color: #222; }}
table {{ border-collapse: collapse; font-size: 0.85rem; margin-bottom: 1rem; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; }}
th {{ background: #f4f4f4; }}
.notes {{ background: #fff8e6; padding: 0.8rem 1rem; border-left: 4px solid #d95f02; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="notes">{html.escape(notes)}</p>
{"".join(parts)}
<p><small>Generated by leakeval on {stamp}.</small></p>
</body></html>
"""
