"""`leakeval card` on the shipped real example: every figure on the card is read back from its
Markdown (not from the builder) and held to `leakeval audit --json`; the command printed on
the card writes the same card; bad input is one line."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from leakeval_core.cli import main
from leakeval_core.evaluation.measures import parse_measure
from tests.support import realdata


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every GitHub table in `text`, as rows of {header: cell}, escapes undone."""
    tables, block = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append([_unescape(c.strip()) for c in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif block:
            header, _, *rows = block
            tables.append([dict(zip(header, row, strict=True)) for row in rows])
            block = []
    return tables


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def command_of(card: str) -> list[str]:
    """The reproduce command's arguments after `leakeval`."""
    (block,) = re.findall(r"```bash\n(.*?)\n```", card, re.S)
    words = shlex.split(block)
    assert words[0] == "leakeval"
    return words[1:]


def signed(value: float) -> str:
    """As the card rounds a gain in a higher-is-better measure: three decimals, signed."""
    text = f"{value:+.3f}"
    return "0.000" if float(text) == 0 else text


def made(tmp_path: Path, *args: str) -> tuple[str, dict]:
    out = tmp_path / "card.md"
    assert main(["card", *args, "--out", str(out)]) == 0
    return out.read_text(), json.loads(out.with_suffix(".json").read_text())


def audited(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "audit.json"
    assert main(["audit", *args, "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_every_figure_on_the_card_is_the_audits(real_audit, tmp_path, capsys):
    card, _ = made(tmp_path, str(real_audit))
    audit = audited(tmp_path, str(real_audit))
    capsys.readouterr()
    assert audit["scoring_warnings"] == []  # real BM25 and BM25+RM3 runs: well judged
    leakage, verdicts = markdown_tables(card)
    assert "<" not in card and "nan" not in card.lower()

    # the leaked share: the audit's own count of leaked topics among those counted
    assert len(leakage) == len(audit["leaked"]) == 2
    for row in leakage:
        said = audit["leaked"][row["Collection"]]  # "19 leaked of 25 judged topics: …"
        leaked, counted, rule = re.fullmatch(
            r"(\d+) leaked of (\d+) judged topics(?: \(.*\))?: (.*)", said
        ).groups()
        assert (
            row["Leaked topics"]
            == f"{leaked} of {counted} ({round(100 * int(leaked) / int(counted))}%)"
        )
        assert row["Rule"] == rule == "human-judged pairs"
        assert row["Training log searched"] == "none by leakeval: people judged candidate pairs"
    assert f"Leakage pairs: {audit['leakage']}." in card

    # the verdicts: each audited row, in the audit's order, with its interval and mde
    rows = [r for r in audit["audit"] if r["split"] == "leaked"]
    assert len(verdicts) == len(rows) == 3
    measure = parse_measure(audit["measure"])
    assert f"{measure.label} gain over {audit['baseline']}" in card
    assert audit["statistics"] in card
    for shown, row in zip(verdicts, rows, strict=True):
        assert (shown["collection"], shown["model"]) == (row["collection"], row["model"])
        assert shown["Verdict"] == row["verdict"] == "no evidence"
        assert shown["Gain, leaked"] == signed(row["gain_leaked"])
        assert shown["Gain, other"] == signed(row["gain_other"])
        assert shown["Leaked − other"] == signed(row["difference"])
        assert shown["Interval"] == f"[{signed(row['ci_low'])}, {signed(row['ci_high'])}]"
        assert shown["Confidence"] == f"{row['confidence']:.1%}"
        assert shown["Adjusted p"] == f"{row['p_adjusted']:.2g}"
        assert shown["mde"] == f"{row['mde']:.3f}"
        assert shown["Topics (leaked / other)"] == f"{row['leaked_topics']} / {row['other_topics']}"
    assert "would have found one of the row's mde or more" in card  # what no evidence means


def test_the_example_pairs_and_categories_are_the_judged_near_duplicates(real_audit, tmp_path):
    card, figures = made(tmp_path, str(real_audit))
    judged = pd.read_csv(real_audit / "judged-pairs.csv", dtype=str, keep_default_na=False)
    near = judged[judged.near_duplicate == "1"]
    examples = re.findall(
        r'^- (\w+), topic (\d+) "(.*)" ↔ training query (\d+) "(.*)" \((\w+); judged\)$',
        card,
        re.M,
    )
    assert len(examples) == 10  # five a collection
    pairs = set(zip(near.collection, near.test_qid, near.train_qid, near.category, strict=True))
    for collection, topic, _, train_qid, train_text, category in examples:
        assert (collection, topic, train_qid, category) in pairs
        assert _unescape(train_text) in set(near.train_text[near.train_qid == train_qid])
    counts = near.groupby(["collection", "category"]).size()
    for row in markdown_tables(card)[0]:
        for part in row["Categories of the leaked pairs"].split(", "):
            category, count = part.rsplit(" ", 1)
            assert counts[(row["Collection"], category)] == int(count)
    assert {(r["collection"], r["category"]): r["pairs"] for r in figures["categories"]} == (
        counts.to_dict()
    )


@pytest.mark.parametrize(
    "options",
    [
        [],
        [
            "--collection",
            "core18",
            "--model",
            "bm25-rm3",
            "--test",
            "randomization",
            "--alpha",
            "0.1",
        ],
        ["--measure", "P_1", "--threshold", "0.5", "--depth", "50"],
    ],
    ids=["defaults", "one-model-randomization", "other-conventions"],
)
def test_the_command_on_the_card_writes_the_same_card(real_audit, tmp_path, monkeypatch, options):
    monkeypatch.chdir(real_audit.parent)
    first = tmp_path / "first.md"
    assert main(["card", real_audit.name, *options, "--out", str(first)]) == 0
    card = first.read_text()
    command = command_of(card)
    assert command[:2] == ["card", real_audit.name]
    assert command[-2:] == ["--out", "first.md"]  # the file's name, never where it sat
    assert main(command) == 0
    assert Path("first.md").read_text() == card
    assert Path("first.json").read_text() == first.with_suffix(".json").read_text()


def test_the_command_names_a_folder_under_the_current_one_from_there(
    real_audit, tmp_path, monkeypatch
):
    """An experiment opened by its whole path (as the app opens it): the card pasted into a
    pull request carries no home directory, and still runs where it was made."""
    monkeypatch.chdir(real_audit.parent)
    out = tmp_path / "card.md"
    assert main(["card", str(real_audit.resolve()), "--out", str(out)]) == 0
    assert command_of(out.read_text())[:2] == ["card", real_audit.name]


def test_a_card_of_run_files_says_the_command_that_makes_it_again(
    real_audit, tmp_path, monkeypatch
):
    qrels = realdata("core18", "qrels.txt")
    monkeypatch.chdir(real_audit)
    inputs = [
        "--qrels", str(qrels),
        "--run", "runs/core18/bm25-rm3.run",
        "--baseline", "runs/core18/bm25.run",
        "--pairs", "judged-pairs.csv",
    ]  # fmt: skip
    card, figures = made(tmp_path, *inputs)
    assert command_of(card) == ["card", *inputs, "--out", "card.md"]
    assert main(command_of(card)) == 0
    assert Path("card.md").read_text() == card
    # the run files' audit is the experiment's, restricted to the pairs' topics
    (row,) = figures["audit"]
    assert (row["system"], row["leaked_topics"]) == ("bm25-rm3", 19)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--collection", "nope"], "unknown collection 'nope'; collections: core18, robust04"),
        (["--model", "nope"], "no audited model 'nope'; models: bm25-rm3, bm25-rm3-desc"),
        (["--pairs", "judged-pairs.csv"], "--pairs: an experiment folder brings its own"),
        (["--baseline", "nope"], "'nope' is not a level of model"),
    ],
)
def test_bad_input_on_an_experiment_is_one_line(real_audit, tmp_path, capsys, args, says):
    assert main(["card", str(real_audit), *args, "--out", str(tmp_path / "card.md")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("leakeval: ") and says in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "card.md").exists()


@pytest.mark.demo
def test_twins_are_carded_by_model_against_their_clean_twins(demo_dir, tmp_path):
    card, figures = made(tmp_path, str(demo_dir), "--model", "colbert", "--collection", "core18")
    assert card.startswith("## Contamination card: colbert on core18\n")
    assert (
        "gain over its clean twin (leakage none; gains oriented: higher is better, so positive "
        "is an improvement)" in card
    )
    assert {(r["model"], r["leakage"]) for r in figures["audit"]} == {("colbert", "leaked")}
    # the demo detects its pairs: the command names the method, whatever is installed
    assert command_of(card)[-4:-2] == ["--method", figures["method"]]
