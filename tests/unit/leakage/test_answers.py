"""Answers that leaked too: shared_relevant per pair, and the answer-leaked rule."""

import pandas as pd
import pytest

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.leakage.answers import (
    read_training_qrels,
    shared_relevant,
    training_answers,
    with_answers,
)
from leakeval_core.leakage.given import pairs_from_frame, read_pairs
from leakeval_core.leakage.rule import LeakageTable
from tests.support import write

# topic 1: relevant a (grade 2), b (grade 1); topic 2: relevant c (grade 2); topic 3: d (1)
QRELS = pd.DataFrame(
    {
        "qid": ["1", "1", "1", "2", "2", "3"],
        "docid": ["a", "b", "z", "c", "a", "d"],
        "grade": [2, 1, 0, 2, 0, 1],
    }
)
# t1 trained on a and b; t2 on z (judged, not relevant); t3 on c; t4 on elsewhere
TRAIN = {"t1": {"a": 1, "b": 1}, "t2": {"z": 1}, "t3": {"c": 1, "q": 0}, "t4": {"x": 1}}
PAIRS = pd.DataFrame(
    {
        "test_qid": ["1", "1", "2", "2", "3"],
        "train_qid": ["t1", "t2", "t3", "t4", "t1"],
        "similarity": [0.9, 0.95, 0.5, 0.9, 0.99],
    }
)


def _pairs(frame: pd.DataFrame = PAIRS, level: int = 1, qrels=QRELS, train=TRAIN):
    table = pairs_from_frame(frame.assign(collection="c"), "pairs.csv")
    return with_answers(table, {"c": qrels}, training_answers(train), level)


def test_shared_relevant_counts_and_names_each_pairs_shared_documents():
    table = _pairs().table
    assert table.shared_relevant.tolist() == [2, 0, 1, 0, 0]
    assert table.shared_docs.tolist() == ["a;b", "", "c", "", ""]
    # at level 2 only a counts for topic 1
    assert _pairs(level=2).table.shared_relevant.tolist() == [1, 0, 1, 0, 0]


def test_a_topic_is_answer_leaked_when_a_near_duplicate_shares_a_relevant_document():
    pairs = _pairs()
    # at 0.8: topic 1 (t1 shares a, b), topic 2 only through t4 (shares nothing), topic 3
    # through t1, whose positives are not topic 3's relevant documents
    leaks = pairs.leaks(0.8).set_index("qid").leak.to_dict()
    assert leaks == {"1": "answer-leaked", "2": "query-leaked", "3": "query-leaked"}
    # the pair that shares c is below the threshold until the threshold drops to it
    assert pairs.leaks(0.5).set_index("qid").leak["2"] == "answer-leaked"
    assert set(pairs.leaks(0.8).qid) == set(pairs.leaked(0.8).qid)


def test_moving_a_positive_out_of_the_relevant_set_moves_that_topic_alone():
    """Metamorphic: topic 1's relevant a and b become not relevant; topic 1 moves from
    answer-leaked to query-leaked, every other topic and every leaked flag stays."""
    before = _pairs().leaks(0.5)
    moved = QRELS.assign(
        grade=QRELS.grade.where(~((QRELS.qid == "1") & QRELS.docid.isin(["a", "b"])), 0)
    )
    after = _pairs(qrels=moved).leaks(0.5)
    changed = before.merge(after, on=["collection", "qid"], suffixes=("_before", "_after"))
    assert len(changed) == len(before) == len(after)
    differ = changed[changed.leak_before != changed.leak_after]
    assert differ[["qid", "leak_before", "leak_after"]].values.tolist() == [
        ["1", "answer-leaked", "query-leaked"]
    ]


def test_training_qrels_from_another_corpus_are_said_to_share_nothing():
    pairs = _pairs(train={"t1": {"elsewhere": 1}})
    assert "none of the 1 positive documents" in pairs.answers
    assert "another corpus" in pairs.answers
    assert set(pairs.leaks(0.5).leak) == {"query-leaked"}
    # a, b, z and c of a, b, z, c and x are judged (z not relevant: judged all the same)
    assert "4 of the 5 positive documents" in _pairs().answers


def test_pairs_without_answers_refuse_the_answer_split():
    with pytest.raises(LeakevalError, match="training qrels"):
        pairs_from_frame(PAIRS, "pairs.csv").leaks()


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("train.qrels", "t1 0 a 1\nt1 0 b 1\nt2 0 z 0\n"),
        ("train.tsv", "query-id\tcorpus-id\tscore\nt1\ta\t1\nt1\tb\t2\nt2\tz\t0\n"),
        ("train.csv", "train_qid,doc_id\nt1,a\nt1,b\n"),
        ("pairs.tsv", "qid\tdocid\nt1\ta\nt1\tb\nt1\ta\n"),
    ],
)
def test_training_qrels_are_read_in_each_format_as_positives(tmp_path, name, text):
    answers = read_training_qrels(write(tmp_path / name, text))
    assert sorted(map(tuple, answers.positives.to_numpy())) == [("t1", "a"), ("t1", "b")]
    assert answers.source == name


def test_a_bad_training_qrels_line_is_named(tmp_path):
    with pytest.raises(ParseError, match=r"train.csv:3: an empty document id"):
        read_training_qrels(write(tmp_path / "train.csv", "train_qid,docid\nt1,a\nt2,\n"))
    with pytest.raises(ParseError, match=r"no document column"):
        read_training_qrels(write(tmp_path / "train.csv", "train_qid,text\nt1,a\n"))
    with pytest.raises(LeakevalError, match="no positive training document"):
        training_answers({"t1": {"a": 0}})


def test_a_pairs_file_keeps_its_shared_documents(tmp_path):
    frame = _pairs().table
    path = tmp_path / "pairs.csv"
    frame.to_csv(path, index=False)
    again = read_pairs(path)
    assert again.answered
    assert again.table.shared_relevant.tolist() == [2, 0, 1, 0, 0]
    assert again.leaks(0.8).equals(_pairs().leaks(0.8))
    bad = frame.assign(shared_relevant=["2", "x", "1", "0", "0"])
    bad.to_csv(path, index=False)
    with pytest.raises(ParseError, match=r"pairs.csv:3: shared_relevant 'x' is not a count"):
        read_pairs(path)


def test_a_union_counts_answers_only_where_every_source_carries_them():
    plain = pairs_from_frame(PAIRS.assign(collection="c"), "other.csv")
    both = LeakageTable.union([_pairs(), plain])
    assert not both.answered
    assert LeakageTable.union([_pairs(), _pairs()]).answered


def test_shared_relevant_keeps_pairs_in_order_and_ignores_other_collections():
    pairs = PAIRS.assign(collection="c").iloc[::-1]
    relevant = QRELS[QRELS.grade > 0].assign(collection="other")
    out = shared_relevant(pairs, relevant, training_answers(TRAIN))
    assert out.train_qid.tolist() == pairs.train_qid.tolist()
    assert out.shared_relevant.sum() == 0


def test_answer_leaked_query_leaked_and_clean_add_up_to_the_topics_counted():
    topics = pd.DataFrame({"collection": "c", "qid": ["1", "2", "3", "4", "5"]})
    counts = _pairs().leak_counts(topics, 0.8)
    assert counts.to_dict("records") == [
        {"collection": "c", "answer-leaked": 1, "query-leaked": 2, "clean": 2, "topics": 5}
    ]
    assert _pairs().leak_statements(topics.iloc[:4], 0.5, judged=True) == {
        "c": "2 answer-leaked, 1 query-leaked, 1 clean of 4 judged topics"
    }


def test_shared_documents_counted_at_another_level_are_said_to_be(tmp_path):
    from leakeval_core.leakage.table import leakage_warnings

    path = tmp_path / "pairs.csv"
    _pairs().table.to_csv(path, index=False)
    (tmp_path / "pairs.csv.json").write_text('{"relevance_level": 1}')
    pairs = read_pairs(path)
    topics = pd.DataFrame({"collection": "c", "qid": ["1", "2", "3"]})
    assert pairs.answers_level == 1
    assert not leakage_warnings(pairs, topics, 0.8, 1)
    (said,) = leakage_warnings(pairs, topics, 0.8, 2)
    assert "counted at relevance level 1, not at 2" in said
    # counted anew at the level in force, nothing to say
    assert not leakage_warnings(_pairs(level=2), topics, 0.8, 2)


def test_detect_leakage_counts_shared_documents_in_python():
    from leakeval_core import api

    topics = pd.DataFrame({"qid": ["1", "2"], "title": ["solar panel efficiency", "tax law"]})
    log = pd.DataFrame({"qid": ["t1", "t2"], "text": ["solar panel efficiency", "tax law"]})
    pairs = api.detect_leakage(
        topics, log, qrels=QRELS, train_qrels={"t1": {"a": 1}, "t2": {"z": 1}}
    )
    shared = pairs.set_index("test_qid")
    assert shared.shared_relevant.to_dict() == {"1": 1, "2": 0}  # z: judged, not relevant
    assert pairs.attrs["answers"]["answers"].startswith("2 of the 2 positive documents")
    with pytest.raises(LeakevalError, match="need the test qrels"):
        api.detect_leakage(topics, log, train_qrels={"t1": {"a": 1}})
