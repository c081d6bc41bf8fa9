"""The contamination card's wording: honest about coverage and verdicts, never HTML or nan."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from leakeval_core.api import card
from leakeval_core.cli import main
from leakeval_core.leakage.logs import TrainingLog
from leakeval_core.present.card import log_text, markdown_text

TOPICS = pd.DataFrame(
    {"qid": ["1", "2", "3"], "title": ["cheap flights", "tax law", "<b>bold</b> | pipes"]}
)


def test_free_text_cannot_break_a_table_or_become_html():
    assert markdown_text("a | b <script>x</script>\n*c*") == (
        r"a \| b \<script\>x\</script\> \*c\*"
    )


@pytest.mark.parametrize(
    ("log", "coverage", "text"),
    [
        (
            TrainingLog("s.tsv", 18_093, "msmarco-document/train"),
            18_093 / 367_013,
            "s.tsv: 18,093 queries, 4.9% of msmarco-document/train (367,013)",
        ),
        (TrainingLog("orcas"), 1.0, "orcas: the whole log (10,405,342 queries)"),
        (
            TrainingLog("mine.tsv", 50),
            None,
            "mine.tsv: 50 queries; which training data it samples is not declared (--sample-of)",
        ),
        (TrainingLog("s.tsv", None, "orcas"), None, None),
    ],
)
def test_a_log_says_how_much_of_the_training_data_it_covers(log, coverage, text):
    assert log.coverage == pytest.approx(coverage) if coverage else log.coverage is None
    if text:
        assert log_text(log) == text


def test_a_share_of_zero_from_a_small_log_does_not_read_as_clean():
    empty = pd.DataFrame(
        {"test_qid": ["1"], "train_qid": ["7"], "train_text": ["x"], "similarity": [0.1]}
    )
    made = card(topics=TOPICS, leakage=empty, model="mine")
    text = made.markdown
    assert "| 0 of 3 (0%) |" in text
    assert "not that the collection is clean" in text
    assert "each leaked share is a lower bound" in text
    assert "No runs were given" in text
    assert "no command makes this card again" in text  # given in memory
    assert "nan" not in text.lower() and "nan" not in made.to_json().lower()
    figures = json.loads(made.to_json())
    assert figures["collections"][0]["study_share"] is None  # a collection the study lacks


def test_an_example_pair_is_escaped_and_falls_back_to_the_topic_title():
    pairs = pd.DataFrame(
        {"test_qid": ["3"], "train_qid": ["9"], "train_text": ["a|b"], "similarity": [0.95]}
    )
    text = card(topics=TOPICS, leakage=pairs).markdown
    assert r'topic 3 "\<b\>bold\</b\> \| pipes" ↔ training query 9 "a\|b" (given 0.950)' in text
    assert "| 1 of 3 (33%) |" in text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], "give an experiment folder, --run and --baseline (with --qrels unless"),
        (["--topics", "t.txt"], "give an experiment folder, --run and --baseline (with"),
        (["--qrels", "q.txt"], "give --run (one per model) and --baseline"),
        (["--run", "r.run"], "give --run (one per model) and --baseline"),
        (["--pairs", "p.csv"], "--baseline and --pairs go with --run"),
        (["--qrels", "q", "--collection", "a"], "--collection picks among an experiment"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, args, says):
    assert main(["card", *args, "--out", str(tmp_path / "card.md")]) == 2
    err = capsys.readouterr().err
    assert err == f"leakeval: {says}" + err.removeprefix(f"leakeval: {says}")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("out", "says"),
    [("card.json", "name the Markdown file"), ("missing/card.md", "no such folder")],
)
def test_an_output_it_cannot_write_is_one_line(tmp_path, capsys, out, says):
    assert main(["card", "x", "--out", str(tmp_path / out)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
