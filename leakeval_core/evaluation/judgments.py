"""The qrels' judgments searched by (query, document): one search per ranked row.

Every run asks the same qrels for the grade of each of its rows, so the judgments are
indexed once, by document. A run's distinct docids are first found among the qrels' own:
each is hashed, looked up in the qrels' hashed docids, and confirmed by comparing the
strings, trying the next equal hash where they differ, so a hash collision can never make a
false match. A row is then its query and a document position, and its grade is found among
that document's judgments (one or two for most documents) by integers alone.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.io.arrays import from_numpy, to_numpy
from leakeval_core.io.hashing import HASHED_PREFIX, hash_width, string_hashes
from leakeval_core.io.pairs import pair_keys

__all__ = ["HashSet", "JudgmentIndex", "narrowest"]


class JudgmentIndex:
    """Grades of (query, document) pairs, looked up for many runs."""

    PREFIX = HASHED_PREFIX
    """Bytes of each docid that are hashed: strings alike in these (and in length) are told
    apart by comparing them."""

    def __init__(
        self,
        queries: int,
        qidx: np.ndarray,
        docs: np.ndarray,
        doc_values: pa.Array,
        grades: np.ndarray,
    ) -> None:
        """`qidx`: each judgment's query as a position below `queries`, which is how rows
        name their queries too; `docs`: its document as a position in `doc_values`;
        `grades` in the same order."""
        self._doc_values = doc_values
        self._width = hash_width(doc_values, self.PREFIX)
        order = np.argsort(pair_keys(docs, qidx, queries))
        self._queries = qidx[order].astype(np.min_scalar_type(max(queries - 1, 0)), copy=False)
        """Each judgment's query, the judgments in document order, each document's by query."""
        self._grades = grades[order].astype(narrowest(grades), copy=False)
        del order
        self._count = max(queries, 1)
        """The queries judgments may be for (a row's query is below it)."""
        self._first = np.zeros(len(doc_values) + 1, np.min_scalar_type(len(qidx)))
        """Where each document's judgments start in `_queries`, and where the last end."""
        np.cumsum(np.bincount(docs, minlength=len(doc_values)), out=self._first[1:])
        self._documents = HashSet(string_hashes(doc_values, self._width))
        """Every docid of the qrels, hashed: `documents` searches them."""

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, int]]:
        """The index as named arrays and numbers, without the docids it was built over: what
        `from_arrays` rebuilds it from in another process (`qrels_cache`). The hash set's
        are named `documents.*`."""
        named = {n: v for n, v in vars(self).items() if n not in ("_doc_values", "_documents")}
        named.update({f"documents.{n}": v for n, v in vars(self._documents).items()})
        arrays = {n: v for n, v in named.items() if isinstance(v, np.ndarray)}
        return arrays, {n: int(v) for n, v in named.items() if n not in arrays}

    @classmethod
    def from_arrays(
        cls, doc_values: pa.Array, arrays: dict[str, np.ndarray], numbers: dict[str, int]
    ) -> JudgmentIndex:
        """The index `to_arrays` gave, over the same `doc_values`, without building it."""
        index, documents = cls.__new__(cls), HashSet.__new__(HashSet)
        index._doc_values, index._documents = doc_values, documents
        for name, value in [*arrays.items(), *numbers.items()]:
            owner, _, own = name.rpartition(".")
            setattr(documents if owner else index, own, value)
        return index

    def examples(self, count: int) -> tuple[str, ...]:
        """The first `count` docids of the qrels: what a run's are shown beside when they
        look not to match (`scoring_warnings`)."""
        return tuple(self._doc_values.slice(0, count).to_pylist())

    def documents(self, doc_values: pa.Array) -> np.ndarray:
        """Each of these distinct docids' position among the qrels' docids, -1 where the
        qrels judge it for no query: what `grades` looks rows up by, and how much of a run
        the qrels judge (`scoring_warnings`). Searched by hash and confirmed by comparing
        the strings, because pyarrow's `index_in` would hash every docid of the qrels again
        for each run."""
        wanted = string_hashes(doc_values, self._width)
        known = self._documents
        at = known.search(wanted)
        out = np.full(len(wanted), -1, np.int64)
        pending = np.arange(len(wanted))
        while pending.size:  # one round per docid sharing a hash: almost always one
            pending = pending[at[pending] < len(known.sorted)]
            pending = pending[known.sorted[at[pending]] == wanted[pending]]
            position = known.order[at[pending]]
            same = to_numpy(
                pc.equal(
                    pc.take(doc_values, from_numpy(pending)),
                    pc.take(self._doc_values, from_numpy(position)),
                )
            )
            out[pending[same]] = position[same]
            pending = pending[~same]
            at[pending] += 1
        return out

    def grades(self, qidx: np.ndarray, documents: np.ndarray) -> np.ndarray:
        """Each row's grade as float, NaN where the pair is not judged. A row is the query
        `qidx` (a position as in the index) and the document `documents`, its position
        among the qrels' docids as `documents` gives it (-1: none).

        Each row first looks where its query would be were its document's judgments
        spread evenly over the queries, which is where most are found (a document is judged
        for one query or a few), then bisects what is left of its document's judgments,
        all rows a step at a time: eight steps at most for a document judged for every
        query of Robust04. A document has each query's judgment once (the readers refuse
        a pair twice).
        """
        out = np.full(len(qidx), np.nan)
        if not len(self._queries):  # docids judged for no scored query, at most
            return out
        rows = np.flatnonzero(documents >= 0)
        low = self._first[documents[rows]].astype(np.int64)
        end = self._first[documents[rows] + 1]
        high = end.astype(np.int64)
        wanted = qidx[rows]
        judged = low < high
        guess = np.minimum(low + wanted * (high - low) // self._count, len(self._queries) - 1)
        hit = judged & (self._queries[guess] == wanted)
        out[rows[hit]] = self._grades[guess[hit]]
        left = np.flatnonzero(judged & ~hit)
        active = left
        while active.size:
            middle = (low[active] + high[active]) >> 1
            below = self._queries[middle] < wanted[active]
            low[active] = np.where(below, middle + 1, low[active])
            high[active] = np.where(below, high[active], middle)
            active = active[low[active] < high[active]]
        left = left[low[left] < end[left]]
        left = left[self._queries[low[left]] == wanted[left]]
        out[rows[left]] = self._grades[low[left]]
        return out


class HashSet:
    """64-bit hashes, sorted and split into buckets by their top bits, one or two hashes a
    bucket: `search` finds where each of many hashes is, or would be inserted, in a short
    vectorised walk through its bucket, where `np.searchsorted` would run a chain of
    dependent reads across the whole array for each."""

    def __init__(self, hashes: np.ndarray) -> None:
        positions = np.min_scalar_type(max(len(hashes), 1))
        self.order = np.argsort(hashes).astype(positions)
        """Each sorted hash's position among the hashes given."""
        self.sorted = hashes[self.order]
        # one bucket per two hashes: two on average, and half the bounds to keep
        bits = max(1, len(hashes).bit_length() - 1)
        self._shift = 64 - bits
        counts = np.bincount((self.sorted >> self._shift).astype(np.intp), minlength=1 << bits)
        self._start = np.zeros(len(counts) + 1, positions)
        np.cumsum(counts, out=self._start[1:])

    def search(self, wanted: np.ndarray) -> np.ndarray:
        """As `np.searchsorted(self.sorted, wanted)`."""
        bucket = (wanted >> self._shift).astype(np.int64)
        at = self._start[bucket].astype(np.int64)
        end = self._start[bucket + 1]
        walking = np.flatnonzero(at < end)
        while walking.size:
            walking = walking[self.sorted[at[walking]] < wanted[walking]]
            at[walking] += 1
            walking = walking[at[walking] < end[walking]]
        return at


def narrowest(grades: np.ndarray) -> np.dtype:
    """The smallest integer type holding every grade (one byte for any usual qrels,
    negative grades included). Signed where a grade is negative: a signed type holds its
    own minimum's magnitude minus one at the top, so that is what the maximum is held to."""
    if not len(grades):
        return np.dtype(np.int8)
    low, high = int(grades.min()), int(grades.max())
    return np.min_scalar_type(min(low, -high - 1) if low < 0 else high)
