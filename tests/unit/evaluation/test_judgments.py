"""The qrels' judgment index against a plain dict lookup: hash collisions, prefixes, skewed
queries and documents judged for many queries never give a wrong grade."""

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
    found = index.grades(np.array([q for q, _ in rows], np.int32), index.documents(docs))
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
    """One query with 5,000 judgments beside queries with one."""
    judged = {(0, f"doc{i}"): i % 3 for i in range(5000)}
    judged.update({(q, f"doc{q}"): 1 for q in range(1, 40)})
    asked = [(0, f"doc{i}") for i in range(0, 5200, 7)] + [(q, f"doc{q}") for q in range(1, 45)]
    asked += [(q, "doc0") for q in range(1, 40)]
    assert _grades(_index(judged, 45), asked) == [judged.get(row) for row in asked]


def test_a_document_judged_for_hundreds_of_queries_is_found_for_each():
    """Robust04 judges one document for 176 topics: every query it is judged for is found
    by bisection among its judgments, at either end and between, and the queries it is not
    judged for (every third, and those past the last) find nothing."""
    judged = {(q, "popular"): q % 5 for q in range(300) if q % 3}
    judged.update({(q, f"d{q}"): 1 for q in range(0, 300, 7)})
    asked = [(q, "popular") for q in range(310)] + [(q, f"d{q}") for q in range(0, 310, 7)]
    asked += [(q, f"d{q + 1}") for q in range(0, 300, 7)]
    assert _grades(_index(judged, 310), asked) == [judged.get(row) for row in asked]


def test_an_index_without_judgments_finds_nothing():
    index = JudgmentIndex(
        1, np.zeros(0, np.int32), np.zeros(0, np.int32), pa.array([], pa.string()), np.zeros(0)
    )
    assert _grades(index, [(0, "d1")]) == [None]
    assert index.documents(pa.array(["d1"])).tolist() == [-1]


def test_a_docid_in_the_qrels_without_a_scored_judgment_has_no_grade():
    """The qrels' docids are all known (how much of a run they judge), but the index holds
    the scored queries' judgments only: here there are none."""
    index = JudgmentIndex(
        1, np.zeros(0, np.int32), np.zeros(0, np.int32), pa.array(["d1"]), np.zeros(0)
    )
    assert index.documents(pa.array(["d1"])).tolist() == [0]
    assert _grades(index, [(0, "d1")]) == [None]


@given(
    judged=st.dictionaries(st.tuples(st.integers(0, 4), _DOCIDS), st.integers(-2, 4), max_size=40),
    asked=st.sets(_DOCIDS, max_size=30),
    start=st.integers(0, 3),
)
def test_property_documents_are_found_where_the_qrels_hold_them(judged, asked, start):
    """Each of a run's distinct documents at its position among the qrels' docids, -1 where
    the qrels judge it for no query, the run's docids cut at an offset as arrow slices
    them."""
    if not judged:
        return
    docs = pa.array(["pad"] * start + sorted(asked), pa.string()).slice(start)
    position = {d: i for i, d in enumerate(sorted({d for _, d in judged}))}
    found = _index(judged, 5).documents(docs).tolist()
    assert found == [position.get(d, -1) for d in sorted(asked)]


def test_documents_alike_in_their_hashed_prefix_are_told_apart(monkeypatch):
    monkeypatch.setattr(JudgmentIndex, "PREFIX", 8)
    judged = {(0, "abcdefgh-1"): 1, (0, "abcdefgh-2"): 0, (1, "abcdefgh-3"): 2}
    asked = pa.array(["abcdefgh-3", "abcdefgh-9", "abcdefgh-1", "abcdefgh-8"], pa.string())
    assert _index(judged, 2).documents(asked).tolist() == [2, -1, 0, -1]


@given(
    known=st.lists(st.integers(0, 2**64 - 1), max_size=200),
    wanted=st.lists(st.integers(0, 2**64 - 1), max_size=50),
)
def test_property_hash_set_search_agrees_with_searchsorted(known, wanted):
    """Hashes in the set and between them, at either end of the range, repeated ones."""
    hashes = HashSet(np.array(known + known[:10], np.uint64))
    asked = np.array(wanted + known[:20], np.uint64)
    np.testing.assert_array_equal(hashes.search(asked), np.searchsorted(hashes.sorted, asked))
