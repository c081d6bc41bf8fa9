import gzip

import pandas as pd
import pytest

from leakeval_core.errors import ParseError
from leakeval_core.io import query_files, trec
from tests.support import realdata, write

RUN = "q1 Q0 d1 1 3.5 sys\nq1 Q0 d2 2 2.0 sys\nq2 Q0 d1 1 1e-3 sys\n"


def read_run_text(tmp_path, text, name="r.run"):
    return trec.read_run(write(tmp_path / name, text))


def test_run_columns_and_types(tmp_path):
    run = read_run_text(tmp_path, RUN)
    assert run.qid.tolist() == ["q1", "q1", "q2"]
    assert run.docid.tolist() == ["d1", "d2", "d1"]
    assert run.score.tolist() == [3.5, 2.0, 0.001]


@pytest.mark.parametrize(
    "variant",
    [
        RUN.replace("\n", "\r\n"),
        "\ufeff" + RUN,
        RUN.replace(" ", "\t"),
        RUN.replace("\n", "   \n"),
        RUN.rstrip("\n"),
        "\n" + RUN.replace("\n", "\n\n"),
        RUN.replace(" ", "  "),
    ],
    ids=["crlf", "bom", "tabs", "trailing-space", "no-final-newline", "blank-lines", "two-spaces"],
)
def test_harmless_variants_read_identically(tmp_path, variant):
    pd.testing.assert_frame_equal(read_run_text(tmp_path, variant), read_run_text(tmp_path, RUN))


def test_gzip_by_magic_not_name(tmp_path):
    zipped = write(tmp_path / "r.run", gzip.compress(RUN.encode()))
    plain_named_gz = write(tmp_path / "plain.run.gz", RUN)
    expected = read_run_text(tmp_path, RUN, "ref.run")
    pd.testing.assert_frame_equal(trec.read_run(zipped), expected)
    pd.testing.assert_frame_equal(trec.read_run(plain_named_gz), expected)


def test_in_memory_source_matches_file(tmp_path):
    from_bytes = trec.read_run(("upload.run", RUN.encode()))
    pd.testing.assert_frame_equal(from_bytes, read_run_text(tmp_path, RUN))


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("q1 Q0 d1 1 3.5 sys\nq1 Q0 d2 2 2.0\n", 2, "expected 6 columns"),
        ("q1 Q0 d1 1 3.5 sys\nq1 Q0 d2 2 abc sys\n", 2, "score 'abc' is not a number"),
        ("q1 Q0 d1 1 nan sys\n", 1, "score 'nan' is not finite"),
        ("q1 Q0 d1 1 3 sys\nq1 Q0 d2 2 -inf sys\n", 2, "score '-inf' is not finite"),
        (
            "q1 Q0 d1 1 3 sys\nq2 Q0 d1 1 3 sys\nq1 Q0 d1 3 1 sys\n",
            3,
            "docid 'd1' appears twice for query 'q1' (first at line 1)",
        ),
        ("\n\nq1 Q0 d1 1 3.5\n", 3, "expected 6 columns"),
        ("# a comment\nq1 Q0 d1 1 x sys\n", 2, "score 'x' is not a number"),
        ("   \n\n", 1, "file is empty"),
        ("", 1, "file is empty"),
    ],
)
def test_run_errors_name_the_line(tmp_path, text, line, why):
    path = write(tmp_path / "bad.run", text)
    with pytest.raises(ParseError) as err:
        trec.read_run(path)
    assert err.value.line == line
    assert why in err.value.why
    assert str(err.value).startswith(f"{path}:{line}: ")


def test_binary_and_invalid_utf8(tmp_path):
    with pytest.raises(ParseError, match="not a text file"):
        trec.read_run(write(tmp_path / "a.run", b"q1 Q0 d1 1 1 x\n\x00\x01\x02"))
    with pytest.raises(ParseError) as err:
        trec.read_run(write(tmp_path / "b.run", b"q1 Q0 d1 1 1 x\nq1 Q0 \xff 2 1 x\n"))
    assert err.value.line == 2 and "UTF-8" in err.value.why


@pytest.mark.parametrize(
    ("tail", "clean"),
    [
        ("é".encode(), True),  # a two-byte character cut by the window boundary
        (b"\xc3x", False),  # a cut character that never ends: ASCII follows
        (b"\xc3", False),  # ... or the file does
        (b"x\xff", False),  # an invalid byte in the second window, after ASCII
        (b"x\t", False),  # a tab in the second window
    ],
)
def test_large_files_are_checked_window_by_window(tmp_path, monkeypatch, tail, clean):
    """A file larger than one mapping is checked a window at a time, with UTF-8 state
    carried across the boundary; whatever is not clean is read line by line, which names
    the problem."""
    import mmap

    monkeypatch.setattr(trec, "MAPPED_BYTES", mmap.ALLOCATIONGRANULARITY)
    line = b"q1 Q0 d1 1 1 x\n"
    head = line * (mmap.ALLOCATIONGRANULARITY // len(line) - 1) + b"q1 Q0 d2 1 1 "
    head += b"x" * (mmap.ALLOCATIONGRANULARITY - 1 - len(head))  # the tag, to one byte short
    path = write(tmp_path / "r.run", head + tail + b"\n")
    assert (trec._clean_file(path) is not None) == clean


def test_a_file_that_cannot_be_mapped_is_read(tmp_path, monkeypatch):
    """Some file systems refuse mmap; the file is then read into memory, same result."""
    import mmap

    path = write(tmp_path / "r.run", RUN.encode())
    expected = trec.read_run(path)

    def refuse(*args, **kwargs):
        raise OSError(19, "No such device")

    monkeypatch.setattr(mmap, "mmap", refuse)
    assert trec._clean_file(path) is None
    assert trec.read_run(path).equals(expected)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ParseError, match="no such file"):
        trec.read_run(tmp_path / "nope.run")
    with pytest.raises(ParseError, match="is a directory"):
        trec.read_run(tmp_path)


def test_corrupt_gzip(tmp_path):
    data = gzip.compress(RUN.encode())[:-12]
    with pytest.raises(ParseError, match="gzip"):
        trec.read_run(write(tmp_path / "r.run.gz", data))


def test_input_file_is_not_modified(tmp_path):
    path = write(tmp_path / "r.run", RUN.replace("\n", "\r\n"))
    before = path.read_bytes()
    trec.read_run(path)
    assert path.read_bytes() == before


def test_qrels_grades_including_negative(tmp_path):
    qrels = trec.read_qrels(write(tmp_path / "q", "1 0 a 2\n1 0 b -1\n2 0 a 0\n"))
    assert qrels.grade.tolist() == [2, -1, 0]
    assert qrels.grade.dtype == "int64"


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("1 0 a 1\n1 0 b 1.5\n", 2, "grade '1.5' is not an integer"),
        ("1 0 a x\n", 1, "grade 'x' is not an integer"),
        ("1 0 a 1\n1 0 a 2\n", 2, "docid 'a' is judged twice"),
        ("1 0 a\n", 1, "expected 4 columns"),
    ],
)
def test_qrels_errors(tmp_path, text, line, why):
    with pytest.raises(ParseError) as err:
        trec.read_qrels(write(tmp_path / "q", text))
    assert (err.value.line, why in err.value.why) == (line, True)


def test_topics_sgml_variants(tmp_path):
    text = (
        "<top>\n<num> Number: 301 \n<title> International Organized Crime \n\n"
        "<desc> Description: \nIdentify organizations.\n\n<narr> Narrative: \nA relevant doc.\n"
        "</top>\n\n<top>\n<num> Number: 321 </num>\n<title>\nWomen in Parliaments \n</title>\n"
        "<desc> Description:\nPertinent.\n</desc>\n<narr> Narrative\nPertinent too.\n</narr>\n"
        "</top>\n"
    )
    topics = query_files.read_topics(write(tmp_path / "t.txt", text))
    assert topics.to_dict("records") == [
        {
            "qid": "301",
            "title": "International Organized Crime",
            "description": "Identify organizations.",
            "narrative": "A relevant doc.",
        },
        {
            "qid": "321",
            "title": "Women in Parliaments",
            "description": "Pertinent.",
            "narrative": "Pertinent too.",
        },
    ]


def test_topics_missing_tag_names_the_topic_line(tmp_path):
    text = "<top>\n<num> Number: 1\n<title> a\n</top>\n\n<top>\n<num> Number: 2\n</top>\n"
    with pytest.raises(ParseError) as err:
        query_files.read_topics(write(tmp_path / "t.txt", text))
    assert err.value.line == 6 and "no <title>" in err.value.why


def test_topics_unclosed(tmp_path):
    with pytest.raises(ParseError, match="never closed"):
        query_files.read_topics(write(tmp_path / "t.txt", "<top>\n<num> 1\n<title> a\n"))


@pytest.mark.parametrize(
    ("collection", "topics", "first", "last_title"),
    [
        ("robust04", 250, "301", "Ireland, peace talks"),
        ("core17", 50, "307", None),
        ("core18", 50, "321", None),
    ],
)
def test_real_topics(collection, topics, first, last_title):
    frame = query_files.read_topics(realdata(collection, "topics.txt"))
    assert len(frame) == topics
    assert frame.qid.iat[0] == first
    assert (frame.title.str.len() > 0).all() and (frame.description.str.len() > 0).all()
    assert (frame.narrative.str.len() > 0).all()
    assert not frame.title.str.contains("<|Number:|Description", regex=True).any()


@pytest.mark.parametrize(
    ("collection", "lines", "grades"),
    [
        ("robust04", 311_410, {0: 293_998, 1: 16_381, 2: 1_031}),
        ("core17", 30_030, {0: 21_028, 1: 5_549, 2: 3_453}),
        ("core18", 26_233, {0: 22_285, 1: 2_083, 2: 1_865}),
    ],
)
def test_real_qrels_counts(collection, lines, grades):
    qrels = trec.read_qrels(realdata(collection, "qrels.txt"))
    assert len(qrels) == lines
    assert qrels.grade.value_counts().to_dict() == grades


def test_queries_tsv_and_csv(tmp_path):
    tsv = query_files.read_queries(write(tmp_path / "q.tsv", "1\tHello   World\n2\tfoo\n"))
    assert tsv.to_dict("list") == {"qid": ["1", "2"], "text": ["Hello World", "foo"]}
    csv = query_files.read_queries(write(tmp_path / "q.csv", 'qid,query\n1,"a, b"\n2,c\n'))
    assert csv.to_dict("list") == {"qid": ["1", "2"], "text": ["a, b", "c"]}


def test_queries_errors(tmp_path):
    with pytest.raises(ParseError) as err:
        query_files.read_queries(write(tmp_path / "q.tsv", "1\ta\n2\tb\tc\n"))
    assert err.value.line == 2
    with pytest.raises(ParseError, match="header"):
        query_files.read_queries(write(tmp_path / "q.csv", "foo,bar\n1,a\n"))
    with pytest.raises(ParseError, match="appears twice"):
        query_files.read_queries(write(tmp_path / "q2.tsv", "1\ta\n1\tb\n"))


def test_real_msmarco_sample():
    sample = query_files.read_queries(realdata("msmarco", "doctrain-queries.sample.csv"))
    assert len(sample) == 18_093
    assert sample.qid.iat[0] == "186617"


def test_unique_run_names(tmp_path):
    names = trec.unique_run_names(
        [tmp_path / "a" / "x.run", tmp_path / "b" / "x.run.gz", tmp_path / "y.run"]
    )
    assert names == ["a/x", "b/x", f"{tmp_path.name}/y"]


def test_a_one_megabyte_line_is_a_clear_error(tmp_path):
    path = write(tmp_path / "huge.run", "1 Q0 d1 1 2.0 x\n" + "x" * 1_000_000 + "\n")
    with pytest.raises(ParseError) as err:
        trec.read_run(path)
    assert err.value.line == 2 and "expected 6 columns" in err.value.why


CHUNKS = [["d1", "d2", "d1"], ["d2", "d3"], [], ["d4", "d1"]]


def test_encoding_chunks_shares_one_dictionary():
    """A file read in parallel arrives in chunks; the codes must index one dictionary."""
    import pyarrow as pa

    encoded = trec.encode(pa.chunked_array(CHUNKS, pa.string()))
    assert encoded.dictionary.to_pylist() == ["d1", "d2", "d3", "d4"]
    assert encoded.indices.to_pylist() == [0, 1, 0, 1, 2, 3, 0]


def test_encoding_falls_back_when_chunks_get_their_own_dictionaries(monkeypatch):
    """Should pyarrow ever encode chunks independently, codes must still be right."""
    import pyarrow as pa
    import pyarrow.compute as pc

    real = pc.dictionary_encode

    def per_chunk(values, memory_pool=None):
        if isinstance(values, pa.ChunkedArray):
            return pa.chunked_array(
                [real(chunk, memory_pool=memory_pool) for chunk in values.chunks]
            )
        return real(values, memory_pool=memory_pool)

    monkeypatch.setattr(pc, "dictionary_encode", per_chunk)
    encoded = trec.encode(pa.chunked_array(CHUNKS, pa.string()))
    assert trec.decode(encoded).to_pylist() == [v for chunk in CHUNKS for v in chunk]
    assert encoded.dictionary.to_pylist() == ["d1", "d2", "d3", "d4"]


def test_comments_and_text_after_the_tag_are_accepted_as_by_trec_eval(tmp_path):
    """trec_eval 10 reads `#` comment lines in qrels and runs, and ignores what follows a
    run's tag (its own test files qrels.test.with-comments and results.trunc)."""
    run = write(
        tmp_path / "r.run",
        "# made by hand\nq1\tQ0\td1\t1\t  2.5\tSYS more junk at\nq1 Q0 d2 2 1.5 SYS end\n",
    )
    qrels = write(tmp_path / "q.txt", "# comment here\nq1 0 d1 1\n# another\nq1 0 d2 0\n")
    assert trec.read_run(run).to_dict("list") == {
        "qid": ["q1", "q1"],
        "docid": ["d1", "d2"],
        "score": [2.5, 1.5],
    }
    assert trec.read_qrels(qrels).grade.tolist() == [1, 0]


@pytest.mark.parametrize(
    "load", [lambda p: p, lambda p: ("upload", p.read_bytes())], ids=["file", "bytes"]
)
def test_a_comment_shaped_like_a_row_is_still_a_comment(tmp_path, load):
    """The defect (found by the property test): pyarrow's fast path read `# 0 0 0`, or
    `#301 0 d1 1`, as a judgment of query '#', since it has the columns' shape."""
    qrels = write(tmp_path / "q.txt", "301 0 d1 1\n# 0 0 0\n  #301 0 d2 1\n")
    run = write(tmp_path / "r.run", "#301 Q0 d9 1 9.5 x\n301 Q0 d1 1 2.5 x\n")
    assert trec.read_qrels(load(qrels)).to_dict("list") == {
        "qid": ["301"],
        "docid": ["d1"],
        "grade": [1],
    }
    assert trec.read_run(load(run)).docid.tolist() == ["d1"]


def test_a_path_with_a_nul_is_no_such_file():
    """A path no file can have is said as one, not as Python's complaint about it."""
    with pytest.raises(ParseError, match="no such file"):
        trec.read_run_table("a\x00b.run")


def test_a_gzipped_run_is_read_through_the_pool_its_inflated_size_calls_for(tmp_path):
    """A run parsed at full size is read through the pool for its inflated size
    (`allocator.reading_pool`): a gzipped file is sized by its trailer, not by the bytes
    it takes on disk."""
    lines = "".join(f"q1 Q0 d{i} {i + 1} {1.0 / (i + 1):.6f} r\n" for i in range(200_000))
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(lines.encode()))
    assert path.stat().st_size < len(lines) // 4
    assert trec._size(path) == len(lines)
    plain = write(tmp_path / "r.run", "q1 Q0 d1 1 2.0 r\n")
    assert trec._size(plain) == plain.stat().st_size


def test_a_run_from_a_pipe_is_read_whole(tmp_path):
    """Sizing a file for its pool never reads a pipe, whose bytes would then be gone."""
    import os
    import threading

    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    text = b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"

    def feed():
        with open(fifo, "wb") as fh:
            fh.write(text)

    feeder = threading.Thread(target=feed)
    feeder.start()
    table = trec.read_run_table(fifo)
    feeder.join()
    assert trec.decode(table.column("docid").chunk(0)).to_pylist() == ["d1", "d2"]
