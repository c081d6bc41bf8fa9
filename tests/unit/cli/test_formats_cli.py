"""The CLI's verbs read the benchmarks' formats, and `--format` names one."""

from __future__ import annotations

import json

import pytest

from leakeval_core.cli import main
from tests import formats as fmt


@pytest.fixture
def study(tmp_path):
    return fmt.beir_experiment(tmp_path / "study")


def means(out: str) -> dict[str, list[str]]:
    rows = [line.split() for line in out.strip().splitlines()]
    return {row[0]: row[1:] for row in rows[1:]}


def test_score_reads_beir_qrels_and_mteb_predictions(study, tmp_path, capsys):
    runs = study / "runs"
    assert main(["score", "--qrels", str(study / "beir"), "--run", str(runs / "mine.json")]) == 0
    from_beir = means(capsys.readouterr().out)
    trec_qrels = tmp_path / "qrels.txt"
    lines = (study / "beir" / "qrels" / "test.tsv").read_text().splitlines()[1:]
    trec_qrels.write_text("".join(line.replace("\t", " 0 ", 1) + "\n" for line in lines))
    trec_run = tmp_path / "mine.run"
    trec_run.write_text(
        "".join(f"{q} Q0 {d} 0 {s} x\n" for q, docs in fmt.RUN.items() for d, s in docs.items())
    )
    assert main(["score", "--qrels", str(trec_qrels), "--run", str(trec_run)]) == 0
    assert means(capsys.readouterr().out)["mine"] == from_beir["mine"]  # named alike


def test_format_names_what_the_content_does_not_tell(study, tmp_path, capsys):
    """A ranx run saved under a TREC-looking name reads as JSON once named so."""
    odd = tmp_path / "mine.run"
    odd.write_text(json.dumps(fmt.RUN))
    args = ["score", "--qrels", str(study / "beir"), "--run", str(odd)]
    assert main([*args, "--format", "ranx", "--format", "qrels=beir"]) == 0
    assert "mine" in means(capsys.readouterr().out)
    assert main([*args, "--format", "trec"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"leakeval: {odd}:1: ") and "\n" not in err
    assert main([*args, "--format", "judgments=beir"]) == 2
    assert "ROLE is one of run, qrels" in capsys.readouterr().err


def test_audit_reads_the_formats(study, capsys):
    runs = study / "runs"
    code = main(
        [
            "audit",
            "--qrels",
            str(study / "beir"),
            "--run",
            str(runs / "mine.json"),
            "--baseline",
            str(runs / "bm25.json"),
            "--pairs",
            str(_pairs(study)),
            "--measure",
            "P_1",
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert "| mine |" in capsys.readouterr().out


def test_a_malformed_prediction_file_is_one_line_exit_2(study, capsys):
    bad = study / "runs" / "bad.json"
    bad.write_text('{"q1": {"d1": 1.0,\n "d2": null}}')
    assert main(["score", "--qrels", str(study / "beir"), "--run", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"leakeval: {bad}:1: query 'q1', docid 'd2': null is not a finite number"


def _pairs(study):
    path = study / "pairs.csv"
    path.write_text("test_qid\nq1\nq2\nq3\n")
    return path


def test_leakage_reads_a_beir_folders_topics_and_names_a_logs_format(study, tmp_path, capsys):
    """The topics from a BEIR folder, the log from JSON lines under a name that does not
    tell (`--format train-queries=jsonl`): the one topic asked again in the log leaks."""
    log = tmp_path / "log.txt"
    log.write_text(json.dumps({"_id": "t1", "text": "query q1"}) + "\n")
    out = tmp_path / "pairs.csv"
    args = ["leakage", "--topics", str(study / "beir"), "--train-queries", str(log)]
    args += ["--method", "lexical", "--out", str(out)]
    assert main([*args, "--format", "jsonl"]) == 0, capsys.readouterr().err
    pairs = out.read_text().splitlines()
    flagged = [line for line in pairs[1:] if line.endswith(",True")]
    assert [line.split(",")[0] for line in flagged] == ["q1"]
    assert "1 of 6 topics" in capsys.readouterr().err  # the test split's, not the log's
    assert main([*args, "--format", "judgments=jsonl"]) == 2
    assert "ROLE is one of train-queries, topics" in capsys.readouterr().err
