"""Formatting at the edge: tables as CSV / LaTeX / Markdown (and HTML, for the report).

Compute code never rounds; this module is the only place numbers become text.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import pandas as pd

from leakeval_core.present.display import best_first, rank_interval

__all__ = [
    "NBSP",
    "PROBABILITY_COLUMNS",
    "flat_topics_needed",
    "format_table",
    "html_table",
    "leaderboard_frame",
    "leaderboard_latex",
    "needed_header",
    "needed_text",
    "to_latex",
    "to_markdown",
    "topics_text",
]

PROBABILITY_COLUMNS = {  # shown in scientific notation when tiny, wherever a table is shown
    "p",
    "p_adjusted",
}


def topics_text(n: int | None) -> str:
    """A count of topics as a reader takes it in: "4,213", "1.2 million"; "–" for none."""
    if n is None:
        return "–"
    if n >= 10**12:
        return "over a trillion"
    for scale, word in ((10**9, "billion"), (10**6, "million")):
        if n >= scale:
            return f"{n / scale:.1f} {word}"
    return f"{n:,}"


NBSP = "\u00a0"
"""A space a line never breaks at."""


def needed_text(entries: list[dict]) -> str:
    """A row's `topics_needed` in one cell: each δ's topics, "leaked / other" for a
    leaked-vs-other row, joined by " · " in the δs' order; "–" where the row cannot say.

    A narrow column wraps the cell only after a " ·": each δ's figures stay on one line
    ("1,916 / 1,530", never "1,916 /" above "1,530"), so no count is read with another
    δ's."""
    parts = []
    for entry in entries:
        if "topics" in entry:
            parts.append(topics_text(entry["topics"]))
        elif entry["leaked"] is None:
            parts.append("–")
        else:
            parts.append(f"{topics_text(entry['leaked'])} / {topics_text(entry['other'])}")
    return f"{NBSP}· ".join(part.replace(" ", NBSP) for part in parts) if parts else "–"


def needed_header(column: Sequence[list[dict]]) -> str:
    """The header of a `topics_needed` column shown as text (`needed_text`): which δs its
    cells give, in their order, and what each figure is ("Topics for δ 0.01 · 0.02 · 0.05
    (leaked / other)", or "Topics for δ 0.02" for paired rows). A bare "topics_needed"
    would leave the reader to guess which δ a count is for; every table that shows the
    column as text (Markdown, the report, the app) heads it with this."""
    first = next((entries for entries in column if len(entries)), [])
    if not first:
        return "Topics needed"
    deltas = " · ".join(f"{entry['delta']:g}" for entry in first)
    return f"Topics for δ {deltas}" + ("" if "topics" in first[0] else " (leaked / other)")


def flat_topics_needed(frame: pd.DataFrame) -> pd.DataFrame:
    """`topics_needed` (a list per row, as the JSON has it) as a column per δ and side, as a
    CSV holds it: topics_needed_0.02_leaked and _other, or topics_needed_0.02 for a paired
    row; empty where the row cannot say."""
    if "topics_needed" not in frame or frame.empty:
        return frame
    columns: dict[str, list] = {}
    for row, entries in enumerate(frame.topics_needed):
        for entry in entries:
            sides = ("topics",) if "topics" in entry else ("leaked", "other")
            for side in sides:
                name = f"topics_needed_{entry['delta']:g}" + (
                    "" if side == "topics" else f"_{side}"
                )
                columns.setdefault(name, [None] * len(frame))[row] = entry[side]
    flat = pd.DataFrame(
        {k: pd.array(v, dtype="Int64") for k, v in columns.items()}, index=frame.index
    )
    at = frame.columns.get_loc("topics_needed")
    return pd.concat([frame.iloc[:, :at], flat, frame.iloc[:, at + 1 :]], axis=1)


def _cell(column: str, value: object, digits: int = 4) -> str:
    if isinstance(value, list):
        return needed_text(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value is pd.NA:  # a figure the row cannot give, as NaN is
        return "–"
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


def _headers(frame: pd.DataFrame) -> list[str]:
    """The columns' names as a text table heads them: `topics_needed` says its δs."""
    return [needed_header(frame[c]) if c == "topics_needed" else str(c) for c in frame.columns]


def to_markdown(frame: pd.DataFrame) -> str:
    header = "| " + " | ".join(_headers(frame)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(row) + " |" for row in _text_rows(frame)]
    return "\n".join([header, rule, *body]) + "\n"


_LATEX_SPECIALS = (
    ("\\", r"\textbackslash{}"),
    ("&", r"\&"),
    ("%", r"\%"),
    ("$", r"\$"),
    ("#", r"\#"),
    ("_", r"\_"),
    ("{", r"\{"),
    ("}", r"\}"),
    ("~", r"\textasciitilde{}"),
    ("^", r"\textasciicircum{}"),
)
_LATEX_UNICODE = {
    "α": r"$\alpha$",
    "τ": r"$\tau$",
    "ρ": r"$\rho$",
    "Δ": r"$\Delta$",
    "−": "-",
    "–": "--",
    "—": "---",
    "×": r"$\times$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "†": r"$^\dagger$",
    "✱": "*",
    "…": r"\ldots{}",
    "·": r"$\cdot$",
    "’": "'",
    NBSP: "~",
    "“": "``",
    "”": "''",
}
"""Characters outside ASCII that leakeval's captions use, as plain LaTeX: pdflatex without
unicode packages rejects them."""

LATEX_COLUMNS = (
    "n",
    "gain_leaked",
    "gain_other",
    "delta",
    "difference",
    "interval",
    "p_adjusted",
    "mde",
    "verdict",
)
"""The figures a paper's table keeps, beside the columns that say which row it is: the
rest (test statistic, raw p, wins, ties) stay in the CSV, so the table fits a column."""
LATEX_LEFT_OUT = ("significant", "leaked_topics", "other_topics")
"""Columns a paper's table leaves out wherever they stand: the dagger marks significance, and
the caption's leaked rule gives the leaked and other topics per collection."""
LATEX_HEADERS = {
    "gain_leaked": "leaked",
    "gain_other": "other",
    "difference": "diff.",
    "p_adjusted": "adj. $p$",
    "interval": "interval",
}
"""Short headers (already LaTeX) for the key columns, so a table fits the text width."""


def _latex_escape(text: str) -> str:
    for char, escaped in _LATEX_SPECIALS:
        text = text.replace(char, escaped)
    for char, replacement in _LATEX_UNICODE.items():
        text = text.replace(char, replacement)
    # anything else beyond ASCII: dropped rather than breaking the document
    return text.encode("ascii", "ignore").decode()


def latex_columns(frame: pd.DataFrame) -> list[str]:
    """The columns of a paper's table: those that say which row it is (every column before
    the first figure), then the key figures."""
    columns = [c for c in frame.columns if c not in LATEX_LEFT_OUT]
    figures = [i for i, c in enumerate(columns) if c in LATEX_COLUMNS]
    if not figures:
        return columns
    return columns[: figures[0]] + [c for c in LATEX_COLUMNS if c in frame.columns]


def to_latex(
    frame: pd.DataFrame,
    caption: str,
    mark: str = "delta",
    superscripts: Mapping[str, str] | None = None,
) -> str:
    """A booktabs table that pdflatex compiles as it is: ASCII only, numbers right-aligned,
    the key columns (`latex_columns`); the `mark` cell of every significant row gets a
    dagger. `superscripts` maps a column to the column of letters printed as its cells'
    superscripts (a leaderboard's groups: 0.452$^{ab}$), which are not columns of their
    own."""
    superscripts = dict(superscripts or {})
    letters = {letter: frame[letter] for letter in superscripts.values()}
    frame = frame.drop(columns=list(letters))
    if {"ci_low", "ci_high"} <= set(frame.columns):  # one column, as a paper writes it
        frame = frame.assign(
            interval=[
                f"[{_cell('ci_low', low, 3)}, {_cell('ci_high', high, 3)}]"
                for low, high in zip(frame.ci_low, frame.ci_high, strict=True)
            ]
        )
    columns = latex_columns(frame)
    align = "".join("r" if c in LATEX_COLUMNS or c in superscripts else "l" for c in columns)
    lines = [
        r"% needs \usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\setlength{\tabcolsep}{4pt}",
        r"\begin{tabular}{" + align + "}",
        r"\toprule",
        " & ".join(LATEX_HEADERS.get(c, _latex_escape(str(c))) for c in columns) + r" \\",
        r"\midrule",
    ]
    significant = frame["significant"] if "significant" in frame else pd.Series(False, frame.index)
    mark = mark if mark in columns else next((c for c in ("difference",) if c in columns), mark)
    for (_, row), flag in zip(frame[columns].iterrows(), significant, strict=True):
        cells = [_latex_escape(_cell(c, row[c], 3)) for c in columns]
        if flag and mark in columns:
            cells[columns.index(mark)] += r"$^\dagger$"
        for column, letter in superscripts.items():
            given = letters[letter].loc[row.name]
            if column in columns and isinstance(given, str) and given:
                cells[columns.index(column)] += rf"$^{{\mathrm{{{_latex_escape(given)}}}}}$"
        lines.append(" & ".join(cells) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{_latex_escape(caption)}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


LEADERBOARD_SETS = (("all", ""), ("clean", "clean_"))
"""A leaderboard's topic sets and the prefix of their columns (`Leaderboard.table`)."""


def leaderboard_frame(table: pd.DataFrame, places: Sequence[str] = ()) -> pd.DataFrame:
    """The leaderboard (`Leaderboard.table`) as a paper prints it: the `places` that vary,
    the system, then for all and for clean topics its mean as scored, its HSD group letters
    and its rank interval ("1–3"), best first on all topics. How many topics each set holds
    is in its header ("all topics (249)"), or in a column where it varies by row."""
    if table.empty:
        return table
    varying = [p for p in places if p in table and table[p].nunique() > 1]
    ordered = best_first(table, places)
    out = ordered[[*varying, "system"]].astype(str)
    for name, prefix in LEADERBOARD_SETS:
        counts = ordered[f"{prefix}topics"]
        header = f"{name} topics"
        if counts.nunique() == 1:
            header += f" ({int(counts.iloc[0])})"
        else:
            out[f"n ({name})"] = counts.astype(int)
        out[header] = ordered[f"{prefix}mean"].astype(float)
        out[f"group ({name})"] = ordered[f"{prefix}group"].fillna("")
        out[f"ranks ({name})"] = [
            rank_interval(low, high)
            for low, high in zip(
                ordered[f"{prefix}rank_low"], ordered[f"{prefix}rank_high"], strict=True
            )
        ]
    return out.reset_index(drop=True)


def leaderboard_latex(table: pd.DataFrame, places: Sequence[str], caption: str) -> str:
    """`leaderboard_frame` as a booktabs table, each mean with its group letters as a
    superscript (0.452$^{ab}$), as papers print a Tukey HSD's groups."""
    frame = leaderboard_frame(table, places)
    means = {c.split(" ")[0]: c for c in frame.columns if " topics" in c}
    return to_latex(
        frame, caption, superscripts={column: f"group ({name})" for name, column in means.items()}
    )


def csv_notes(notes: tuple[str, ...]) -> str:
    """A CSV's heading: its notes (the collections' conventions:
    `PerQuery.conventions_notes`) as `#` lines, which `pandas.read_csv(comment="#")` skips;
    nothing without one, so that a CSV of leakeval's defaults reads as any other."""
    return "".join(f"# {note}\n" for note in notes)


def format_table(
    frame: pd.DataFrame, fmt: str, caption: str = "", notes: tuple[str, ...] = ()
) -> str:
    """`frame` as CSV (headed by its `notes`, `csv_notes`), LaTeX or Markdown (under its
    caption)."""
    if fmt == "csv":
        return csv_notes(notes) + flat_topics_needed(frame).to_csv(index=False, float_format="%.6g")
    if fmt == "latex":
        return to_latex(frame, caption)
    if fmt == "markdown":
        return to_markdown(frame) + (f"\nTable: {caption}\n" if caption else "")
    raise ValueError(f"unknown format {fmt!r}")


def html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in _headers(frame))
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
        for row in _text_rows(frame)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
