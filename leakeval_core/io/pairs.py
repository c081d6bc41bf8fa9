"""The end of every run and qrels reader, whatever the format: qid and docid dictionary-encoded,
the value column checked, and no (qid, docid) pair twice, named by its line.

Kept apart from the TREC parser so that the other formats' readers (`json_maps`, `tables`,
`beir`) and the TREC one share it without importing each other.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.errors import ParseError
from leakeval_core.io.arrays import to_numpy

__all__ = ["decode", "encode", "pairs_table"]


def _line(lines: np.ndarray | None, row: int) -> int | None:
    """Row -> line: row + 1 without `lines`; an in-memory frame's `lines` give None."""
    if lines is None:
        return row + 1
    line = lines[row]
    return None if line is None else int(line)


def encode(values: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """Dictionary-encode strings into one array with one dictionary.

    Codes are what makes duplicate checks, ranking and qrels lookups integer work instead
    of string hashing on every call.

    A file is read in blocks, so it comes in chunks. pyarrow encodes them with one running memo
    and hands every chunk the same final dictionary, so only the int32 codes need joining:
    joining the strings first would hold them twice.
    If the chunks ever came back with dictionaries of their own, the strings are joined and
    encoded once instead, as unifying dictionaries costs several times the encoding.
    """
    if isinstance(values, pa.Array):
        return pc.dictionary_encode(values)
    if values.num_chunks > 1:
        encoded = pc.dictionary_encode(values)
        memory = [_addresses(chunk.dictionary) for chunk in encoded.chunks]
        if memory and all(m == memory[-1] for m in memory):
            indices = pa.concat_arrays([chunk.indices for chunk in encoded.chunks])
            return pa.DictionaryArray.from_arrays(indices, encoded.chunks[-1].dictionary)
    return pc.dictionary_encode(values.combine_chunks())


def _addresses(array: pa.Array) -> list[int | None]:
    return [buffer and buffer.address for buffer in array.buffers()]


def decode(values: pa.DictionaryArray) -> pa.Array:
    return values.dictionary.take(values.indices)


def _reject_duplicates(
    name: str,
    qids: pa.DictionaryArray,
    docids: pa.DictionaryArray,
    lines: np.ndarray | None,
    what: str,
) -> None:
    """A (qid, docid) pair twice is an error naming the second line and the first.

    Only documents that occur more than once in the file can repeat a pair, so only their
    rows are checked, by sorting their (qid, docid) keys in place; where the repeat is is
    worked out only when there is one. That keeps a 10M-line run's check to one key array.
    """
    docs = to_numpy(docids.indices)
    counts = np.bincount(docs, minlength=1)
    if counts.max() <= 1:
        return
    candidates = np.flatnonzero((counts > 1)[docs])

    def keys() -> np.ndarray:
        out = to_numpy(qids.indices)[candidates].astype(np.int64)
        out *= len(docids.dictionary)
        out += docs[candidates]
        return out

    ordered = keys()
    ordered.sort()
    if not (ordered[1:] == ordered[:-1]).any():
        return
    del ordered
    pairs = keys()
    order = np.argsort(pairs, kind="stable")  # stable: a pair's first row comes first
    repeats = order[np.flatnonzero(pairs[order][1:] == pairs[order][:-1]) + 1]
    again = repeats.min()  # candidates are in file order, so this is the earliest repeat
    second, first = candidates[again], candidates[np.argmax(pairs == pairs[again])]
    qid, docid = qids[second].as_py(), docids[second].as_py()
    line, earlier = _line(lines, second), _line(lines, first)
    row = "" if line is not None else f"row {second + 1}: "
    at = f"line {earlier}" if earlier is not None else f"row {first + 1}"
    raise ParseError(
        name, line, f"{row}docid {docid!r} {what} twice for query {qid!r} (first at {at})"
    )


def pairs_table(
    name: str,
    qids: pa.DictionaryArray,
    docids: pa.DictionaryArray,
    value: str,
    values: pa.Array,
    lines=None,
) -> pa.Table:
    """A run or qrels table from its checked columns, refused when a pair repeats: the one
    end of every reader, whatever the format. `lines` maps a row to its line (None: row + 1)."""
    _reject_duplicates(name, qids, docids, lines, "appears" if value == "score" else "is judged")
    return pa.table({"qid": qids, "docid": docids, value: values})
