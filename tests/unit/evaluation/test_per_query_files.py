"""Per-query evaluations read in the three layouts they are published in."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from leakeval_core.errors import ParseError
from leakeval_core.evaluation.per_query_files import (
    evaluation_frame,
    is_evaluation,
    read_evaluation,
)
from leakeval_core.io.formats import Formatted
from tests.support import write

TREC_EVAL = """runid\tall\tbm25
num_ret          \t301\t1000
ndcg_cut_10      \t301\t0.4523
P_10             \t301\t0.5000
ndcg_cut_10      \t302\t0.1000
P_10             \t302\t0.2000
gm_map_weird     \t302\t0.2000
ndcg_cut_10      \tall\t0.2762
P_10             \tall\t0.3500
num_q            \tall\t2
"""


def rows(evaluation) -> set[tuple[str, str, float]]:
    return set(evaluation.table.itertuples(index=False, name=None))


def test_trec_eval_q_output(tmp_path):
    evaluation = read_evaluation(write(tmp_path / "bm25.eval", TREC_EVAL))
    assert rows(evaluation) == {
        ("301", "num_ret", 1000.0),
        ("301", "ndcg_cut_10", 0.4523),
        ("301", "P_10", 0.5),
        ("302", "ndcg_cut_10", 0.1),
        ("302", "P_10", 0.2),
    }
    assert evaluation.published == {"ndcg_cut_10": "0.2762", "P_10": "0.3500", "num_q": "2"}
    assert evaluation.queries_in_all() == 2
    assert evaluation.unread == ("gm_map_weird",)
    assert evaluation.measures == ("num_ret", "ndcg_cut_10", "P_10")


def test_ir_measures_names_are_the_trec_eval_measures(tmp_path):
    text = "301\tnDCG@10\t0.4523\n301\tP@10\t0.5\n302\tnDCG@10\t0.1\n302\tAP\t0.3\n"
    evaluation = read_evaluation(write(tmp_path / "run.txt", text))
    assert rows(evaluation) == {
        ("301", "ndcg_cut_10", 0.4523),
        ("301", "P_10", 0.5),
        ("302", "ndcg_cut_10", 0.1),
        ("302", "map", 0.3),
    }


@pytest.mark.parametrize("sep", [",", "\t"])
def test_a_long_frame_with_a_header(tmp_path, sep):
    text = sep.join(["query_id", "measure", "value"]) + "\n"
    text += "\n".join(sep.join(r) for r in [("1", "nDCG@10", "0.5"), ("2", "P_10", "0.25")])
    evaluation = read_evaluation(write(tmp_path / "scores.csv", text))
    assert rows(evaluation) == {("1", "ndcg_cut_10", 0.5), ("2", "P_10", 0.25)}


def test_a_frame_is_read_as_a_file_is():
    frame = pd.DataFrame({"qid": [1, 2], "measure": ["nDCG@10"] * 2, "value": [0.5, 0.25]})
    assert rows(evaluation_frame("given", frame)) == {
        ("1", "ndcg_cut_10", 0.5),
        ("2", "ndcg_cut_10", 0.25),
    }


def test_gzip_and_uploads_read_alike(tmp_path):
    path = tmp_path / "bm25.eval.gz"
    path.write_bytes(gzip.compress(TREC_EVAL.encode()))
    assert is_evaluation(path) and is_evaluation(("up.eval", TREC_EVAL.encode()))
    assert rows(read_evaluation(path)) == rows(read_evaluation(("up.eval", TREC_EVAL.encode())))


@pytest.mark.parametrize(
    "text",
    [
        "301 Q0 d1 1 2.5 bm25\n",  # a run
        "301 0 d1 1\n",  # qrels
        "301\tinternational organized crime\n",  # a query list
        "301 map reading\n",  # three words of a query
        "qid,docno,score\n1,d1,2.0\n",  # a PyTerrier frame
        "test_qid,train_qid,similarity\n1,2,0.9\n",  # pairs
    ],
)
def test_other_inputs_are_not_evaluations(tmp_path, text):
    assert not is_evaluation(write(tmp_path / "x.txt", text))


def test_a_format_named_is_not_looked_through(tmp_path):
    path = write(tmp_path / "bm25.eval", TREC_EVAL)
    assert not is_evaluation(Formatted(path, "trec"))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("P_10\t301\t0.5\nP_10\t301\tabc\n", "x.eval:2: value 'abc' is not a number"),
        ("P_10\t301\t0.5\nP_10\t301\tinf\n", "x.eval:2: value 'inf' is not finite"),
        ("P_10\t301\t0.5\nP_10\t301\n", "x.eval:2: expected 3 fields (measure qid value), found 2"),
        ("P_10\t301\t0.5\nP_10\t301\t0.4\n", "x.eval:2: P_10 of query 301 given twice, as 0.5"),
        ("foo\t301\t0.5\n", "x.eval:1: 'foo\\t301\\t0.5' is not a per-query evaluation line"),
        ("foo\tall\t0.5\n", "x.eval: holds no per-query value of a measure leakeval knows"),
    ],
)
def test_bad_lines_are_named(tmp_path, text, says):
    with pytest.raises(ParseError) as caught:
        read_evaluation(write(tmp_path / "x.eval", text))
    assert str(caught.value).startswith(str(tmp_path / says))
