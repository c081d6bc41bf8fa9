"""Runs and qrels as dictionary-encoded arrow tables, and lookups between string sets.

Every scorer works on integer codes; these helpers turn whatever the user passed (the
readers' tables, pandas frames) into that one shape, without copying the readers' columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.io import trec
from leakeval_core.io.arrays import from_numpy, to_numpy

if TYPE_CHECKING:
    import pandas as pd

    RunLike = pd.DataFrame | pa.Table
    """A run (qid, docid, score) or qrels (qid, docid, grade) as a frame or arrow table."""

__all__ = ["StringIndex", "as_table", "codes", "dictionary", "rank_within", "strings"]


def rank_within(group: np.ndarray) -> np.ndarray:
    """1-based position of each row within its run of equal, adjacent group ids."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lengths = np.diff(np.r_[starts, n])
    return np.arange(n) - np.repeat(starts, lengths) + 1


def strings(values: pd.Series | pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Strings as pyarrow `string`, the CSV reader's type, so arrays from files are never
    copied; other inputs (pandas' large_string) are cast once."""
    array = values if isinstance(values, pa.Array | pa.ChunkedArray) else pa.array(values)
    return array if array.type == pa.string() else array.cast(pa.string())


def codes(values: pa.Array | pa.ChunkedArray, value_set: pa.Array) -> np.ndarray:
    """Index of each value in `value_set` (a hash lookup in pyarrow), -1 where absent."""
    found = pc.index_in(strings(values), value_set=strings(value_set))
    return to_numpy(found, fill=-1).astype(np.int64)


class StringIndex:
    """A set of distinct strings looked up many times, such as the judged documents every
    run is checked against.

    `codes` hashes its whole value set on every call: 0.02 s for Robust04's 175k judged
    documents, paid once per run file. Here each string's first `PREFIX` bytes, padded to
    a multiple of 8, are read as 64-bit words and hashed with its length to one integer,
    once; a lookup hashes the looked-up strings the same way, binary-searches the sorted
    hashes (in sorted order, which keeps the search in cache) and compares the strings of
    every hash that matches, trying the next equal hash where they differ. A collision can
    never make a false match, and an outlier docid of 10 kB costs no more than one of 64
    bytes. Only the hashes and their order are kept beside the strings.
    """

    PREFIX = 64
    """Bytes of each string that are hashed (docids are shorter almost everywhere)."""
    _BLOCK = 1 << 20
    """Strings looked up per round: bounds a 10M-document run's temporaries."""

    def __init__(self, values: pa.Array) -> None:
        self._values = strings(values)
        self._width = 8 * max(1, -(-min(_longest(self._values), self.PREFIX) // 8))
        hashes = _hash(self._values, self._width)
        order = np.argsort(hashes, kind="stable")
        self._order = order.astype(np.int32)  # positions in an arrow array: int32 fits
        self._hashes = hashes[order]

    def positions(self, values: pa.Array) -> np.ndarray:
        """Each value's position in the indexed strings, -1 where absent."""
        values = strings(values)
        out = np.full(len(values), -1, np.int64)
        if not len(self._hashes):
            return out
        for start in range(0, len(values), self._BLOCK):
            block = values.slice(start, self._BLOCK)
            hashes = _hash(block, self._width)
            by_hash = np.argsort(hashes)
            at = np.empty(len(block), np.int64)
            at[by_hash] = np.searchsorted(self._hashes, hashes[by_hash])
            pending = np.arange(len(block))
            while pending.size:  # one round per string sharing a hash: almost always one
                pending = pending[at[pending] < len(self._hashes)]
                pending = pending[self._hashes[at[pending]] == hashes[pending]]
                candidates = self._order[at[pending]]
                same = to_numpy(
                    pc.equal(
                        block.take(from_numpy(pending)),
                        self._values.take(from_numpy(candidates)),
                    )
                )
                out[start + pending[same]] = candidates[same]
                pending = pending[~same]
                at[pending] += 1
        return out


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _hash(values: pa.Array, width: int) -> np.ndarray:
    """One 64-bit hash per string, of its first `width` bytes and its length (multiply-xor
    mixing), as int64: numpy's searchsorted is four times faster on int64 than on uint64."""
    lengths = to_numpy(pc.binary_length(values)) if len(values) else np.zeros(0, np.int32)
    words = _words(values, width, int(lengths.max(initial=0)))
    out = lengths.astype(np.uint64)
    out *= _MIX[0]
    for column in range(words.shape[1]):
        out ^= words[:, column]
        out *= _MIX[1]
    out ^= out >> np.uint64(31)
    out *= _MIX[2]
    return (out ^ (out >> np.uint64(29))).view(np.int64)


def _words(values: pa.Array, width: int, longest: int) -> np.ndarray:
    """Each string's first `width` bytes, padded with spaces to `width`, as rows of
    `width / 8` 64-bit words (a view of pyarrow's padded copy)."""
    if not len(values):
        return np.zeros((0, width // 8), np.uint64)
    if longest <= width:
        padded = pc.ascii_rpad(values, width=width, padding=" ")  # pads bytes, not characters
    else:  # cut first, as bytes: a cut may split a character, which binary does not mind
        cut = pc.binary_slice(values.cast(pa.binary()), 0, width)
        pad = pa.scalar(b" " * width, pa.binary())
        padded = pc.binary_slice(
            pc.binary_join_element_wise(cut, pad, pa.scalar(b"", pa.binary())), 0, width
        )
    bounds = np.frombuffer(
        padded.buffers()[1], np.int32, count=len(padded) + 1, offset=padded.offset * 4
    )
    data = np.frombuffer(padded.buffers()[2], np.uint8)[bounds[0] : bounds[-1]]
    return data.view("<u8").reshape(len(values), width // 8)


def _longest(values: pa.Array) -> int:
    """Byte length of the longest string."""
    return int(pc.max(pc.binary_length(values)).as_py() or 0) if len(values) else 0


def as_table(frame: RunLike, value: str = "score") -> pa.Table:
    """A run or qrels as the readers return them: qid and docid dictionary-encoded (one
    chunk each), and the value column."""
    return pa.table(
        {
            "qid": _encoded(frame["qid"]),
            "docid": _encoded(frame["docid"]),
            value: frame.column(value) if isinstance(frame, pa.Table) else frame[value].to_numpy(),
        }
    )


def _encoded(values: pd.Series | pa.ChunkedArray) -> pa.DictionaryArray:
    """Strings as one dictionary-encoded array; the readers' columns pass through as they are."""
    if isinstance(values, pa.ChunkedArray) and pa.types.is_dictionary(values.type):
        if values.num_chunks == 1:
            return values.chunk(0)
        values = values.cast(values.type.value_type)
    return trec.encode(strings(values))


def dictionary(table: pa.Table, column: str) -> tuple[np.ndarray, pa.Array]:
    """A dictionary column's codes (int32, as stored: a 10M-line run's rows stay small)
    and values."""
    array = table.column(column).chunk(0)
    return to_numpy(array.indices), array.dictionary
