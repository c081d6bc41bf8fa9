"""`leakeval leakage --train-qrels`: every pair says which relevant documents it shares."""

import json

import pandas as pd

from leakeval_core.cli import main
from tests.support import write

TOPICS = "1\tsolar panel efficiency\n2\tdeep sea mining impact\n3\tmedieval castle sieges\n"
TRAIN = "t1\tsolar panel efficiency\nt2\tdeep sea mining impact\nt3\tbaking sourdough bread\n"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n"
TRAIN_QRELS = "train_qid,docid\nt1,a\nt2,elsewhere\nt3,d\n"


def _leakage(tmp_path, *extra: str) -> list[str]:
    return [
        "leakage",
        "--topics",
        str(write(tmp_path / "topics.tsv", TOPICS)),
        "--train-queries",
        str(write(tmp_path / "train.tsv", TRAIN)),
        "--method",
        "lexical",
        "--out",
        str(tmp_path / "pairs.csv"),
        *extra,
    ]


def test_leakage_writes_shared_relevant_for_every_pair(tmp_path, capsys):
    qrels = write(tmp_path / "qrels.txt", QRELS)
    train_qrels = write(tmp_path / "train_qrels.csv", TRAIN_QRELS)
    assert main(_leakage(tmp_path, "--qrels", str(qrels), "--train-qrels", str(train_qrels))) == 0
    pairs = pd.read_csv(tmp_path / "pairs.csv", dtype=str, keep_default_na=False)
    assert pairs.shared_relevant.ne("").all()
    near = pairs[pairs.near_duplicate == "True"].set_index("test_qid")
    assert near.shared_relevant.to_dict() == {"1": "1", "2": "0"}
    assert near.shared_docs.to_dict() == {"1": "a", "2": ""}
    side = json.loads((tmp_path / "pairs.csv.json").read_text())
    assert side["relevance_level"] == 1
    err = capsys.readouterr().err
    assert "2 of the 3 positive documents in train_qrels.csv are judged in the test qrels" in err
    assert "1 answer-leaked, 1 query-leaked, 1 clean of 3 topics" in err


def test_the_training_qrels_need_the_test_qrels(tmp_path, capsys):
    train_qrels = write(tmp_path / "train_qrels.csv", TRAIN_QRELS)
    assert main(_leakage(tmp_path, "--train-qrels", str(train_qrels))) == 2
    assert "--train-qrels needs the test qrels (--qrels)" in capsys.readouterr().err
    assert not (tmp_path / "pairs.csv").exists()


def test_a_card_of_the_leakage_alone_says_training_qrels_need_the_test_qrels(tmp_path, capsys):
    train_qrels = write(tmp_path / "train_qrels.csv", TRAIN_QRELS)
    topics = write(tmp_path / "topics.tsv", TOPICS)
    log = write(tmp_path / "train.tsv", TRAIN)
    args = ["card", "--topics", str(topics), "--train-queries", str(log)]
    args += ["--train-qrels", str(train_qrels), "--out", str(tmp_path / "card.md")]
    assert main(args) == 2
    assert "which a card of the leakage alone has none of" in capsys.readouterr().err
    assert not (tmp_path / "card.md").exists()
