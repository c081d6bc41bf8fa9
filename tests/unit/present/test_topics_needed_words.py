"""What a reader concludes from the topics a verdict needs: the `no evidence` sentence in
every case (the collection detects the smallest δ, some δ, none), the compact cell and
the CSV columns, with no "nan" anywhere and huge counts said sensibly."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from leakeval_core.analysis.topic_set_size import topics_needed_split
from leakeval_core.present.story import answer_line, needed_clause
from leakeval_core.present.tables import (
    NBSP,
    flat_topics_needed,
    format_table,
    needed_text,
    topics_text,
)

NEEDED = [
    {"delta": 0.01, "leaked": 7436, "other": 10269},
    {"delta": 0.02, "leaked": 1861, "other": 2569},
    {"delta": 0.05, "leaked": 20, "other": 28},
]


def test_a_collection_that_detects_some_deltas_says_which_and_what_the_smallest_needs():
    clause = needed_clause(21, 29, NEEDED, "core17")
    assert clause == (
        "core17's 21 leaked and 29 other topics detect 0.05 but not 0.01 or 0.02: 0.01 would "
        "need about 7,436 leaked and 10,269 other topics"
    )
    # one δ missed: "it"; and the sentence never says "0.05 or more" beside the mde's
    assert needed_clause(21, 29, NEEDED[1:], "core17") == (
        "core17's 21 leaked and 29 other topics detect 0.05 but not 0.02: it would need about "
        "1,861 leaked and 2,569 other topics"
    )


def test_a_collection_that_detects_the_smallest_delta_says_so_and_no_more():
    assert needed_clause(8000, 11000, NEEDED, "big") == (
        "big's 8,000 leaked and 11,000 other topics detect 0.01 or more"
    )


def test_a_collection_that_detects_none_says_what_even_the_largest_needs():
    clause = needed_clause(10, 29, NEEDED)  # one side short is short: 20 leaked needed
    assert clause == (
        "its 10 leaked and 29 other topics detect none of 0.01, 0.02, 0.05: even 0.05 would "
        "need about 20 leaked and 28 other topics, and 0.01 about 7,436 and 10,269"
    )
    assert needed_clause(10, 29, NEEDED[:1]) == (
        "its 10 leaked and 29 other topics do not detect 0.01: it would need about 7,436 "
        "leaked and 10,269 other topics"
    )


def test_a_row_that_cannot_say_adds_no_clause_and_no_nan():
    untestable = topics_needed_split([0.1, 0.2], [0.0] * 10, float("nan"), (0.01, 0.05))
    assert needed_clause(2, 10, untestable) == ""
    assert needed_text(untestable) == f"–{NBSP}· –"
    row = {
        "verdict": "no evidence",
        "difference": 0.001,
        "ci_low": -0.05,
        "ci_high": 0.05,
        "mde": 0.07,
        "leaked_topics": 30,
        "other_topics": 60,
        "topics_needed": untestable,
    }
    from leakeval_core.evaluation.measures import parse_measure

    line = answer_line(row, parse_measure("ndcg_cut_10"))
    assert line.endswith("an inflation of 0.07 would have been detected")
    line = answer_line({**row, "topics_needed": NEEDED}, parse_measure("ndcg_cut_10"))
    assert line.endswith(
        "detect 0.05 but not 0.01 or 0.02: 0.01 would need about 7,436 leaked and 10,269 "
        "other topics"
    )


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (None, "–"),
        (7, "7"),
        (4213, "4,213"),
        (999_999, "999,999"),
        (2_345_678, "2.3 million"),
        (461_015_464, "461.0 million"),
        (3 * 10**9, "3.0 billion"),
        (10**13, "over a trillion"),
    ],
)
def test_a_count_of_topics_reads_as_a_count(n, text):
    assert topics_text(n) == text


def test_the_cell_and_the_csv_hold_the_same_numbers():
    frame = pd.DataFrame(
        {
            "model": ["a", "b"],
            "mde": [0.1, float("nan")],
            "topics_needed": [NEEDED, [dict(e, leaked=None, other=None) for e in NEEDED]],
            "verdict": ["no evidence", "cannot tell"],
        }
    )
    cell = needed_text(NEEDED)
    assert cell.replace(NBSP, " ") == "7,436 / 10,269 · 1,861 / 2,569 · 20 / 28"
    # a narrow column breaks the cell only after a "·", never inside one δ's figures
    assert [line.strip() for line in cell.split(" ")] == [
        f"7,436{NBSP}/{NBSP}10,269{NBSP}·",
        f"1,861{NBSP}/{NBSP}2,569{NBSP}·",
        f"20{NBSP}/{NBSP}28",
    ]
    flat = flat_topics_needed(frame)
    assert list(flat.columns) == [
        "model",
        "mde",
        "topics_needed_0.01_leaked",
        "topics_needed_0.01_other",
        "topics_needed_0.02_leaked",
        "topics_needed_0.02_other",
        "topics_needed_0.05_leaked",
        "topics_needed_0.05_other",
        "verdict",
    ]
    assert flat.iloc[0, 2:8].tolist() == [7436, 10269, 1861, 2569, 20, 28]
    assert flat.iloc[1, 2:8].isna().all()
    csv = format_table(frame, "csv")
    assert "7436,10269,1861,2569,20,28" in csv and "nan" not in csv.lower()
    markdown = format_table(frame, "markdown")
    assert cell in markdown
    latex = format_table(pd.DataFrame({"topics needed": [cell]}), "latex")  # a kept space
    assert "7,436~/~10,269~$\\cdot$ 1,861" in latex and NBSP not in latex
    assert not re.search(r"\bnan\b", markdown, re.I)


def test_paired_rows_flatten_to_one_column_per_delta():
    frame = pd.DataFrame({"a": ["x"], "topics_needed": [[{"delta": 0.02, "topics": 812}]]})
    assert flat_topics_needed(frame).to_dict("records") == [{"a": "x", "topics_needed_0.02": 812}]
    assert needed_text(frame.topics_needed.iloc[0]) == "812"


def test_every_text_table_names_the_deltas_and_dashes_what_a_row_cannot_say():
    """A Markdown table (`leakeval audit`, `leakeval inflation`) and the report's HTML head
    the column with the δs its counts are for, and show "–", never "<NA>", where a row
    cannot say (a cannot-tell row, a flat column of counts with one missing)."""
    from leakeval_core.present.tables import html_table, to_markdown

    frame = pd.DataFrame(
        {
            "model": ["a", "b"],
            "topics_needed": [NEEDED, [dict(e, leaked=None, other=None) for e in NEEDED]],
            "verdict": ["no evidence", "cannot tell"],
        }
    )
    header = "Topics for δ 0.01 · 0.02 · 0.05 (leaked / other)"
    markdown = format_table(frame, "markdown")
    assert markdown.splitlines()[0] == f"| model | {header} | verdict |"
    assert f"| b | –{NBSP}· –{NBSP}· – | cannot tell |" in markdown
    assert f"<th>{header}</th>" in html_table(frame)
    paired = pd.DataFrame({"a": ["x"], "topics_needed": [[{"delta": 0.02, "topics": 812}]]})
    assert to_markdown(paired).splitlines()[0] == "| a | Topics for δ 0.02 |"
    flat = flat_topics_needed(frame)  # Int64 counts, missing on the cannot-tell row
    shown = to_markdown(flat)
    assert "<NA>" not in shown and "| b | – | – | – | – | – | – | cannot tell |" in shown
    assert "<NA>" not in html_table(flat)
