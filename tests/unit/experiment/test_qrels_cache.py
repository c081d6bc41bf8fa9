"""Prepared qrels kept between commands: a command that reads them from the cache scores
exactly as one that reads the file, and the cache never serves qrels that are not the
file's, under these conventions, as they are now."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.errors import ParseError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.judgments import JudgmentIndex
from leakeval_core.experiment import cache as cache_module
from leakeval_core.experiment.cache import Cache
from leakeval_core.experiment.qrels_cache import KIND, prepared_qrels
from leakeval_core.io import trec
from leakeval_core.io.formats import Formatted

LONG = "clueweb12-0000tw-00-00001-" + "x" * 70
"""A docid longer than any of the qrels' and than the hashed prefix."""
QRELS = f"""\
q1 0 d1 2
q1 0 d2 0
q1 0 d3 1
q1 0 {LONG} 1
q2 0 d1 1
q2 0 d4 -1
q2 0 dé5 300
q3 0 d2 0
"""
RUN = f"""\
q1 Q0 d3 1 3.0 r
q1 Q0 d9 2 2.0 r
q1 Q0 d1 3 2.0 r
q1 Q0 {LONG}-not 4 1.0 r
q1 Q0 {LONG} 5 0.5 r
q2 Q0 dé5 1 1.5 r
q2 Q0 d4 2 1.0 r
q2 Q0 d2 3 0.5 r
q2 Q0 clueweb12-0000tw-00-00002 4 0.4 r
q3 Q0 d2 1 0.2 r
"""
MEASURES = ["ndcg_cut_10", "P_1", "map", "recip_rank", "judged_10", "P(rel=2)@1", "Rprec"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Cache:
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    return Cache()


def _entries(cache: Cache) -> list:
    folder = cache.root / KIND
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _scores(qrels, run, conventions=Conventions()) -> tuple[pd.DataFrame, object]:
    """Per-query values and the diagnostics, scored from the files."""
    result = api.score(qrels, {"r": str(run)}, MEASURES, conventions)
    return result.runs["r"].table, result.runs["r"].diagnostics


def _uncached(qrels, run, conventions=Conventions()) -> tuple[pd.DataFrame, object]:
    """The same from tables read here, which never touches the cache."""
    tables = trec.read_qrels_table(qrels), {"r": trec.read_run(run)}
    result = api.score(*tables, MEASURES, conventions)
    return result.runs["r"].table, result.runs["r"].diagnostics


def _unprepared(monkeypatch):
    """From here on, reading a qrels file or building a judgment index fails the test: the
    cache must serve both."""

    def refuse(*args, **kwargs):
        raise AssertionError("the qrels were read or indexed again")

    monkeypatch.setattr(trec, "read_qrels_table", refuse)
    monkeypatch.setattr(JudgmentIndex, "__init__", refuse)


@pytest.mark.parametrize(
    "conventions",
    [Conventions(), Conventions(relevance_level=2), Conventions(no_relevant="zero", depth=2)],
)
def test_scores_from_the_cache_are_the_files_scores(files, cache, monkeypatch, conventions):
    """Docids longer than the qrels' hashed width, multi-byte ones, a grade above a byte's,
    a negative one, ties, unjudged documents, measures at their own relevance level and one
    pytrec_eval computes."""
    expected = _uncached(*files, conventions)
    cold = _scores(*files, conventions)
    assert len(_entries(cache)) == 1
    _unprepared(monkeypatch)
    warm = _scores(*files, conventions)
    for table, diagnostics in (cold, warm):
        pd.testing.assert_frame_equal(table, expected[0])
        assert diagnostics == expected[1]


def test_an_edited_file_is_prepared_again(files, cache):
    qrels, _ = files
    before = _scores(*files)[0]
    qrels.write_text(QRELS.replace("q1 0 d3 1", "q1 0 d3 0"))
    after = _scores(*files)[0]
    assert len(_entries(cache)) == 2
    pd.testing.assert_frame_equal(after, _uncached(*files)[0])
    assert not after.equals(before)


def test_what_the_reading_and_the_index_depend_on_is_in_the_key(files, cache, monkeypatch):
    """The relevance level and the policy for queries without a relevant document decide
    the scored queries; the depth does not. A smaller decompression limit reads again."""
    for conventions in (Conventions(), Conventions(depth=5), Conventions(relevance_level=2)):
        _scores(*files, conventions)
    _scores(*files, Conventions(no_relevant="zero"))
    assert len(_entries(cache)) == 3
    monkeypatch.setenv("LEAKEVAL_MAX_DECOMPRESSED_MB", "1")
    _scores(*files)
    assert len(_entries(cache)) == 4


def test_each_named_part_of_a_file_is_its_own_entry(tmp_path, cache):
    """An MTEB-style file holds several splits' qrels: each read is keyed by the split named."""
    path = tmp_path / "qrels.json"
    splits = {"test": {"q1": {"d3": 1}}, "dev": {"q1": {"d1": 1}}}
    path.write_text(json.dumps({"default": splits}))
    run = tmp_path / "run.txt"
    run.write_text(RUN)
    for split in ("test", "dev", "test", "dev"):
        qrels = Formatted(path, f"json:default/{split}")
        pd.testing.assert_frame_equal(_scores(qrels, run)[0], _uncached(qrels, run)[0])
    assert len(_entries(cache)) == 2


def test_a_damaged_entry_is_rebuilt(files, cache):
    """Cut short, or one bit flipped inside an array: the checksum sees both."""
    expected = _scores(*files)[0]
    (entry,) = _entries(cache)
    whole = entry.read_bytes()
    flipped = bytearray(whole)
    flipped[len(whole) // 2] ^= 1
    for damaged in (whole[: len(whole) // 2], bytes(flipped)):
        entry.write_bytes(damaged)
        pd.testing.assert_frame_equal(_scores(*files)[0], expected)
        assert _entries(cache) == [entry] and entry.read_bytes() == whole


def test_a_whole_entry_of_another_layout_is_rebuilt(files, cache):
    """Its checksum holds, but it is not what this layout reads."""
    expected = _scores(*files)[0]
    (entry,) = _entries(cache)
    whole = entry.read_bytes()
    cache.put_bytes(KIND, entry.stem, b"not an Arrow IPC file")
    pd.testing.assert_frame_equal(_scores(*files)[0], expected)
    assert entry.read_bytes() == whole


def test_bad_qrels_are_an_error_each_time_never_cached(files, cache):
    qrels, _ = files
    qrels.write_text(QRELS + "q3 0 d7 high\n")
    for _ in range(2):
        with pytest.raises(ParseError, match=r"qrels\.txt:9: grade 'high' is not an integer"):
            _scores(*files)
    assert _entries(cache) == []


def test_a_cache_that_cannot_be_written_still_scores(files, tmp_path, monkeypatch):
    """And says so, once (the process's record of degraded caches is this test's own, so
    the notice is not left for a later command in this worker to print)."""
    monkeypatch.setattr(cache_module, "_DEGRADED", {})
    monkeypatch.setattr(cache_module, "_TAKEN", set())
    (tmp_path / "cache").write_text("a file where the folder should be")
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    pd.testing.assert_frame_equal(_scores(*files)[0], _uncached(*files)[0])
    assert cache_module.take_notices() == [Cache().notice]


def test_an_entry_larger_than_the_cache_is_not_kept(files, tmp_path):
    """Keeping it would evict every other entry, then itself."""
    small = Cache(tmp_path / "small", max_bytes=2_000)
    small.put_bytes("other", "k", b"x" * 100)
    prepared_qrels(files[0], Conventions(), small)
    assert small.get_bytes("other", "k") is not None
    assert not (small.root / KIND).is_dir() or _entries(small) == []


def test_a_folder_of_qrels_is_read_each_time(tmp_path, cache, monkeypatch):
    """A BEIR folder has no one file to key by."""
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n')
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "y"}\n')
    read = []
    real = trec.read_qrels_table
    monkeypatch.setattr(trec, "read_qrels_table", lambda *a: read.append(a) or real(*a))
    for _ in range(2):
        assert list(prepared_qrels(folder, Conventions(), cache).qids) == ["q1"]
    assert len(read) == 2 and _entries(cache) == []
