"""Sharded logs in one process: reading shards, and results that do not depend on how the
log is cut or in which order its pieces are merged (what makes `--dask` byte-identical)."""

import gzip
import itertools
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leakeval_core.cli import main
from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.io import query_files
from leakeval_core.io.shards import find_shards, iter_shard, write_shards
from leakeval_core.leakage.detect import detect, topic_texts
from leakeval_core.leakage.detection_options import DetectionOptions
from leakeval_core.leakage.search import TopicIndex, keep_best, search_chunk
from leakeval_core.leakage.sharded import detect_shards
from tests.support import realdata, write

pytestmark = pytest.mark.detection  # `make check` leaves these out


def _log_with_ties() -> pd.DataFrame:
    """The real MS MARCO sample, plus exact copies of some of its queries under other qids:
    equal similarities, where only the tie rule decides which candidates are kept."""
    log = query_files.read_queries(realdata("msmarco", "doctrain-queries.sample.csv"))
    copies = log.iloc[::97].assign(qid=lambda f: "copy-" + f.qid)
    return pd.concat([log, copies], ignore_index=True).sample(frac=1.0, random_state=0)


@pytest.fixture(scope="module")
def side():
    return topic_texts(query_files.read_topics(realdata("robust04", "topics.txt")))


@pytest.fixture(scope="module")
def log():
    return _log_with_ties().reset_index(drop=True)


def _shard(log: pd.DataFrame, folder, parts: int, kinds=("tsv",)):
    folder.mkdir(parents=True, exist_ok=True)
    bounds = np.linspace(0, len(log), parts + 1).astype(int)
    for i, (start, stop) in enumerate(itertools.pairwise(bounds)):
        part = log.iloc[start:stop]
        kind = kinds[i % len(kinds)]
        name = folder / f"part-{i:03d}.{kind}"
        if kind == "parquet":
            pq.write_table(pa.Table.from_pandas(part[["qid", "text"]], preserve_index=False), name)
        else:
            text = "".join(f"{q}\t{t}\n" for q, t in zip(part.qid, part.text, strict=True))
            data = gzip.compress(text.encode()) if kind == "gz" else text.encode()
            name.write_bytes(data)
    return find_shards(folder)


def test_results_do_not_depend_on_chunk_size(side, log):
    small = detect(side, log, DetectionOptions(chunk_size=1_500))
    large = detect(side, log, DetectionOptions(chunk_size=9_000))
    assert small.to_csv(index=False) == large.to_csv(index=False)
    assert (log.qid.str.startswith("copy-")).sum() > 100  # ties were there to break


def test_candidate_merge_is_order_free(side, log):
    options = DetectionOptions()
    index, _ = TopicIndex.build(side.table.norm, log.text.str.lower(), 20, 0.3, 2**18)
    pieces = [search_chunk(index, log.iloc[i : i + 4_000]) for i in range(0, len(log), 4_000)]
    forward = keep_best(pieces, index.k)
    backward = keep_best(pieces[::-1], index.k)
    pairwise = keep_best([keep_best(pieces[::2], index.k), keep_best(pieces[1::2], index.k)], 20)
    pd.testing.assert_frame_equal(forward, backward)
    pd.testing.assert_frame_equal(forward, pairwise)
    assert forward.groupby("row").size().max() == options.top_k


def test_sharded_log_gives_the_streamed_table(side, log, tmp_path):
    shards = _shard(log, tmp_path / "log", 5, kinds=("tsv", "gz", "parquet"))
    assert [s.suffix for s in shards] == [".tsv", ".gz", ".parquet", ".tsv", ".gz"]
    streamed = detect(side, log)
    sharded, report = detect_shards(side, shards)
    assert sharded.to_csv(index=False) == streamed.to_csv(index=False)
    assert report.as_dict() == {
        "shards": 5,
        "shards_compared": 5,
        "queries_compared": len(log),
        "skipped_shards": [],
    }


def test_find_shards(tmp_path):
    folder = tmp_path / "log"
    for name in ("b.tsv", "a.parquet", ".hidden.tsv", "notes.md", "c.csv"):
        write(folder / name, "1\tx\n")
    assert [p.name for p in find_shards(folder)] == ["a.parquet", "b.tsv", "c.csv"]
    assert [p.name for p in find_shards(str(folder / "*.tsv"))] == ["b.tsv"]
    assert find_shards(folder / "b.tsv") is None
    assert find_shards("msmarco-document/train") is None
    with pytest.raises(LeakevalError, match="matches no file"):
        find_shards(str(folder / "*.gz"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(LeakevalError, match="no query shards"):
        find_shards(tmp_path / "empty")


def test_shard_formats_read_alike(tmp_path):
    text = "1\tsolar  panels\n2\tcheap flights\n"
    write(tmp_path / "a.tsv", text)
    write(tmp_path / "a.gz", gzip.compress(text.encode()))
    frame = pd.DataFrame({"query_id": ["1", "2"], "query": ["solar  panels", "cheap flights"]})
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "a.parquet")
    expected = pd.DataFrame({"qid": ["1", "2"], "text": ["solar panels", "cheap flights"]})
    for name in ("a.tsv", "a.gz", "a.parquet"):
        got = pd.concat(list(iter_shard(tmp_path / name, chunk_size=1)), ignore_index=True)
        assert got.astype(str).to_dict("list") == expected.to_dict("list"), name


@pytest.mark.parametrize(
    ("name", "data", "where", "why"),
    [
        ("bad.tsv", b"1\tok\n2\tok\n3\tone\ttoo many\n", "bad.tsv:3", "expected 2 fields, saw 3"),
        ("bad.gz", gzip.compress(b"1\tok\n" * 50_000)[:-200], "bad.gz", "corrupt gzip"),
        ("bad.parquet", b"PAR1 not really", "bad.parquet", "not a readable Parquet"),
    ],
)
def test_a_bad_shard_is_named(tmp_path, name, data, where, why):
    path = write(tmp_path / name, data)
    with pytest.raises(ParseError, match=why) as caught:
        for _ in iter_shard(path, chunk_size=1_000):
            pass
    assert str(caught.value).startswith(str(tmp_path / where))


def test_parquet_without_text_column_is_named(tmp_path):
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"qid": ["1"], "body": ["x"]}), path)
    with pytest.raises(ParseError, match=r"expected a qid column .* found qid, body"):
        list(iter_shard(path))


def test_bad_shard_fails_the_run_or_is_skipped_and_listed(side, log, tmp_path):
    shards = _shard(log, tmp_path / "log", 3)
    write(tmp_path / "log" / "part-001.tsv", "9\tfine\n10\tbroken\tline\n")
    with pytest.raises(LeakevalError, match=r"part-001\.tsv:2: .*--skip-bad-shards"):
        detect_shards(side, shards)
    pairs, report = detect_shards(side, shards, skip_bad_shards=True)
    without = detect_shards(side, [shards[0], shards[2]])[0]
    assert pairs.to_csv(index=False) == without.to_csv(index=False)
    assert [r.shard for r in report.skipped] == [str(shards[1])]
    assert (
        "part-001.tsv:2: malformed query list: expected 2 fields, saw 3" in report.skipped[0].error
    )


def test_leakage_command_on_a_sharded_log(tmp_path, capsys):
    topics = write(
        tmp_path / "t.txt",
        "<top>\n<num> Number: 7\n<title> Solar Panels\n<desc> Description:\nx\n</top>\n",
    )
    write(tmp_path / "log" / "a.tsv", "1\tsolar panels\n2\tcheap flights\n")
    write(tmp_path / "log" / "b.tsv", "3\tsolar panels cost\n4\tbroken\n5\ta\tb\n")
    out = tmp_path / "pairs.csv"
    args = ["leakage", "--topics", str(topics), "--train-queries", str(tmp_path / "log")]
    assert main([*args, "--out", str(out)]) == 2
    assert "b.tsv:3: malformed query list: expected 2 fields, saw 3" in capsys.readouterr().err
    assert main([*args, "--out", str(out), "--skip-bad-shards"]) == 0
    assert "skipped" in capsys.readouterr().err
    sidecar = json.loads((tmp_path / "pairs.csv.json").read_text())
    assert sidecar["skipped_shards"][0]["shard"] == str(tmp_path / "log" / "b.tsv")
    assert sidecar["queries_compared"] == 2 and sidecar["method"] == "lexical"
    assert pd.read_csv(out, dtype=str).train_qid.tolist() == ["1"]


def test_split_log_round_trip(tmp_path, log):
    source = tmp_path / "log.tsv"
    source.write_text("".join(f"{q}\t{t}\n" for q, t in zip(log.qid, log.text, strict=True)))
    assert (
        main(
            [
                "split-log",
                "--train-queries",
                str(source),
                "--out",
                str(tmp_path / "s"),
                "--shard-size",
                "5000",
            ]
        )
        == 0
    )
    shards = find_shards(tmp_path / "s")
    assert [s.name for s in shards][:2] == ["part-00000.parquet", "part-00001.parquet"]
    back = pd.concat([f for s in shards for f in iter_shard(s)], ignore_index=True)
    assert back.qid.tolist() == log.qid.tolist() and len(shards) == -(-len(log) // 5000)
    # never written into a folder that holds something
    assert main(["split-log", "--train-queries", str(source), "--out", str(tmp_path / "s")]) == 2
    assert len(find_shards(tmp_path / "s")) == len(shards)


def test_write_shards_refuses_an_empty_log(tmp_path):
    with pytest.raises(LeakevalError, match="empty"):
        write_shards(iter([]), tmp_path / "s", 10)


def test_log_size_counts_no_further_than_asked(tmp_path):
    from leakeval_core.experiment.collections import log_size

    write(tmp_path / "a.tsv", "1\tx\n2\ty\n3\tz")  # no final newline
    write(tmp_path / "b.csv", "qid,query\n1,x\n2,y\n")
    write(tmp_path / "c.gz", gzip.compress(b"1\tx\n" * 5))
    pq.write_table(pa.table({"qid": ["1"] * 7, "text": ["x"] * 7}), tmp_path / "d.parquet")
    assert [log_size(tmp_path / n, 100) for n in ("a.tsv", "b.csv", "c.gz", "d.parquet")] == [
        3,
        2,
        5,
        7,
    ]
    assert log_size(tmp_path, 100) == 17
    assert log_size(tmp_path, 4) == 5  # stops after the first shard that passes the limit
    assert log_size("msmarco-document/train", 10) == 367_013  # ir_datasets' published count
