"""Real files' mistakes: ids with whitespace, a header that is data, a file given in the
wrong role. Each is refused with the file, the line where there is one, and advice the
command line and Python can both follow; none scores 0 in silence."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.cli import main
from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.io import query_files, trec
from leakeval_core.io.kinds import identify
from tests.support import write

RUN = "1 Q0 31715818 1 2.0 r\n2 Q0 123 1 1.0 r\n"
BEIR_HEADER = "query-id\tcorpus-id\tscore\n"
TREC_FIELDS = "1\t 0 31715818\t1\n2\t 0 123\t1\n"
"""TREC qrels' `qid 0 docid grade` cut by tabs as BEIR's columns: the docid is '0 31715818'."""
PAIRS = (
    "collection,test_qid,field,test_text,train_qid,train_text,method,similarity,category\n"
    "c,1,title,a topic,t1,a topic,lexical,0.9,identical\n"
)


def cli_error(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_trec_lines_under_a_beir_header_are_refused_at_their_line(tmp_path, capsys):
    qrels = write(tmp_path / "test.tsv", BEIR_HEADER + TREC_FIELDS)
    run = write(tmp_path / "r.run", RUN)
    err = cli_error(capsys, "score", "--qrels", str(qrels), "--run", str(run))
    assert err.startswith(f"leakeval: {qrels}:2: docid '0 31715818' has whitespace inside")
    assert "delete the header line and the file reads as TREC" in err
    with pytest.raises(ParseError) as caught:
        api.score(qrels, {"r": run}, "ndcg_cut_10")
    assert (caught.value.path, caught.value.line) == (str(qrels), 2)
    write(qrels, TREC_FIELDS)  # the advice taken: the same lines without the header
    assert main(["score", "--qrels", str(qrels), "--run", str(run), "--measures", "P_1"]) == 0
    assert "1.0000" in capsys.readouterr().out


def test_a_header_that_is_data_names_its_line_and_the_format_to_pass(tmp_path, capsys):
    qrels = write(tmp_path / "test.tsv", TREC_FIELDS)
    run = write(tmp_path / "r.run", RUN)
    err = cli_error(
        capsys, "score", "--qrels", str(qrels), "--run", str(run), "--format", "qrels=beir"
    )
    assert err.startswith(f"leakeval: {qrels}:1: no qid column (the first line, '1', ")
    assert "is data, not a header" in err and "--format qrels=trec (format= in Python)" in err
    assert "columns=" not in err  # a Python argument the command line does not have
    with pytest.raises(ParseError, match="leave --format out") as caught:
        api.score(qrels, {"r": run}, "P_1", format={"qrels": "beir"})
    assert caught.value.line == 1


def test_a_header_without_the_columns_says_which_names_it_takes(tmp_path):
    path = write(tmp_path / "q.csv", "qid,passage,rel\nq1,d1,1\n")
    with pytest.raises(ParseError) as caught:
        trec.read_qrels(path, "csv")
    assert caught.value.line == 1
    assert caught.value.why.startswith("no docid column among 'qid', 'passage', 'rel'; ")
    assert "name one docno, docid, doc_id, corpus-id" in caught.value.why


def test_a_pairs_csv_given_as_a_run_is_named_as_one(tmp_path, capsys):
    pairs = write(tmp_path / "pairs.csv", PAIRS)
    qrels = write(tmp_path / "qrels.txt", "1 0 d1 1\n")
    err = cli_error(capsys, "score", "--qrels", str(qrels), "--run", str(pairs))
    assert err == (
        f"leakeval: {pairs}: looks like a leakeval pairs CSV (columns collection, test_qid, "
        "field, test_text, train_qid, train_text, ...), not a run; pass it as --pairs "
        "(leakage= in Python)"
    )
    with pytest.raises(ParseError, match=r"leakeval pairs CSV .*, not a run; pass it as --pairs"):
        api.score(qrels, {"mine": pairs}, "P_1")


QUERIES = "q1\tfirst query\nq2\tsecond query\n"
MTEB = json.dumps({"mteb_model_meta": {}, "default": {"test": {"q1": {"d1": 0.5}}}})
WRONG_ROLES = {
    "qrels-as-run": (
        "q1 0 d1 1\n",
        trec.read_run,
        "TREC qrels (qid iter docid grade), not a run; pass it as --qrels (qrels= in Python)",
    ),
    "run-as-qrels": (
        RUN,
        trec.read_qrels,
        "a TREC run (qid Q0 docid rank score tag), not qrels; pass it as --run",
    ),
    "queries-as-run": (
        QUERIES,
        trec.read_run,
        "a query list (qid<TAB>text), not a run; pass it as --topics or --train-queries",
    ),
    "beir-qrels-as-run": (
        BEIR_HEADER + "q1\td1\t1\n",
        trec.read_run,
        "a BEIR qrels TSV (header query-id, corpus-id, score), not a run; pass it as --qrels",
    ),
    "pairs-as-qrels": (PAIRS, trec.read_qrels, "a leakeval pairs CSV"),
    "run-as-topics": (RUN, query_files.read_topics, "a TREC run (qid Q0 docid rank score tag)"),
    "qrels-frame-as-run": (
        "qid,docno,label\nq1,d1,1\n",
        trec.read_run,
        "a qrels CSV (columns qid, docno, label), not a run",
    ),
    "mteb-as-qrels": (MTEB, trec.read_qrels, "MTEB's saved predictions (a run), not qrels"),
    "trec-eval-q-as-qrels": (
        "runid\tall\tbm25\nP_10\t301\t0.4\n",
        trec.read_qrels,
        "per-query evaluations (trec_eval -q's measure qid value, with all lines), not qrels; "
        "pass it as --run",
    ),
    "evaluation-table-as-topics": (
        "qid,measure,value\n301,P@10,0.4\n",
        query_files.read_topics,
        "per-query evaluations, a CSV (columns qid, measure, value), not topics; pass it as --run",
    ),
    "json-as-queries": (
        json.dumps({"q1": {"d1": 1}}),
        query_files.read_queries,
        "a JSON mapping {qid: {docid: value}} (a run or qrels), not a query list",
    ),
}


@pytest.mark.parametrize("text, read, message", WRONG_ROLES.values(), ids=WRONG_ROLES)
def test_a_file_given_in_the_wrong_role_is_named(tmp_path, text, read, message):
    path = write(tmp_path / "input", text)
    with pytest.raises(ParseError, match="looks like " + re.escape(message)) as caught:
        read(path)
    assert caught.value.path == str(path) and caught.value.line is None


def test_a_beir_folder_given_as_a_run_is_named(tmp_path, capsys):
    folder = tmp_path / "beir"
    write(folder / "queries.jsonl", '{"_id": "q1", "text": "a query"}\n')
    write(folder / "qrels" / "test.tsv", BEIR_HEADER + "q1\td1\t1\n")
    err = cli_error(capsys, "score", "--qrels", str(folder), "--run", str(folder))
    assert err == (
        f"leakeval: {folder}: looks like a BEIR folder (queries.jsonl, qrels/), not a run; pass "
        "it as --qrels or --topics or --train-queries (qrels= or topics= or training_queries= "
        "in Python)"
    )


def test_a_file_of_the_right_kind_keeps_its_readers_error(tmp_path):
    path = write(tmp_path / "r.run", "q1 Q0 d1 1 3.5 x\nq1 Q0 d2 2 abc x\n")
    with pytest.raises(ParseError) as caught:
        trec.read_run(path)
    assert caught.value.line == 2 and caught.value.why == "score 'abc' is not a number"
    assert identify(path).roles == ("run",)


def test_identify_says_nothing_of_what_it_does_not_know(tmp_path):
    assert identify(write(tmp_path / "x.txt", "hello world\n")) is None
    assert identify(write(tmp_path / "y.csv", "a,b\n1,2\n")) is None


# --------------------------------------------------------------------------- ids


def spaced(tmp_path, kind: str):
    """A run in format `kind` whose second row's docid holds a space (line 3 in a text file
    with a header, 2 in JSON lines)."""
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d 2"], "score": [2.0, 1.0]})
    if kind == "csv":
        path = tmp_path / "r.csv"
        frame.to_csv(path, index=False)
    elif kind == "tsv":
        path = tmp_path / "r.tsv"
        frame.to_csv(path, sep="\t", index=False)
    elif kind == "jsonl":
        path = tmp_path / "r.jsonl"
        frame.to_json(path, orient="records", lines=True)
    elif kind == "parquet":
        path = tmp_path / "r.parquet"
        frame.to_parquet(path)
    else:
        path = write(tmp_path / "r.json", json.dumps({"q1": {"d1": 2.0}, "q2": {"d 2": 1.0}}))
    return path


@pytest.mark.parametrize(
    "kind, line", [("csv", 3), ("tsv", 3), ("jsonl", 2), ("parquet", None), ("json", 1)]
)
def test_an_id_with_whitespace_inside_is_refused_in_every_format(tmp_path, kind, line):
    path = spaced(tmp_path, kind)
    with pytest.raises(ParseError) as caught:
        trec.read_run(path)
    assert caught.value.line == line
    assert caught.value.why.endswith("docid 'd 2' has whitespace inside; an id is one word")
    if line is None:
        assert caught.value.why.startswith("row 2: ")


def test_whitespace_around_an_id_is_stripped(tmp_path):
    path = write(tmp_path / "r.csv", "qid,docno,score\n q1 ,d1 ,2.0\nq1, d2,1.0\n")
    assert trec.read_run(path).to_dict("list") == {
        "qid": ["q1", "q1"],
        "docid": ["d1", "d2"],
        "score": [2.0, 1.0],
    }
    twice = write(tmp_path / "twice.csv", "qid,docno,score\nq1,d1,2.0\nq1, d1,1.0\n")
    with pytest.raises(ParseError, match="docid 'd1' appears twice for query 'q1'"):
        trec.read_run(twice)


def test_an_id_with_whitespace_in_a_frame_names_its_row():
    frame = pd.DataFrame({"qid": ["q1", "q 2"], "docid": ["d1", "d2"], "score": [1.0, 2.0]})
    with pytest.raises(LeakevalError, match="row 2: qid 'q 2' has whitespace inside"):
        api.score({"q1": {"d1": 1}}, {"r": frame}, "P_1")


SGML = "<top>\n<num> 301\n<title> a\n</top>\n<top>\n<num> 30 2\n<title> b\n</top>\n"


@pytest.mark.parametrize(
    "name, text, line",
    [
        ("q.tsv", "q1\tfirst\n\nq 2\tsecond\n", 3),
        ("q.jsonl", '{"_id": "q1", "text": "a"}\n{"_id": "q 2", "text": "b"}\n', 2),
        ("q.csv", "qid,text\nq1,a\nq 2,b\n", None),
        ("t.sgml", SGML, 5),
    ],
)
def test_a_query_id_with_whitespace_is_refused(tmp_path, name, text, line):
    path = write(tmp_path / name, text)
    with pytest.raises(ParseError, match="has whitespace inside") as caught:
        query_files.read_topics(path)
    assert caught.value.line == line
    if name != "t.sgml":
        streamed = query_files.iter_queries(path)
        with pytest.raises(ParseError, match="has whitespace inside"):
            list(streamed)


def test_a_query_lists_qid_twice_names_both_lines(tmp_path):
    path = write(tmp_path / "q.tsv", "q1\tfirst\n\nq1\tagain\n")
    with pytest.raises(ParseError) as caught:
        query_files.read_queries(path)
    assert (caught.value.line, caught.value.why) == (3, "qid 'q1' appears twice (first at line 1)")
    assert query_files.read_queries(path, unique=False).text.tolist() == ["first", "again"]


def test_an_id_of_whitespace_pyarrow_keeps_is_named_not_a_crash():
    """A separator control character is whitespace to Python, not to pyarrow's trim."""
    from leakeval_core.io.pairs import bad_id

    assert bad_id("qid", "\x1f") == "qid '\\x1f' is only whitespace; an id is one word"
