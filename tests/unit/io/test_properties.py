"""Property tests: any bytes give either a valid frame or a ParseError, nothing else."""

import math

from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.errors import ParseError
from leakeval_core.io import query_files, trec

token = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Cc")), min_size=1, max_size=8
)
score = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), token)
whitespace = st.sampled_from([" ", "\t", "  ", " \t"])


@st.composite
def run_like(draw):
    lines = draw(st.lists(st.lists(st.one_of(token, score), min_size=4, max_size=7), max_size=8))
    sep = draw(whitespace)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(sep.join(parts) for parts in lines).encode()


def check(reader, data):
    try:
        frame = reader(("fuzz", data))
    except ParseError as err:
        assert err.path == "fuzz"
        assert err.line is None or err.line >= 1
        return None
    return frame


@given(st.binary(max_size=300))
def test_property_run_reader_on_any_bytes(data):
    check(trec.read_run, data)


@given(run_like())
def test_property_run_reader_on_run_like_text(data):
    frame = check(trec.read_run, data)
    if frame is not None:
        assert list(frame.columns) == ["qid", "docid", "score"]
        assert all(math.isfinite(s) for s in frame.score)
        assert not frame.duplicated(["qid", "docid"]).any()


@given(st.binary(max_size=300))
def test_property_qrels_reader_on_any_bytes(data):
    frame = check(trec.read_qrels, data)
    if frame is not None:
        assert frame.grade.dtype == "int64"


@given(st.lists(st.tuples(token, token, token, st.integers(-3, 4).map(str) | token), max_size=8))
def test_property_qrels_reader_on_qrels_like_text(rows):
    frame = check(trec.read_qrels, "\n".join(" ".join(r) for r in rows).encode())
    if frame is not None:  # a line whose first token starts with '#' is a comment
        assert len(frame) == sum(not qid.startswith("#") for qid, *_ in rows)


@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_property_topics_reader(data):
    frame = check(query_files.read_topics, data)
    if frame is not None:
        assert list(frame.columns) == ["qid", "title", "description", "narrative"]


@given(st.text(alphabet="<>/topnumiledscar \n:0123456789", max_size=300))
def test_property_topics_reader_on_tag_soup(text):
    check(query_files.read_topics, text.encode())


@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_property_queries_reader(data):
    frame = check(query_files.read_queries, data)
    if frame is not None:
        assert list(frame.columns) == ["qid", "text"]
        assert frame.qid.is_unique


@given(st.text(max_size=400))
def test_property_manifest_reader(tmp_path_factory, text):
    from leakeval_core.errors import LeakevalError
    from leakeval_core.experiment.manifest import load_experiment

    folder = tmp_path_factory.mktemp("manifest")
    (folder / "experiment.toml").write_text(text, encoding="utf-8")
    try:
        load_experiment(folder)
    except LeakevalError as err:  # ParseError is a LeakevalError
        assert str(err)


@given(st.one_of(run_like(), st.binary(max_size=300)))
def test_property_run_file_reads_like_its_bytes(data):
    """A file on disk may go to pyarrow by path; it must read exactly as its bytes do
    (same frame, or an error at the same line for the same reason)."""
    import tempfile
    from pathlib import Path

    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.run"
        path.write_bytes(data)
        outcomes = []
        for source in (str(path), (str(path), data)):
            try:
                outcomes.append(trec.read_run(source))
            except ParseError as err:
                outcomes.append((err.line, err.why))
    if isinstance(outcomes[0], pd.DataFrame) and isinstance(outcomes[1], pd.DataFrame):
        pd.testing.assert_frame_equal(outcomes[0], outcomes[1])
    else:
        assert outcomes[0] == outcomes[1]
