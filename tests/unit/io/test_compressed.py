"""Compressed input is inflated within a limit by every reader, which stops at the limit with
one message naming it and its variable, and memory never holds more than the limit."""

from __future__ import annotations

import gzip
import os
import tracemalloc
from pathlib import Path

import pytest

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.experiment import collections
from leakeval_core.io import compressed, decoded, frames, query_files, trec
from tests.support import gzip_bomb, parquet_bomb, write

LIMIT_MB = 4
BOMB = 64 << 20
"""What each bomb expands to: sixteen times the limit."""
PAST = (
    f"more than {LIMIT_MB}.0 MB once decompressed, over the decompression limit of "
    f"{LIMIT_MB}.0 MB (LEAKEVAL_MAX_DECOMPRESSED_MB)"
)


@pytest.fixture
def limited(monkeypatch):
    monkeypatch.setenv("LEAKEVAL_MAX_DECOMPRESSED_MB", str(LIMIT_MB))


BOMBS = {
    "trec run": (b"301 Q0 doc1 1 2.0 run\n", "bomb.run.gz", trec.read_run_table),
    "json lines run": (
        b'{"qid": "301", "docno": "d1", "score": 1.5}\n',
        "bomb.jsonl.gz",
        trec.read_run_table,
    ),
    "csv run": (b"301,d1,1.5\n", "bomb.csv.gz", trec.read_run_table),
    "query log": (
        b"q1\tsome query text\n",
        "log.tsv.gz",
        lambda p: list(query_files.iter_queries(p)),
    ),
    "counted log": (
        b"q1\tsome query text\n",
        "count.tsv.gz",
        lambda p: collections._count_rows(Path(p), 10**12),
    ),
}


@pytest.mark.parametrize("reader", list(BOMBS))
def test_every_reader_stops_at_the_limit_with_one_message(reader, limited, tmp_path):
    line, name, read = BOMBS[reader]
    path = tmp_path / name
    if name.endswith(".csv.gz"):  # a header first, then the line repeated
        path.write_bytes(
            gzip.compress(b"qid,docno,score\n") + gzip_bomb(tmp_path / "b", line, BOMB).read_bytes()
        )
    else:
        gzip_bomb(path, line, BOMB)
    with pytest.raises(compressed.TooLarge) as raised:
        read(path)
    assert str(raised.value) == f"{path}: {PAST}"


def test_a_json_mapping_stops_at_the_limit(limited, tmp_path):
    """ranx's `{qid: {docid: score}}`, one query's object far larger than the limit."""
    body = b",".join(b'"d%d": 1.5' % i for i in range(600_000))
    path = write(tmp_path / "run.json.gz", gzip.compress(b'{"301": {' + body + b"}}"))
    with pytest.raises(compressed.TooLarge, match="LEAKEVAL_MAX_DECOMPRESSED_MB"):
        trec.read_run_table(path)


def test_an_upload_is_held_to_the_limit_and_never_inflated_whole(limited, tmp_path):
    """In-memory bytes (an upload) the same: the read's peak stays near the limit, never the
    64 MB the bomb holds (inflated whole, the peak would be all of it)."""
    data = gzip_bomb(tmp_path / "bomb.gz", b"301 Q0 doc1 1 2.0 run\n", BOMB).read_bytes()
    tracemalloc.start()
    try:
        with pytest.raises(compressed.TooLarge, match=r"upload\.run\.gz: more than 4\.0 MB"):
            trec.load_bytes(("upload.run.gz", data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * LIMIT_MB * 1_000_000


def test_within_the_limit_every_member_is_read(tmp_path):
    """Concatenated members read as one, as gzip reads them; plain bytes pass as they are."""
    text = b"q1 Q0 d1 1 2.0 r\n" * 1000
    data = gzip.compress(text[:9000]) + gzip.compress(text[9000:])
    limit = compressed.Limit(len(text), "V", "the limit")
    assert compressed.inflate("r.gz", data, limit) == text
    assert compressed.measure("r.gz", data, limit) == len(text)
    assert compressed.inflate("r", text, limit) is text
    with pytest.raises(compressed.TooLarge, match=r"r.gz: more than 0.0 MB once decompressed"):
        compressed.inflate("r.gz", data, compressed.Limit(len(text) - 1, "V", "the limit"))


def test_measuring_names_a_plain_file_by_its_size_and_leaves_corruption_to_its_reader():
    limit = compressed.Limit(1_000_000, "LEAKEVAL_MAX_UPLOAD_MB", "the upload limit")
    with pytest.raises(
        compressed.TooLarge,
        match=r"^big.run: 2.5 MB is over the upload limit of 1.0 MB \(LEAKEVAL_MAX_UPLOAD_MB\)$",
    ):
        compressed.measure("big.run", b"x" * 2_500_000, limit)
    truncated = gzip.compress(b"q1 Q0 d1 1 2.0 r\n" * 100)[:-12]
    assert compressed.measure("t.gz", truncated, limit) <= 1700
    with pytest.raises(ParseError, match=r"t\.gz: corrupt gzip data"):
        trec.load_bytes(("t.gz", truncated))


def test_a_truncated_gzip_is_one_kind_of_error_for_every_reader(tmp_path):
    path = write(tmp_path / "q.tsv.gz", gzip.compress(b"q1\ta query\n" * 10_000)[:-100])
    with pytest.raises(ParseError, match="corrupt gzip data"):
        list(query_files.iter_queries(path))
    with pytest.raises(ParseError, match="not readable"):
        frames.read_table(("r.jsonl.gz", gzip.compress(b'{"a": 1}\n' * 100)[:-10]), "jsonl")


@pytest.mark.parametrize("setting", ["lots", "-1", "nan"])
def test_a_bad_limit_is_one_clear_error(setting, monkeypatch, tmp_path):
    monkeypatch.setenv("LEAKEVAL_MAX_DECOMPRESSED_MB", setting)
    path = write(tmp_path / "r.run.gz", gzip.compress(b"q1 Q0 d1 1 2.0 r\n"))
    with pytest.raises(LeakevalError, match=f"LEAKEVAL_MAX_DECOMPRESSED_MB='{setting}': expected"):
        trec.read_run_table(path)


LONG_ID = "d" * 100
PARQUET_BOMBS = {
    "plain strings": (
        {"qid": "301", "docno": LONG_ID, "score": 1.5},
        lambda p: trec.read_run_table(p, "parquet"),
    ),
    "run": ({"qid": "301", "docno": LONG_ID, "score": 1.5}, trec.read_run_table),
    "qrels": ({"qid": "301", "docno": LONG_ID, "label": 1}, trec.read_qrels_table),
    "query list": ({"qid": LONG_ID, "query": "text"}, lambda p: list(query_files.iter_queries(p))),
    "whole table": ({"qid": "301", "docno": LONG_ID}, lambda p: frames.read_table(p, "parquet")),
}


@pytest.mark.parametrize("reader", list(PARQUET_BOMBS))
def test_a_parquet_file_is_counted_by_what_it_decodes_to(reader, limited, tmp_path):
    """A Parquet file is dictionary-encoded and compressed: its size says nothing of what it
    holds, so what its batches decode to is counted against the same limit, with the same
    message, a dictionary's value counted once per row that names it (a million rows of a
    100-character id: 110 MB decoded, from a few hundred kilobytes)."""
    row, read = PARQUET_BOMBS[reader]
    path = parquet_bomb(tmp_path / "bomb.parquet", 1 << 20, row, plain=reader == "plain strings")
    assert path.stat().st_size < 1_000_000
    with pytest.raises(compressed.TooLarge) as raised:
        read(path)
    assert str(raised.value) == f"{path}: {PAST}"


def test_an_uploaded_parquet_file_is_measured_by_what_it_decodes_to(tmp_path):
    """The dashboard measures an upload before it keeps it: a Parquet file by its decoded
    batches (the same count as its reader's), refused past the upload limit."""
    row = {"qid": "301", "docno": LONG_ID, "score": 1.5}
    data = parquet_bomb(tmp_path / "bomb.parquet", 1 << 20, row).read_bytes()
    upload = compressed.Limit(4_000_000, "LEAKEVAL_MAX_UPLOAD_MB", "the upload limit")
    with pytest.raises(compressed.TooLarge, match=r"^up.parquet: more than 4\.0 MB once decomp"):
        decoded.measure("up.parquet", data, upload)
    small = parquet_bomb(tmp_path / "small.parquet", 1000, row).read_bytes()
    # 1000 rows of (3 + 4) + (100 + 4) + 8 bytes (and a validity bitmap): the decoded size
    assert 1000 * (7 + 104 + 8) <= decoded.measure("small.parquet", small, upload) < 120_000
    assert len(small) < 2_000


@pytest.mark.parametrize(("plain", "length"), [(False, 256), (True, 100_000)])
def test_a_parquet_bomb_leaves_the_command_within_its_memory(plain, length, tmp_path):
    """`leakeval score` on a Parquet file of gigabytes once decoded (4M rows of a long id),
    in a process of its own: it exits naming the limit, its peak resident memory far below
    what the file decodes to. Read whole, 256-byte ids in arrow's dictionaries peaked at
    1.27 GB; read a batch at a time as plain strings, 100 KB ids peaked at 8.8 GB."""
    import subprocess
    import sys

    row = {"qid": "301", "docno": "d" * length, "score": 1.5}
    bomb = parquet_bomb(tmp_path / "bomb.parquet", 4 << 20, row, plain)
    qrels = write(tmp_path / "qrels.txt", b"301 0 d1 1\n")
    command = [sys.executable, "-m", "leakeval_core.cli", "score", "--qrels", str(qrels)]
    measure_child = (
        "import resource, subprocess, sys; "
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300); "
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
        "print(done.stderr)"
    )
    env = {**os.environ, "LEAKEVAL_MAX_DECOMPRESSED_MB": "50"}
    out = subprocess.run(
        [sys.executable, "-c", measure_child, *command, "--run", str(bomb)],
        capture_output=True,
        text=True,
        env=env,
        timeout=360,
        check=True,
    ).stdout
    status, peak_kb = map(int, out.split("\n", 1)[0].split())
    assert status == 2
    assert "over the decompression limit of 50.0 MB (LEAKEVAL_MAX_DECOMPRESSED_MB)" in out
    assert peak_kb < 400_000, out


def test_a_saved_dataset_is_counted_by_what_its_batches_decode_to(limited, tmp_path):
    """A Hugging Face dataset saved to disk is arrow IPC streams: a dictionary column is
    counted once per row, across every data file together."""
    import pandas as pd

    from tests.formats import write_hf

    rows = 1 << 19
    frame = pd.DataFrame({"id": pd.Categorical([LONG_ID] * rows), "text": ["q"] * rows})
    folder = write_hf(tmp_path / "hf", frame, shards=4)
    with pytest.raises(compressed.TooLarge) as raised:
        list(query_files.iter_queries(folder))
    assert str(raised.value) == f"{folder}: {PAST}"
