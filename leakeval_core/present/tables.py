"""Formatting at the edge: tables as CSV / LaTeX / Markdown (and HTML, for the report).

Compute code never rounds; this module is the only place numbers become text.
"""

from __future__ import annotations

import html
import math

import pandas as pd

__all__ = ["PROBABILITY_COLUMNS", "format_table", "html_table", "to_latex", "to_markdown"]

PROBABILITY_COLUMNS = {  # shown in scientific notation when tiny, wherever a table is shown
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
        if column in PROBABILITY_COLUMNS:
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
        return to_markdown(frame) + (f"\nTable: {caption}\n" if caption else "")
    raise ValueError(f"unknown format {fmt!r}")


def html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
        for row in _text_rows(frame)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
