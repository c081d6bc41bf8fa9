"""Prepared qrels kept between commands: a command that reads them from the cache scores
exactly as one that reads the file, and the cache never serves qrels that are not the
file's, under these conventions, as they are now."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.experiment import qrels_cache
from leakeval_core.experiment.cache import Cache
from leakeval_core.experiment.qrels_cache import KIND, prepared_qrels
from leakeval_core.io import trec

QRELS = """\
q1 0 d1 2
q1 0 d2 0
q1 0 d3 1
q2 0 d1 1
q2 0 d4 -1
q2 0 dé5 3
q3 0 d2 0
"""
RUN = """\
q1 Q0 d3 1 3.0 r
q1 Q0 d9 2 2.0 r
q1 Q0 d1 3 2.0 r
q2 Q0 dé5 1 1.5 r
q2 Q0 d4 2 1.0 r
q2 Q0 d2 3 0.5 r
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


def _scores(files, conventions=Conventions()) -> pd.DataFrame:
    """Per-query values and the diagnostics' coverage, from the files."""
    qrels, run = files
    result = api.score(str(qrels), {"r": str(run)}, MEASURES, conventions)
    return result.runs["r"].table, result.runs["r"].diagnostics


def _uncached(files, conventions=Conventions()):
    """The same scoring from tables read here, which never touches the cache."""
    qrels, run = files
    result = api.score(
        trec.read_qrels_table(qrels), {"r": trec.read_run(run)}, MEASURES, conventions
    )
    return result.runs["r"].table, result.runs["r"].diagnostics


def _unread(monkeypatch):
    """From here on, reading a qrels file fails the test: the cache must serve it."""

    def refuse(*args, **kwargs):
        raise AssertionError("the qrels file was read again")

    monkeypatch.setattr(trec, "read_qrels_table", refuse)


@pytest.mark.parametrize(
    "conventions",
    [Conventions(), Conventions(relevance_level=2), Conventions(no_relevant="zero", depth=2)],
)
def test_scores_from_the_cache_are_the_files_scores(files, cache, monkeypatch, conventions):
    expected_table, expected_diagnostics = _uncached(files, conventions)
    cold = _scores(files, conventions)
    assert len(_entries(cache)) == 1
    _unread(monkeypatch)
    warm = _scores(files, conventions)
    for table, diagnostics in (cold, warm):
        pd.testing.assert_frame_equal(table, expected_table)
        assert diagnostics == expected_diagnostics


def test_the_index_rebuilt_from_its_arrays_finds_every_grade(files, cache):
    qrels, _ = files
    built = prepared_qrels(qrels, Conventions())
    kept = prepared_qrels(qrels, Conventions())
    assert kept.judgments is not built.judgments
    run = trec.read_run_table(files[1])
    docs = run.column("docid").chunk(0)
    qidx = built.qid_codes(run.column("qid").chunk(0).dictionary)[
        np.asarray(run.column("qid").chunk(0).indices)
    ]
    rows = qidx >= 0
    asked = (qidx[rows], np.asarray(docs.indices)[rows], docs.dictionary)
    np.testing.assert_array_equal(kept.judgments.grades(*asked), built.judgments.grades(*asked))
    assert list(kept.qids) == list(built.qids) and kept.no_relevant == built.no_relevant


def test_an_edited_file_is_prepared_again(files, cache, tmp_path):
    qrels, _ = files
    before = _scores(files)[0]
    qrels.write_text(QRELS.replace("q1 0 d3 1", "q1 0 d3 0"))
    after = _scores(files)[0]
    assert len(_entries(cache)) == 2
    pd.testing.assert_frame_equal(after, _uncached(files)[0])
    assert not after.equals(before)


def test_what_the_index_depends_on_is_in_the_key(files, cache):
    """The index holds only the scored queries' judgments, which the relevance level and
    the policy for queries without a relevant document decide; the depth does not."""
    for conventions in (Conventions(), Conventions(depth=5), Conventions(relevance_level=2)):
        _scores(files, conventions)
    _scores(files, Conventions(no_relevant="zero"))
    assert len(_entries(cache)) == 3


def test_a_damaged_entry_is_rebuilt(files, cache):
    expected = _scores(files)[0]
    (entry,) = _entries(cache)
    whole = entry.read_bytes()
    entry.write_bytes(whole[: len(whole) // 2])
    pd.testing.assert_frame_equal(_scores(files)[0], expected)
    assert _entries(cache) == [entry] and entry.read_bytes() == whole


def test_bad_qrels_are_an_error_each_time_never_cached(files, cache):
    qrels, _ = files
    qrels.write_text(QRELS + "q3 0 d7 high\n")
    for _ in range(2):
        with pytest.raises(Exception, match=r"qrels\.txt:8: grade 'high' is not an integer"):
            _scores(files)
    assert _entries(cache) == []


def test_a_cache_that_cannot_be_written_still_scores(files, tmp_path, monkeypatch):
    (tmp_path / "cache").write_text("a file where the folder should be")
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    pd.testing.assert_frame_equal(_scores(files)[0], _uncached(files)[0])


def test_a_folder_of_qrels_is_read_each_time(tmp_path, cache, monkeypatch):
    """A BEIR folder has no one file to key by."""
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n')
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "y"}\n')
    read = []
    real = qrels_cache.trec.read_qrels_table
    monkeypatch.setattr(trec, "read_qrels_table", lambda *a: read.append(a) or real(*a))
    for _ in range(2):
        assert list(prepared_qrels(folder, Conventions()).qids) == ["q1"]
    assert len(read) == 2 and _entries(cache) == []
