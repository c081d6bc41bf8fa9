"""The end of every run and qrels reader, whatever the format: qid and docid dictionary-encoded,
each id one word, the value column checked, and no (qid, docid) pair twice, named by its line.

Kept apart from the TREC parser so that the other formats' readers (`json_maps`, `tables`,
`beir`) and the TREC one share it without importing each other.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.errors import ParseError
from leakeval_core.io.arrays import to_numpy

__all__ = ["bad_id", "decode", "encode", "one_word_ids", "pair_keys", "pairs_table"]


def _line(lines: np.ndarray | None, row: int) -> int | None:
    """Row -> line: row + 1 without `lines`; an in-memory frame's `lines` give None."""
    if lines is None:
        return row + 1
    line = lines[row]
    return None if line is None else int(line)


def encode(
    values: pa.Array | pa.ChunkedArray, pool: pa.MemoryPool | None = None
) -> pa.DictionaryArray:
    """Dictionary-encode strings into one array with one dictionary.

    Codes are what makes duplicate checks, ranking and qrels lookups integer work instead
    of string hashing on every call.

    A file is read in blocks, so it comes in chunks. pyarrow encodes them with one running memo
    and hands every chunk the same final dictionary, so only the int32 codes need joining:
    joining the strings first would hold them twice.
    If the chunks ever came back with dictionaries of their own, the strings are joined and
    encoded once instead, as unifying dictionaries costs several times the encoding.
    The encoding allocates from `pool` (None: the default).

    Strings that came encoded (a Parquet file's dictionaries, read as they are so that a
    repeated id is never expanded once per row: `decoded`), each chunk `compact`, keep
    their codes, their dictionaries unified into one.
    """
    if pa.types.is_dictionary(values.type):
        chunked = pa.chunked_array([values]) if isinstance(values, pa.Array) else values
        return _unified(chunked, pool)
    if isinstance(values, pa.Array):
        return pc.dictionary_encode(values, memory_pool=pool)
    if values.num_chunks > 1:
        encoded = pc.dictionary_encode(values, memory_pool=pool)
        memory = [_addresses(chunk.dictionary) for chunk in encoded.chunks]
        if memory and all(m == memory[-1] for m in memory):
            indices = pa.concat_arrays([chunk.indices for chunk in encoded.chunks], pool)
            return pa.DictionaryArray.from_arrays(indices, encoded.chunks[-1].dictionary)
    return pc.dictionary_encode(values.combine_chunks(pool), memory_pool=pool)


def _unified(values: pa.ChunkedArray, pool: pa.MemoryPool | None) -> pa.DictionaryArray:
    """One dictionary for every chunk, without a value no row names."""
    values = values.unify_dictionaries(pool)
    indices = pa.concat_arrays([chunk.indices for chunk in values.chunks], pool)
    return _used(indices, values.chunks[0].dictionary)


def _used(indices: pa.Array, dictionary: pa.Array) -> pa.DictionaryArray:
    codes = to_numpy(indices)
    used = np.bincount(codes, minlength=len(dictionary)) > 0
    if not used.all():
        indices = pa.array((np.cumsum(used, dtype=np.int32) - 1)[codes])
        dictionary = dictionary.filter(pa.array(used))
    return pa.DictionaryArray.from_arrays(indices, dictionary)


def compact(chunk: pa.DictionaryArray) -> pa.DictionaryArray:
    """A dictionary chunk with only the values its rows name, where its dictionary is longer
    than it: a file's dictionary (pandas' categories) may hold every value of the file in
    every batch, and unifying those would cost several times the encoding."""
    if len(chunk.dictionary) <= len(chunk):
        return chunk
    return _used(chunk.indices, chunk.dictionary)


def _addresses(array: pa.Array) -> list[int | None]:
    return [buffer and buffer.address for buffer in array.buffers()]


def decode(values: pa.DictionaryArray) -> pa.Array:
    return pc.take(values.dictionary, values.indices)


_SPACE = np.zeros(256, bool)
_SPACE[list(b" \t\n\r\x0b\x0c")] = True


def one_word_ids(
    name: str, role: str, ids: pa.DictionaryArray, lines, layout: str = ""
) -> pa.DictionaryArray:
    """The ids with the whitespace around them stripped; an id that is empty or holds
    whitespace inside is an error at its first line (`layout`: the TREC fields the file's
    lines would have, for the advice).

    TREC's fields are split on whitespace, so an id holding some is a file misread: TREC
    lines under a BEIR header give its corpus-id column TREC's `0 docid`, which matches no
    document and would score 0 without a word. Only the distinct ids are looked at, and
    their bytes first: ids without whitespace (every TREC file's) cost one pass over them.
    """
    words = ids.dictionary
    if not len(words):
        return ids
    _, offsets, data = words.buffers()
    width = np.int64 if pa.types.is_large_string(words.type) else np.int32
    ends = np.frombuffer(offsets, width)[words.offset : words.offset + len(words) + 1]
    octets = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    # every whitespace byte is below 0x21: the minimum rules most files out without a mask
    spaced = bool(octets.size) and int(octets.min()) <= 0x20 and bool(_SPACE[octets].any())
    bad = ends[1:] == ends[:-1]  # empty (pyarrow's compute is not asked: it imports pandas)
    if spaced:  # a misread file, never a TREC one: pyarrow.compute's import is no matter
        import pyarrow.compute as pc

        words = pc.utf8_trim_whitespace(words)
        inner = pc.match_substring_regex(words, "[[:space:]]")
        bad = to_numpy(pc.fill_null(inner, False)) | (to_numpy(pc.utf8_length(words)) == 0)
    if bad.any():  # among the ids a row has (a JSON query without documents has none)
        bad &= np.bincount(to_numpy(ids.indices), minlength=len(words)) > 0
    if bad.any():
        code = int(np.argmax(bad))
        row = int(np.argmax(to_numpy(ids.indices) == code))
        line = _line(lines, row)
        where = "" if line is not None else f"row {row + 1}: "
        raise ParseError(name, line, where + bad_id(role, words[code].as_py(), layout))
    if not spaced:
        return ids
    stripped = pc.dictionary_encode(words)  # two ids may be one once stripped
    indices = pc.take(stripped.indices, ids.indices)
    return pa.DictionaryArray.from_arrays(indices, stripped.dictionary)


def bad_id(role: str, word: str, layout: str = "") -> str:
    """Why `word` is no id (empty, or whitespace inside), with a hint where it looks like
    TREC's fields in one column (`layout`: the TREC line the file's would be)."""
    if not word:
        return f"{role} is empty"
    if not word.split():  # a character Python calls whitespace and pyarrow's trim keeps
        return f"{role} {word!r} is only whitespace; an id is one word"
    why = f"{role} {word!r} has whitespace inside; an id is one word"
    first, *rest = word.split()
    if layout and first in ("0", "Q0") and len(rest) == 1:
        why += (
            f". These look like TREC lines ({layout}) under a header: delete the header "
            "line and the file reads as TREC"
        )
    return why


def pair_keys(major: np.ndarray, minor: np.ndarray, minors: int) -> np.ndarray:
    """One integer per (major, minor) pair of codes, ordered as the pairs are (`minors`:
    how many minor codes there are), in 32 bits where every key fits, as numpy sorts those
    faster than 64-bit ones."""
    fits = (int(major.max(initial=0)) + 1) * max(minors, 1) <= np.iinfo(np.int32).max
    out = major.astype(np.int32 if fits else np.int64)
    out *= max(minors, 1)
    out += minor
    return out


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
        return pair_keys(
            to_numpy(qids.indices)[candidates], docs[candidates], len(docids.dictionary)
        )

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
    """A run or qrels table from its checked columns, refused when an id is not one word or
    a pair repeats: the one end of every reader, whatever the format. `lines` maps a row to
    its line (None: row + 1)."""
    layout = "qid Q0 docid rank score tag" if value == "score" else "qid 0 docid grade"
    qids = one_word_ids(name, "qid", qids, lines, layout)
    docids = one_word_ids(name, "docid", docids, lines, layout)
    _reject_duplicates(name, qids, docids, lines, "appears" if value == "score" else "is judged")
    return pa.table({"qid": qids, "docid": docids, value: values})
