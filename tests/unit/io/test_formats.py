"""The benchmarks' own formats read as their TREC files do, detected by content, with every
problem one `FILE:LINE: why` error."""

from __future__ import annotations

import gzip
import io
import json

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.io import beir, query_files, trec
from leakeval_core.io.formats import Formatted, detect_format
from tests import formats as fmt
from tests.support import write

RUN = "q1 Q0 d1 1 2.5 x\nq1 Q0 d2 2 1.5 x\nq2 Q0 d3 1 0.5 x\nq2 Q0 d1 2 0.25 x\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
TOPICS = pd.DataFrame({"qid": ["q1", "q2"], "title": ["first query", "second  query"]})


@pytest.fixture
def run():
    return trec.read_run(("r", RUN.encode()))


@pytest.fixture
def qrels():
    return trec.read_qrels(("q", QRELS.encode()))


def same(a: pd.DataFrame, b: pd.DataFrame, value: str) -> None:
    key = ["qid", "docid"]
    left = a.sort_values(key).reset_index(drop=True)
    right = b.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(left[[*key, value]], right[[*key, value]])


def test_beir_folder_gives_the_qrels_and_queries(tmp_path, qrels):
    folder = fmt.write_beir(tmp_path / "b", TOPICS, qrels)
    assert detect_format(folder) == "beir"
    same(trec.read_qrels(folder), qrels, "grade")
    same(trec.read_qrels(folder / "qrels" / "test.tsv"), qrels, "grade")
    topics = query_files.read_topics(folder)
    assert topics.to_dict("list") == {
        "qid": ["q1", "q2"],
        "title": ["first query", "second query"],
        "description": ["", ""],
        "narrative": ["", ""],
    }
    assert query_files.read_queries(folder / "queries.jsonl").qid.tolist() == ["q1", "q2"]
    with pytest.raises(ParseError, match=r"without qrels/dev.tsv \(it has: test\)"):
        beir.read_beir_qrels(folder, "dev")
    with pytest.raises(ParseError, match="not a run"):
        trec.read_run(folder)


def beir_with_splits(folder, qrels):
    """A BEIR folder whose queries file holds its test topics (q1, q2) and two train queries
    (t1, t2), as real BEIR datasets do."""
    train = pd.DataFrame({"qid": ["t1", "t2"], "title": ["first query", "a train query"]})
    judged = pd.DataFrame({"qid": ["t1", "t2"], "docid": ["d1", "d2"], "grade": [1, 1]})
    fmt.write_beir(folder, train, judged, "train")
    return fmt.write_beir(folder, pd.concat([TOPICS, train]), qrels)


def test_a_beir_folders_topics_are_its_split_and_its_log_the_other_queries(tmp_path, qrels):
    """A train query is never counted as a test topic, and a test topic read as training
    data would match itself."""
    folder = beir_with_splits(tmp_path / "b", qrels)
    assert query_files.read_topics(folder).qid.tolist() == ["q1", "q2"]
    assert query_files.read_queries(folder).qid.tolist() == ["t1", "t2"]
    streamed = pd.concat(query_files.iter_queries(folder, chunk_size=1))
    assert streamed.qid.tolist() == ["t1", "t2"]
    assert query_files.read_topics(folder / "queries.jsonl").qid.tolist() == [
        "q1",
        "q2",
        "t1",
        "t2",
    ]


def test_beir_corpus_gives_document_text(tmp_path, qrels):
    folder = fmt.write_beir(tmp_path / "b", TOPICS, qrels)
    assert beir.corpus_text(folder, "d1") is None
    fmt.write_corpus(folder, {"d1": ("Title", "Body text."), "d2": ("", "Only body.")})
    assert beir.corpus_text(folder, "d1") == "Title\n\nBody text."
    assert beir.corpus_text(folder, "d2") == "Only body."
    assert beir.corpus_text(folder, "d9") is None


@pytest.mark.parametrize("v2", [True, False], ids=["mteb-v2", "mteb-v1"])
def test_mteb_predictions_give_the_run(tmp_path, run, v2):
    path = fmt.write_mteb(tmp_path / "Task_predictions.json", run, v2=v2)
    assert detect_format(path) == "json"
    same(trec.read_run(path), run, "score")


def test_mteb_predictions_of_several_splits_are_named(tmp_path, run):
    path = fmt.write_mteb(tmp_path / "Task_predictions.json", run, splits=("dev", "test"))
    with pytest.raises(ParseError, match=r"several subsets/splits \(default/dev, default/test"):
        trec.read_run(path)
    dev = run.assign(score=-run.score)
    fmt.write_mteb(path, run, splits=("test",))
    both = json.loads(path.read_text())
    both["default"]["dev"] = fmt.nested(dev, "score")
    path.write_text(json.dumps(both))
    same(trec.read_run(path, "mteb:default/test"), run, "score")
    same(trec.read_run(Formatted(path, "mteb:default/dev")), dev, "score")
    with pytest.raises(ParseError, match=r"no 'x/test' in it; it holds default/test, default/dev"):
        trec.read_run(path, "json:x/test")
    with pytest.raises(LeakevalError, match="only a JSON mapping"):
        trec.read_run(path, "trec:default/test")


def test_the_cli_names_a_part_of_an_mteb_file(tmp_path, run, qrels, capsys):
    from leakeval_core.cli import main

    path = fmt.write_mteb(tmp_path / "Task_predictions.json", run, splits=("dev", "test"))
    qrels_file = write(tmp_path / "qrels.txt", QRELS)
    args = ["score", "--qrels", str(qrels_file), "--run", str(path)]
    assert main(args) == 2
    assert "--format mteb:SUBSET/SPLIT" in capsys.readouterr().err
    assert main([*args, "--format", "mteb:default/test"]) == 0


def test_ranx_json_gives_run_and_qrels(tmp_path, run, qrels):
    same(trec.read_run(fmt.write_ranx(tmp_path / "run.json", run, "score")), run, "score")
    same(trec.read_qrels(fmt.write_ranx(tmp_path / "q.json", qrels, "grade")), qrels, "grade")
    gz = write(tmp_path / "run.json.gz", gzip.compress((tmp_path / "run.json").read_bytes()))
    same(trec.read_run(gz), run, "score")


def test_a_large_query_crosses_blocks(tmp_path, monkeypatch):
    from leakeval_core.io import json_maps

    monkeypatch.setattr(json_maps, "_BLOCK", 7)
    run = pd.DataFrame({"qid": ["q1"] * 50 + ["q2"], "docid": [f"d{i}" for i in range(51)]})
    run["score"] = [float(i) for i in range(51)]
    for v2 in (True, False):
        path = fmt.write_mteb(tmp_path / f"p{v2}.json", run, v2=v2)
        same(trec.read_run(path), run, "score")


@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet"])
def test_pyterrier_frames_in_files(tmp_path, run, qrels, suffix):
    frames = {"run": fmt.pyterrier_run(run), "qrels": fmt.pyterrier_qrels(qrels)}
    for name, frame in frames.items():
        path = tmp_path / f"{name}.{suffix}"
        if suffix == "parquet":
            frame.to_parquet(path)
        else:
            frame.to_csv(path, sep="\t" if suffix == "tsv" else ",", index=False)
    same(trec.read_run(tmp_path / f"run.{suffix}"), run, "score")
    same(trec.read_qrels(tmp_path / f"qrels.{suffix}"), qrels, "grade")


def test_frames_and_objects_through_the_api(run, qrels):
    """PyTerrier's frame (int docid beside docno, a query text column, float32 scores, int
    qids) and ranx's objects (anything with to_dict) score as the TREC files do."""
    from leakeval_core import api

    expected = api.score(qrels, {"r": run}, ["ndcg_cut_10", "P_1"]).table
    frame = fmt.pyterrier_run(run).astype({"score": "float32"})

    class Ranx:
        def __init__(self, mapping):
            self.mapping = mapping

        def to_dict(self):
            return self.mapping

    ranx_qrels = Ranx(fmt.nested(qrels, "grade"))
    got = api.score(ranx_qrels, {"r": frame}, ["ndcg_cut_10", "P_1"]).table
    pd.testing.assert_frame_equal(got, expected)
    ints = pd.DataFrame({"qid": [1, 1], "docno": ["d1", "d2"], "label": [1, 0]})
    assert trec.read_qrels(("x", b"q 0 d 1\n")).grade.dtype == "int64"
    table = api.score(ints, {"r": pd.DataFrame({"qid": [1], "docno": ["d1"], "score": [1.0]})})
    assert table.table.qid.unique().tolist() == ["1"]


def test_query_lists_in_jsonl_parquet_and_hf(tmp_path):
    frame = pd.DataFrame({"_id": ["1", "2", "3"], "text": ["a  b", "c", "d"], "extra": [1, 2, 3]})
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in frame.to_dict("records")))
    frame.rename(columns={"_id": "qid", "text": "query"}).to_parquet(tmp_path / "q.parquet")
    hf = fmt.write_hf(tmp_path / "hf", frame.rename(columns={"_id": "id"}))
    for source in (jsonl, tmp_path / "q.parquet", hf):
        expected = {"qid": ["1", "2", "3"], "text": ["a b", "c", "d"]}
        assert query_files.read_queries(source).to_dict("list") == expected, source
        chunks = list(query_files.iter_queries(source, chunk_size=2))
        assert pd.concat(chunks).to_dict("list") == expected, source
    assert detect_format(hf) == "hf"


def test_a_named_format_wins(tmp_path, run):
    path = fmt.write_ranx(tmp_path / "run.txt", run, "score")
    assert detect_format(Formatted(path, "ranx")) == "json"
    same(trec.read_run(path, format="mteb"), run, "score")
    with pytest.raises(LeakevalError, match="unknown format 'xml'"):
        trec.read_run(path, format="xml")


MALFORMED = {
    "ranx": ('{\n  "q1": {"d1": 1.0,\n  "d2": "high"}\n}\n', 2, "'d2': \"high\" is not a finite"),
    "mteb": ('{"mteb_model_meta": {}, "default": {"test": {\n"q1": {"d1": 1.0,, }}}}', 2, "JSON"),
    "json-syntax": ('{"q1": {"d1": 1.0},\n"q2": [1]}\n', 2, "not to an object"),
    "beir": ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\tx\n", 3, "grade 'x' is not"),
    "csv": ("qid,docno,score\nq1,d1,1.0\nq1,d2,inf\n", 3, "score inf is not a finite"),
    "jsonl": ('{"qid": "q1", "docid": "d1", "score": 1}\n{"qid": "q1", "docid": \n', 2, "JSON"),
    "duplicate": ('{"q1": {"d1": 1.0, "d1": 2.0}}', 1, "docid 'd1' appears twice"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_a_malformed_line_is_one_file_line_error(tmp_path, case):
    text, line, why = MALFORMED[case]
    path = write(tmp_path / f"bad.{case}", text)
    reader = trec.read_qrels if case == "beir" else trec.read_run
    with pytest.raises(ParseError) as caught:
        reader(path)
    assert caught.value.line == line, str(caught.value)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert why in str(caught.value)
    assert "\n" not in str(caught.value)


def _streamed(monkeypatch, path, kind) -> int:
    """Read `path` in small blocks; the number of blocks it is read in."""
    from leakeval_core.io import decoded, frames

    monkeypatch.setattr(frames, "_BLOCK", 256)
    monkeypatch.setattr(decoded, "ROWS", 7)
    roles = ("qid", "docid", "score")

    def pick(names):
        return {r: frames._column("", names, r, frames.COLUMN_ALIASES[r], None) for r in roles}

    return sum(1 for _ in frames._batches(path, kind, pick))


def jsonl_run(rows: int, bad: dict[int, str] | None = None, score=lambda i: i / 2) -> str:
    """A run as JSON lines, line n replaced by `bad[n]`."""
    lines = [
        json.dumps({"qid": f"q{i % 3}", "docid": f"d{i}", "score": score(i)}) for i in range(rows)
    ]
    for line, text in (bad or {}).items():
        lines[line - 1] = text
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ('{"qid": "q1", "docid": "x", "score": }', "invalid JSON"),
        ('{"qid": "q1", "docid": "x", "score": "high"}', "'score' is a string here"),
        ('{"qid": "q1", "docid": "x", "score": null}', "score None is not a finite number"),
        ('{"qid": "q1", "score": 1.0}', "docid is missing"),
        ('{"qid": "q0", "docid": "d3", "score": 1.0}', "'d3' appears twice"),
    ],
    ids=["syntax", "type", "value", "missing", "duplicate"],
)
def test_a_malformed_line_deep_in_a_streamed_file_names_its_line(tmp_path, monkeypatch, bad, why):
    path = write(tmp_path / "run.jsonl", jsonl_run(300, {283: bad}))
    good = write(tmp_path / "good.jsonl", jsonl_run(300))
    assert _streamed(monkeypatch, good, "jsonl") > 10
    with pytest.raises(ParseError) as caught:
        trec.read_run(path)
    assert str(caught.value).startswith(f"{path}:283: "), str(caught.value)
    assert why in str(caught.value)


def test_streamed_frames_read_as_whole_ones(tmp_path, monkeypatch):
    """Every block's rows in order, and a type that changes after the first block (integer
    scores, then fractions) read as a whole file reads it."""
    expected = trec.read_run(write(tmp_path / "whole.jsonl", jsonl_run(300, score=float)))
    frame = pd.read_json(io.StringIO(jsonl_run(300)), lines=True)
    frame.to_csv(tmp_path / "run.csv", index=False)
    frame.to_parquet(tmp_path / "run.parquet")
    expected_halves = trec.read_run(write(tmp_path / "halves.jsonl", jsonl_run(300)))
    write(tmp_path / "changing.jsonl", jsonl_run(300, score=lambda i: i if i < 200 else float(i)))
    for name, kind in (("run.csv", "csv"), ("run.parquet", "parquet")):
        assert _streamed(monkeypatch, tmp_path / name, kind) > 10
        pd.testing.assert_frame_equal(trec.read_run(tmp_path / name), expected_halves)
    assert _streamed(monkeypatch, tmp_path / "whole.jsonl", "jsonl") > 10
    pd.testing.assert_frame_equal(trec.read_run(tmp_path / "changing.jsonl"), expected)


def test_a_bad_value_deep_in_a_streamed_frame_names_its_row(tmp_path, monkeypatch):
    frame = pd.read_json(io.StringIO(jsonl_run(300)), lines=True)
    frame.loc[282, "score"] = float("inf")
    frame.to_csv(tmp_path / "run.csv", index=False)
    frame.to_parquet(tmp_path / "run.parquet")
    assert _streamed(monkeypatch, tmp_path / "run.parquet", "parquet") > 10
    with pytest.raises(ParseError, match=r"run.csv:284: score inf is not a finite number"):
        trec.read_run(tmp_path / "run.csv")
    with pytest.raises(ParseError, match=r"run.parquet: row 283: score inf is not a finite"):
        trec.read_run(tmp_path / "run.parquet")


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_a_truncated_gzip_frame_is_one_error(kind):
    text = jsonl_run(5) if kind == "jsonl" else "qid,docno,score\nq1,d1,1\n"
    with pytest.raises(ParseError, match="not readable"):
        trec.read_run((f"run.{kind}.gz", gzip.compress(text.encode())[:-10]), format=kind)


def test_malformed_query_lists_name_the_line(tmp_path):
    path = write(tmp_path / "q.jsonl", '{"_id": "1", "text": "a"}\n{"_id": "2", "text": }\n')
    with pytest.raises(ParseError, match=r"q.jsonl:2: invalid JSON"):
        query_files.read_queries(path)
    with pytest.raises(ParseError, match=r"q.jsonl:2: invalid JSON"):
        list(query_files.iter_queries(path))
    path = write(tmp_path / "q2.jsonl", '{"_id": "1", "text": "a"}\n{"_id": "1", "text": "b"}\n')
    with pytest.raises(ParseError, match="qid '1' appears twice"):
        query_files.read_queries(path)


def test_query_lists_stream_in_frames_of_the_chunk_size(tmp_path, monkeypatch):
    from leakeval_core.io import frames

    monkeypatch.setattr(frames, "_BLOCK", 256)
    records = [{"_id": str(i), "text": f"query {i}"} for i in range(50)]
    path = write(tmp_path / "q.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    chunks = list(query_files.iter_queries(path, chunk_size=7))
    assert [len(c) for c in chunks] == [7] * 7 + [1]
    assert pd.concat(chunks).qid.tolist() == [str(i) for i in range(50)]
    bad = path.read_text().replace('"text": "query 44"', '"text": ')
    with pytest.raises(ParseError, match=r"bad.jsonl:45: invalid JSON"):
        list(query_files.iter_queries(write(tmp_path / "bad.jsonl", bad), chunk_size=7))


def test_input_files_are_never_modified(tmp_path, run):
    path = fmt.write_mteb(tmp_path / "p.json", run)
    before = path.read_bytes()
    trec.read_run(path)
    assert path.read_bytes() == before


# --------------------------------------------------------------------------- fuzz

ids = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)
values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    ids,
)


def check(reader, source):
    try:
        table = reader(source)
    except ParseError as err:
        assert err.path == source[0]
        assert err.line is None or err.line >= 1
        assert "\n" not in err.why
        return None
    assert list(table.columns[:2]) == ["qid", "docid"]
    assert not table.duplicated(["qid", "docid"]).any()
    return table


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(ids, st.dictionaries(ids, values, max_size=4), max_size=4), st.booleans())
def test_fuzz_json_mapping(mapping, v2):
    data = {"mteb_model_meta": {}, "default": {"test": mapping}} if v2 else mapping
    table = check(trec.read_run, ("fuzz.json", json.dumps(data).encode()))
    if table is not None:
        assert table.score.dtype == "float64"
    check(trec.read_qrels, ("fuzz.json", json.dumps(data, indent=1).encode()))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200).map(lambda b: b'{"q": {"' + b))
def test_fuzz_json_bytes(data):
    check(trec.read_run, ("fuzz.json", data))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ids, ids, values), max_size=6), st.sampled_from(["jsonl", "csv"]))
def test_fuzz_frames(rows, kind):
    if kind == "jsonl":
        lines = [json.dumps({"qid": q, "docid": d, "score": v}) for q, d, v in rows]
    else:
        lines = ["qid,docno,score", *(f"{q},{d},{v}" for q, d, v in rows)]
    check(lambda s: trec.read_run(s, format=kind), ("fuzz", "\n".join(lines).encode()))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ids, ids, values), max_size=6))
def test_fuzz_beir_qrels(rows):
    lines = ["query-id\tcorpus-id\tscore", *(f"{q}\t{d}\t{v}" for q, d, v in rows)]
    table = check(trec.read_qrels, ("fuzz.tsv", "\n".join(lines).encode()))
    if table is not None:
        assert table.grade.dtype == "int64"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.fixed_dictionaries({"_id": ids | st.integers(), "text": ids}), max_size=6))
def test_fuzz_jsonl_queries(records):
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    try:
        frame = query_files.read_queries(("fuzz.jsonl", data), format="jsonl")
    except ParseError as err:
        assert err.path == "fuzz.jsonl"
        return
    assert list(frame.columns) == ["qid", "text"]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(ids, ids), min_size=1, max_size=6))
def test_fuzz_parquet_and_hf_queries(tmp_path_factory, rows):
    folder = tmp_path_factory.mktemp("hf")
    frame = pd.DataFrame(rows, columns=["id", "text"])
    try:
        got = query_files.read_queries(fmt.write_hf(folder / "d", frame, shards=1), unique=False)
    except ParseError:
        return
    assert len(got) == len(frame)
    buffer = pa.BufferOutputStream()
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pandas(frame), buffer)
    parquet = ("fuzz.parquet", buffer.getvalue().to_pybytes())
    assert len(query_files.read_queries(parquet, unique=False)) == len(frame)


def test_a_saved_dataset_or_beir_folder_is_one_training_log(tmp_path, qrels):
    """Not a folder of shards: detection streams it, and the caches key on its files."""
    from leakeval_core.experiment.collections import log_size, training_chunks
    from leakeval_core.experiment.digests import source_digest

    frame = pd.DataFrame({"id": [str(i) for i in range(5)], "text": ["q"] * 5})
    hf = fmt.write_hf(tmp_path / "hf", frame)
    beir_folder = beir_with_splits(tmp_path / "beir", qrels)
    for source, rows in ((hf, 5), (beir_folder, 2)):
        assert sum(len(c) for c in training_chunks(source, chunk_size=2)) == rows
        assert log_size(source, at_most=100) == rows
        assert len(source_digest(source)) == 32
