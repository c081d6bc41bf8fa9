"""The qrels' judgment index against a plain dict lookup: hash collisions, prefixes, skewed
queries and buckets never give a wrong grade."""

import numpy as np
import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.evaluation.judgments import HashSet, JudgmentIndex

_DOCIDS = st.text(alphabet="ab-é0", min_size=0, max_size=6)


def _index(judgments: dict[tuple[int, str], int], queries: int) -> JudgmentIndex:
    docs = sorted({d for _, d in judgments})
    position = {d: i for i, d in enumerate(docs)}
    pairs = list(judgments.items())
    return JudgmentIndex(
        queries,
        np.array([q for (q, _), _ in pairs], np.int32),
        np.array([position[d] for (_, d), _ in pairs], np.int32),
        pa.array(docs, pa.string()),
        np.array([g for _, g in pairs], np.int64),
    )


def _grades(index: JudgmentIndex, rows: list[tuple[int, str]], start: int = 0) -> list:
    """Looked-up grades of (query, docid) rows, the docids as an array cut at an offset
    (its offsets buffer does not start at 0), None where unjudged."""
    docs = pa.array(["pad"] * start + [d for _, d in rows], pa.string()).slice(start)
    found = index.grades(np.array([q for q, _ in rows], np.int32), np.arange(len(rows)), docs)
    return [None if np.isnan(g) else int(g) for g in found]


@given(
    judged=st.dictionaries(st.tuples(st.integers(0, 4), _DOCIDS), st.integers(-2, 4), max_size=40),
    asked=st.lists(st.tuples(st.integers(0, 4), _DOCIDS), max_size=30),
    start=st.integers(0, 3),
)
def test_property_grades_are_a_dict_lookup(judged, asked, start):
    """Prefixes ("ab" vs "ab-"), empty and multi-byte docids, a docid judged for another
    query only, queries absent from the index."""
    if not judged:
        return
    expected = [judged.get(row) for row in asked]
    assert _grades(_index(judged, 5), asked, start) == expected


def test_docids_alike_in_their_hashed_prefix_are_told_apart(monkeypatch):
    """Only the first PREFIX bytes and the length are hashed: docids alike in both share a
    key, and each must still find its own grade (and no other) by comparing the strings."""
    monkeypatch.setattr(JudgmentIndex, "PREFIX", 8)
    long = "abcdefgh" + "x" * 5000
    judged = {(0, "abcdefgh-1"): 1, (0, "abcdefgh-2"): 2, (0, "abcdefgh-3"): 3, (0, long): 4}
    judged[(1, "abcdefgh-2")] = 0
    asked = [(0, "abcdefgh-3"), (0, "abcdefgh-1"), (0, "abcdefgh-9"), (0, "abcdefgh-2")]
    asked += [(1, "abcdefgh-2"), (1, "abcdefgh-1"), (0, long), (0, long[:-1] + "y")]
    assert _grades(_index(judged, 2), asked) == [3, 1, None, 2, 0, None, 4, None]


def test_a_query_judged_far_more_than_the_others_is_still_found():
    """Buckets are sized per query: one query with 5,000 judgments beside queries with one."""
    judged = {(0, f"doc{i}"): i % 3 for i in range(5000)}
    judged.update({(q, f"doc{q}"): 1 for q in range(1, 40)})
    asked = [(0, f"doc{i}") for i in range(0, 5200, 7)] + [(q, f"doc{q}") for q in range(1, 45)]
    asked += [(q, "doc0") for q in range(1, 40)]
    assert _grades(_index(judged, 45), asked) == [judged.get(row) for row in asked]


def test_search_agrees_with_searchsorted():
    """The bucketed walk lands where numpy's binary search does, for keys in the index and
    between them."""
    rng = np.random.default_rng(0)
    judged = {(int(q), f"d{int(d)}"): 1 for q, d in rng.integers(0, [30, 900], (3000, 2))}
    index = _index(judged, 30)
    wanted = np.sort(rng.choice(index._keys_sorted, 500))
    wanted = np.r_[wanted, wanted + 1, wanted - 1, 0, index._keys_sorted[-1] + 1]
    np.testing.assert_array_equal(
        index._search(wanted), np.searchsorted(index._keys_sorted, wanted)
    )


def test_an_index_without_judgments_finds_nothing():
    index = JudgmentIndex(
        1, np.zeros(0, np.int32), np.zeros(0, np.int32), pa.array([], pa.string()), np.zeros(0)
    )
    assert _grades(index, [(0, "d1")]) == [None]
    assert index.judged_documents(pa.array(["d1"])) == 0


@given(
    judged=st.dictionaries(st.tuples(st.integers(0, 4), _DOCIDS), st.integers(-2, 4), max_size=40),
    asked=st.sets(_DOCIDS, max_size=30),
    start=st.integers(0, 3),
)
def test_property_judged_documents_is_a_set_intersection(judged, asked, start):
    """How many of a run's distinct documents the qrels judge for any query, the run's
    docids cut at an offset as arrow slices them."""
    if not judged:
        return
    docs = pa.array(["pad"] * start + sorted(asked), pa.string()).slice(start)
    assert _index(judged, 5).judged_documents(docs) == len(asked & {d for _, d in judged})


def test_judged_documents_alike_in_their_hashed_prefix_are_told_apart(monkeypatch):
    monkeypatch.setattr(JudgmentIndex, "PREFIX", 8)
    judged = {(0, "abcdefgh-1"): 1, (0, "abcdefgh-2"): 0, (1, "abcdefgh-3"): 2}
    asked = pa.array(["abcdefgh-3", "abcdefgh-9", "abcdefgh-1", "abcdefgh-8"], pa.string())
    assert _index(judged, 2).judged_documents(asked) == 2


@given(
    known=st.lists(st.integers(0, 2**64 - 1), max_size=200),
    wanted=st.lists(st.integers(0, 2**64 - 1), max_size=50),
)
def test_property_hash_set_search_agrees_with_searchsorted(known, wanted):
    """Hashes in the set and between them, at either end of the range, repeated ones."""
    hashes = HashSet(np.array(known + known[:10], np.uint64))
    asked = np.array(wanted + known[:20], np.uint64)
    np.testing.assert_array_equal(hashes.search(asked), np.searchsorted(hashes.sorted, asked))
