"""The leaked rule on small pairs: each pair at its own method's threshold, judged pairs as
judged, files read with their sidecar or their near_duplicate column, errors at their line,
and the sample warning."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from leakeval_core.api.inputs import leakage_pairs
from leakeval_core.api.study import collection_of
from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.leakage.given import pairs_from_frame, read_pairs
from leakeval_core.leakage.labels import read_labels
from leakeval_core.leakage.logs import TrainingLog, sample_warnings
from leakeval_core.leakage.rule import JUDGED, LeakageTable
from tests.support import write

HEADER = "test_qid,train_qid,method,similarity\n"


def pairs(rows: str, name: str = "pairs") -> LeakageTable:
    return leakage_pairs(pairs_from_frame(pd.read_csv(_io(HEADER + rows), dtype=str), name), "c")


def _io(text: str):
    import io

    return io.StringIO(text)


def test_each_pair_is_cut_at_its_own_methods_threshold():
    table = pairs("1,a,lexical,0.70\n2,b,lexical,0.60\n3,c,hybrid,0.40\n4,d,other,0.79\n")
    assert sorted(table.leaked().qid) == ["1", "3"]  # lexical 0.691, hybrid 0.39, given 0.8
    assert table.method == "lexical" and table.threshold == pytest.approx(0.691)
    assert sorted(table.leaked(0.5).qid) == ["1", "2", "4"]


def test_judged_pairs_are_leaked_as_judged_at_any_threshold():
    frame = pd.DataFrame({"qid": ["1", "2", "3"], "near_duplicate": ["1", "0", "true"]})
    table = leakage_pairs(frame, "c")
    assert set(table.table.method) == {JUDGED}
    for threshold in (None, 0.0, 1.0):
        assert sorted(table.leaked(threshold).qid) == ["1", "3"]
    assert leakage_pairs(["7", 8], "c").leaked().qid.tolist() == ["7", "8"]


def test_statements_say_how_many_and_by_which_rule():
    topics = pd.DataFrame({"collection": "c", "qid": [str(q) for q in range(1, 11)]})
    detected = pairs("1,a,lexical,0.70\n2,b,lexical,0.60\n")
    judged = leakage_pairs(["2", "3"], "c")
    both = LeakageTable.union([detected, judged])
    assert detected.statements(topics) == {"c": "1 leaked of 10: lexical similarity ≥ 0.691"}
    assert judged.statements(topics) == {"c": "2 leaked of 10: human-judged pairs"}
    assert both.statements() == {"c": "3 leaked: human-judged pairs or lexical similarity ≥ 0.691"}
    assert detected.statements(topics, 0.9) == {
        "c": "0 leaked of 10: no pair reaches lexical similarity ≥ 0.9"
    }


def test_a_pairs_file_keeps_the_threshold_its_sidecar_gives(tmp_path):
    path = write(tmp_path / "p.csv", HEADER + "1,a,lexical,0.70\n2,b,lexical,0.75\n")
    write(
        tmp_path / "p.csv.json",
        json.dumps(
            {
                "threshold": 0.72,
                "train_queries": "log.tsv",
                "queries_compared": 100,
                "sample_of": "orcas",
            }
        ),
    )
    table = read_pairs(path)
    assert table.leaked().qid.tolist() == ["2"]
    assert table.logs == (TrainingLog("log.tsv", 100, "msmarco-document/orcas"),)
    (warning,) = sample_warnings(table.logs)
    assert warning.startswith("The training log holds 100 queries, 0.0% of msmarco-document/orcas")


def test_without_a_sidecar_the_near_duplicate_column_says_where_pairs_were_cut(tmp_path):
    rows = "1,a,lexical,0.70,0\n2,b,lexical,0.75,1\n"
    path = write(tmp_path / "p.csv", HEADER.strip() + ",near_duplicate\n" + rows)
    assert read_pairs(path).leaked().qid.tolist() == ["2"]
    path.write_text(HEADER.strip() + ",near_duplicate\n1,a,lexical,0.70,1\n2,b,lexical,0.75,0\n")
    with pytest.raises(ParseError, match=r"p\.csv:3: near_duplicate 0 disagrees"):
        read_pairs(path)


def test_the_labels_tsv_is_read_as_judged_pairs(tmp_path):
    header = "topic\ttitle\ttrain_qid\ttrain_text\ttitle_relation\tnear_duplicate\n"
    path = write(
        tmp_path / "labels.tsv",
        header + "301\tcrime\t9\tcrime\tidentical\t1\n302\tpolio\t8\tflu\tdifferent\t0\n",
    )
    table = read_pairs(path)
    assert table.method == JUDGED
    assert table.leaked(0.0).qid.tolist() == ["301"]
    assert table.table.category.tolist() == ["identical", "different"]


LABELS = "topic\ttitle\ttrain_qid\ttrain_text\ttitle_relation\tnear_duplicate\n"


def test_an_empty_relation_in_the_labels_is_a_warning_where_only_judgments_are_read(tmp_path):
    """The held-out labels leave some relations empty: the audit reads near_duplicate only,
    so the file loads, says so, and each such pair has no category. Detection quality,
    which reads the relation, still refuses it at its line."""
    rows = "1\tcrime\t9\tcrime\t\t1\n2\tpolio\t8\tflu\tdifferent\t0\n3\tflu\t7\tx\t\t0\n"
    path = write(tmp_path / "labels.tsv", LABELS + rows)
    table = read_pairs(path)
    assert table.leaked(0.0).qid.tolist() == ["1"]
    assert table.table.category.tolist() == ["", "different", ""]
    assert table.warnings == (
        f"{path}:2: title_relation is empty (and 1 more line); only near_duplicate says which "
        "topics leaked, so these pairs are shown without a category",
    )
    with pytest.raises(ParseError) as caught:
        read_labels(path)
    assert (caught.value.line, caught.value.why) == (2, "title_relation is empty")


def test_the_audit_prints_the_labels_warning(tmp_path, capsys):
    from leakeval_core.cli import main

    qids = [str(q) for q in range(1, 7)]
    write(tmp_path / "qrels.txt", "".join(f"{q} 0 d{q} 1\n" for q in qids))
    for name, score in (("bm25", 1), ("mine", 3)):
        write(
            tmp_path / f"{name}.run",
            "".join(f"{q} Q0 d{q} 1 {score} x\n{q} Q0 o 2 2 x\n" for q in qids),
        )
    rows = "".join(f"{q}\tt\t9\tq\t\t{int(q == '1')}\n" for q in qids)
    labels = write(tmp_path / "labels.tsv", LABELS + rows)
    argv = ["audit", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "mine.run")]
    argv += ["--baseline", str(tmp_path / "bm25.run"), "--pairs", str(labels), "--measure", "P_1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"Warning: {labels}:2: title_relation is empty (and 5 more lines);" in out


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (HEADER + "1,a,lexical,0.7\n2,b,lexical,x\n", ":3: similarity 'x' is not a number"),
        ("train_qid,similarity\na,0.5\n", ":1: no test_qid column"),
        (HEADER + "1,a,lexical,0.7\n2,a,lexical,0.7,x\n", ":3: Expected 4 fields in line 3"),
        ("qid,near_duplicate\n1,maybe\n", ":2: near_duplicate 'maybe' is not 0 or 1"),
    ],
)
def test_a_broken_pairs_file_is_an_error_at_its_line(tmp_path, text, where):
    path = write(tmp_path / "p.csv", text)
    with pytest.raises(ParseError) as caught:
        read_pairs(path)
    assert str(caught.value).startswith(f"{path}{where}")


def test_two_sources_cutting_one_method_differently_are_an_error():
    low = pairs_from_frame(pd.read_csv(_io(HEADER + "1,a,lexical,0.7\n"), dtype=str), "a")
    high = pairs_from_frame(
        pd.read_csv(_io(HEADER + "2,a,lexical,0.7\n"), dtype=str), "b", sidecar={"threshold": 0.9}
    )
    with pytest.raises(LeakevalError, match=r"cut lexical at 0\.691 and at 0\.9"):
        LeakageTable.union([low, high])


def test_a_collection_is_named_after_its_qrels_or_their_folder(tmp_path):
    assert collection_of(tmp_path / "robust04" / "qrels.txt") == "robust04"
    assert collection_of(tmp_path / "core18.qrels.txt") == "core18"
    assert collection_of({"1": {"d": 1}}) == "collection"


def test_an_experiment_declares_what_its_log_is_a_sample_of(tmp_path):
    write(tmp_path / "t.tsv", "1\tcrime\n")
    write(tmp_path / "q.txt", "1 0 d 1\n")
    write(tmp_path / "log.tsv", "9\tcrime\n")
    write(tmp_path / "runs" / "a.run", "1 Q0 d 1 1.0 a\n")
    base = '[collections.c]\ntopics = "t.tsv"\nqrels = "q.txt"\n[runs]\npattern = "runs/{m}.run"\n'
    write(
        tmp_path / "experiment.toml",
        base + '[training_queries]\npath = "log.tsv"\nsample_of = "msmarco-train"\n',
    )
    from leakeval_core.leakage.table import experiment_log

    log = experiment_log(load_experiment(tmp_path))
    assert log == TrainingLog("log.tsv", 1, "msmarco-document/train")
    write(
        tmp_path / "experiment.toml",
        base + '[training_queries]\npath = "log.tsv"\nsample_of = "my-log"\n',
    )
    with pytest.raises(ParseError, match=r"experiment\.toml:8: sample_of 'my-log' is not a log"):
        experiment_log(load_experiment(tmp_path))


def test_the_share_caption_says_where_the_pairs_came_from():
    """Judged pairs are said to be judgments, never a log searched at a threshold."""
    import pandas as pd

    from leakeval_core.leakage.logs import TrainingLog
    from leakeval_core.leakage.rule import LeakageTable

    def table(method: str, similarity: float) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "collection": ["c"],
                "test_qid": ["1"],
                "train_qid": ["t"],
                "test_text": ["a"],
                "train_text": ["a"],
                "similarity": [similarity],
                "category": ["identical"],
                "method": [method],
            }
        )

    judged = LeakageTable(table("judged", 1.0), "labels.tsv", method="judged")
    assert judged.origin() == (
        "The bars count topics with a human-judged near-duplicate in labels.tsv: judgments, "
        "not a detection in a training log, so a topic no one judged is not counted."
    )
    sample = TrainingLog("log.tsv", 18_093, "msmarco-document/train")
    found = LeakageTable(
        table("lexical", 0.9), "detected in log.tsv", "", "lexical", logs=(sample,)
    )
    said = found.origin(0.8)
    assert said.startswith("The bars count topics with lexical similarity ≥ 0.8, in the pairs")
    assert said.endswith("Its log is a sample of the one it stands for, so it finds fewer.")
    assert (
        "sample" not in LeakageTable(table("lexical", 0.9), "pairs.csv", method="lexical").origin()
    )
