"""64-bit hashes of strings, computed in bulk with numpy over arrow's buffers.

A hash narrows a search to the strings that may be equal; the strings are then compared, so
a collision can cost time but never make a false match. The qrels' judgment index
(`evaluation.judgments`) keys its docids this way: built once, it is searched by every run,
where pyarrow's lookups rebuild their hash table on every call.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.io.arrays import to_numpy

__all__ = ["HASHED_PREFIX", "hash_width", "string_hashes"]


HASHED_PREFIX = 64
"""Bytes of each string that `string_hashes` reads (docids are shorter almost everywhere):
an outlier docid of 10 kB then costs no more to hash than one of 64 bytes."""


def hash_width(values: pa.Array, prefix: int = HASHED_PREFIX) -> int:
    """The bytes `string_hashes` should read of strings like these: the longest one, at most
    `prefix`, rounded up to whole 64-bit words."""
    return 8 * max(1, -(-min(_longest(values), prefix) // 8))


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def string_hashes(values: pa.Array, width: int) -> np.ndarray:
    """One 64-bit hash per string, of its first `width` bytes and its length (multiply-xor
    mixing, the high bits folded back after each word: a product carries a word's
    difference upward only, so two words' differences could otherwise cancel, as they did
    for docids as alike as FR940810-2-00127 and FR940819-2-00128). Strings that differ
    only after `width` bytes share a hash, so a match found by hash is confirmed by
    comparing the strings."""
    lengths = to_numpy(pc.binary_length(values)) if len(values) else np.zeros(0, np.int32)
    words = _words(values, width, int(lengths.max(initial=0)))
    out = lengths.astype(np.uint64)
    out *= _MIX[0]
    for column in range(words.shape[1]):
        out ^= words[:, column]
        out *= _MIX[1]
        out ^= out >> np.uint64(32)
    out ^= out >> np.uint64(31)
    out *= _MIX[2]
    return out ^ (out >> np.uint64(29))


def _words(values: pa.Array, width: int, longest: int) -> np.ndarray:
    """Each string's first `width` bytes, padded with spaces to `width`, as rows of
    `width / 8` 64-bit words (a view of pyarrow's padded copy)."""
    if not len(values):
        return np.zeros((0, width // 8), np.uint64)
    if longest <= width:
        padded = pc.ascii_rpad(values, width, " ")  # pads bytes, not characters
    else:  # cut first, as bytes: a cut may split a character, which binary does not mind
        cut = pc.binary_slice(pc.cast(values, pa.binary()), 0, width)
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
