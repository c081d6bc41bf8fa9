"""The qrels' judgments searched by (query, document): one search per ranked row.

Every run asks the same qrels for the grade of each of its rows, so the judgments are
indexed once: each gets a 64-bit key, the query's position in the high bits and a hash of
the docid in the rest, and the keys are sorted and split into buckets of one or two. A
row's key is then found in one vectorised walk over its bucket, and a key that matches is
confirmed by comparing the docid strings, trying the next equal key where they differ, so
a hash collision can never make a false match.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.io.arrays import from_numpy, to_numpy
from leakeval_core.io.hashing import HASHED_PREFIX, hash_width, string_hashes

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
        queries = max(queries, 1)
        self._hash_bits = 63 - max(1, queries.bit_length())
        hashed = string_hashes(doc_values, self._width)
        keys = self._keys(qidx, hashed[docs])
        order = np.argsort(keys)
        self._keys_sorted = keys[order]
        del keys
        self._docs = docs[order].astype(np.int32, copy=False)
        self._grades = grades[order].astype(narrowest(grades), copy=False)
        del order
        # Each query's keys split into 2^k buckets by their top hash bits, 2^k at most its
        # judgments: one or two keys a bucket on average, however unevenly queries are judged.
        bits = np.bincount(qidx, minlength=queries).clip(1, None)
        bits = np.log2(bits).astype(np.int64)  # exact powers of two stay exact
        self._bucket_shift = self._hash_bits - bits
        self._bucket_base = np.r_[0, np.cumsum(1 << bits)]
        query = np.repeat(np.arange(queries), 1 << bits)
        lowest = np.arange(len(query)) - self._bucket_base[query]  # a bucket's lowest key
        lowest <<= self._bucket_shift[query]
        lowest |= query << self._hash_bits
        del query
        start = np.searchsorted(self._keys_sorted, np.r_[lowest, np.iinfo(np.int64).max])
        self._bucket_start = start.astype(np.min_scalar_type(len(self._keys_sorted)))
        self._documents = HashSet(hashed)
        """Every docid of the qrels, hashed: `judged_documents` searches them."""

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

    def _keys(self, qidx: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """The query in the high bits, the docid's hash in the low ones, in place of
        `hashes`. The sign bit stays 0, so the keys sort the same as int64."""
        hashes >>= np.uint64(64 - self._hash_bits)
        high = qidx.astype(np.uint64)
        high <<= np.uint64(self._hash_bits)
        hashes |= high
        return hashes.view(np.int64)

    def hashes(self, doc_values: pa.Array) -> np.ndarray:
        """The docids hashed as the index hashes its own: what `grades` and
        `judged_documents` search with, computed once where a caller asks both."""
        return string_hashes(doc_values, self._width)

    def grades(
        self,
        qidx: np.ndarray,
        docs: np.ndarray,
        doc_values: pa.Array,
        hashes: np.ndarray | None = None,
    ) -> np.ndarray:
        """Each row's grade as float, NaN where the pair is not judged. A row is the query
        `qidx` (a position as in the index) and the document `doc_values[docs]`; `hashes`
        are `doc_values`' (`hashes`), where the caller has them."""
        out = np.full(len(qidx), np.nan)
        if not len(self._keys_sorted) or not len(qidx):
            return out
        wanted = self._keys(qidx, (self.hashes(doc_values) if hashes is None else hashes)[docs])
        at = self._search(wanted)
        pending = np.arange(len(qidx))
        while pending.size:  # one round per docid sharing a key: almost always one
            pending = pending[at[pending] < len(self._keys_sorted)]
            pending = pending[self._keys_sorted[at[pending]] == wanted[pending]]
            same = to_numpy(
                pc.equal(
                    doc_values.take(from_numpy(docs[pending])),
                    self._doc_values.take(from_numpy(self._docs[at[pending]])),
                )
            )
            out[pending[same]] = self._grades[at[pending[same]]]
            pending = pending[~same]
            at[pending] += 1
        return out

    def _bucket(self, keys: np.ndarray) -> np.ndarray:
        query = keys >> self._hash_bits
        hashed = keys & ((1 << self._hash_bits) - 1)
        return self._bucket_base[query] + (hashed >> self._bucket_shift[query])

    def _search(self, wanted: np.ndarray) -> np.ndarray:
        """Where each key is or would be inserted in the sorted keys.

        np.searchsorted is a chain of dependent reads across the whole index, a cache miss
        each. Here each key's bucket bounds are read for all rows at once, and the rows walk
        their buckets together, one vectorised step a round, each leaving once it reaches a
        key not below its own: a few short reads per row instead of a long chain
        (`bench/score_bench.py` times both).
        """
        bucket = self._bucket(wanted)
        at = self._bucket_start[bucket].astype(np.int64)
        end = self._bucket_start[bucket + 1]
        walking = np.flatnonzero(at < end)
        while walking.size:
            walking = walking[self._keys_sorted[at[walking]] < wanted[walking]]
            at[walking] += 1
            walking = walking[at[walking] < end[walking]]
        return at

    def judged_documents(
        self,
        doc_values: pa.Array,
        among: np.ndarray | None = None,
        hashes: np.ndarray | None = None,
    ) -> int:
        """How many of these distinct documents (those at the positions `among`, where
        given) the qrels judge, for any query: a run that shares almost none with them is in
        another id space (`scoring_warnings`). Searched by hash (`hashes`, as for `grades`)
        and confirmed by comparing the strings, because pyarrow's `is_in` would hash every
        docid of the qrels again for each run."""
        every = self.hashes(doc_values) if hashes is None else hashes
        among = np.arange(len(doc_values)) if among is None else among
        wanted = every[among]
        known = self._documents
        at = known.search(wanted)
        found = 0
        pending = np.arange(len(wanted))
        while pending.size:  # one round per docid sharing a hash: almost always one
            pending = pending[at[pending] < len(known.sorted)]
            pending = pending[known.sorted[at[pending]] == wanted[pending]]
            same = to_numpy(
                pc.equal(
                    doc_values.take(from_numpy(among[pending])),
                    self._doc_values.take(from_numpy(known.order[at[pending]])),
                )
            )
            found += int(same.sum())
            pending = pending[~same]
            at[pending] += 1
        return found


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
