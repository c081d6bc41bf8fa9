"""`{qid: {docid: value}}` JSON, streamed: ranx's Run and Qrels files, MTEB's saved predictions.

Layouts read:

- the plain mapping, as ranx's `Run.save(...json)` / `Qrels.save` and MTEB v1's
  `save_predictions` write it: `{qid: {docid: score}}`;
- MTEB v2's `{TaskName}_predictions.json` (`AbsTask._save_task_predictions`):
  `{"mteb_model_meta": {...}, SUBSET: {SPLIT: {qid: {docid: score}}}}`, one mapping per
  language subset and split. A file with one (subset, split) reads as that run; a file with
  several is refused with their names, as they are different runs (see `select`).

A 10M-entry file must not be held as Python objects (a dict of dicts costs ~100 bytes an
entry), so the file is walked one query at a time: the outer objects by hand, each query's
`{docid: value}` object by the standard library's C decoder, and every batch of queries
goes into arrow arrays at once. Memory stays near that of the TREC reader's table.

Errors name the file and the line, and for a bad value the query and the docid.
"""

from __future__ import annotations

import codecs
import io
import json
import math
from collections.abc import Iterator
from json.decoder import scanstring
from pathlib import Path

import numpy as np
import pyarrow as pa

from leakeval_core.errors import ParseError
from leakeval_core.io.compressed import open_input
from leakeval_core.io.json_values import TooDeep, raw_decode

__all__ = ["read_mapping"]

_BLOCK = 4 << 20
_LARGEST_QUERY = 256 << 20
"""A query's object longer than this is taken as malformed, not as one that needs more text."""
_META = "mteb_model_meta"
_DECODER = json.JSONDecoder(object_pairs_hook=list)
"""Pairs in order, duplicates kept: a docid twice in one query is an error, not a silent
overwrite (which is what a dict would do)."""
_WS = " \t\n\r"


class _Text:
    """A JSON text read block by block, with the line number of the read position."""

    def __init__(self, name: str, raw: io.BufferedIOBase) -> None:
        self.name = name
        self.raw = raw
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.buf = ""
        self.pos = 0
        self.line = 1
        """The line of `pos`."""
        self.consumed = 0
        self.eof = False

    def more(self) -> bool:
        """Read another block; False at the end of the file."""
        if self.eof:
            return False
        block = self.raw.read(_BLOCK)
        try:
            text = self.decoder.decode(block, final=not block)
        except UnicodeDecodeError:
            where = self.line_at(len(self.buf))
            raise ParseError(self.name, where, "not valid UTF-8 text") from None
        except (OSError, EOFError) as exc:
            raise ParseError(self.name, None, f"corrupt gzip data ({exc})") from None
        self.buf = self.buf[self.pos :] + text  # `line` is the line of `pos` already
        self.pos = 0
        self.eof = not block
        return True

    def line_at(self, at: int) -> int:
        return self.line + self.buf.count("\n", self.pos, at)

    def advance(self, to: int) -> None:
        self.line += self.buf.count("\n", self.pos, to)
        self.pos = to

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end)."""
        while True:
            at = self.pos
            while at < len(self.buf) and self.buf[at] in _WS:
                at += 1
            self.advance(at)
            if at < len(self.buf) or not self.more():
                return self.buf[at : at + 1]

    def expect(self, chars: str, what: str) -> str:
        found = self.peek()
        if not found or found not in chars:
            shown = repr(found) if found else "the end of the file"
            raise ParseError(self.name, self.line, f"invalid JSON: expected {what}, found {shown}")
        self.advance(self.pos + 1)
        return found

    def key(self) -> tuple[str, int]:
        """An object's key and its line; the ':' after it is consumed."""
        self.expect('"', "a string key")
        line = self.line
        while True:
            try:
                text, end = scanstring(self.buf, self.pos)
                break
            except json.JSONDecodeError as exc:
                if not self.more():
                    raise ParseError(self.name, line, f"invalid JSON: {exc.msg}") from None
        self.advance(end)
        self.expect(":", "':' after a key")
        return text, line

    def value(self):
        """The next JSON value, decoded whole (one query's `{docid: value}`)."""
        self.peek()
        while True:
            try:
                value, end = raw_decode(_DECODER, self.buf, self.pos)
                break
            except TooDeep as exc:
                raise ParseError(self.name, self.line, f"invalid JSON: {exc}") from None
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > _LARGEST_QUERY or not self.more():
                    raise ParseError(
                        self.name, self.line_at(exc.pos), f"invalid JSON: {exc.msg}"
                    ) from None
        self.advance(end)
        return value

    def members(self) -> Iterator[tuple[str, int]]:
        """The keys of an object whose '{' was read; the caller reads each value."""
        if self.peek() == "}":
            self.advance(self.pos + 1)
            return
        while True:
            yield self.key()
            if self.expect(",}", "',' or '}'") == "}":
                return


def _open(source) -> tuple[str, io.BufferedIOBase]:
    if isinstance(source, tuple):
        name, data = source
        raw: io.BufferedIOBase = io.BytesIO(data)
    else:
        name = str(source)
        path = Path(source)
        if not path.is_file():
            raise ParseError(name, None, "no such file")
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller
    return name, open_input(name, raw)


def _queries(text: _Text) -> Iterator[tuple[tuple[str, ...], str, int, list]]:
    """(path, qid, line, [(docid, value), ...]) for every query, `path` naming the MTEB
    subset and split it is under (empty for a plain mapping)."""
    text.expect("{", "'{' (a JSON object of queries)")
    yield from _walk(text, ())


def _walk(text: _Text, path: tuple[str, ...]):
    for key, line in text.members():
        if not path and key == _META:
            text.value()
            continue
        if text.peek() != "{":
            shown = text.peek() or "the end of the file"
            raise ParseError(
                text.name,
                text.line,
                f"{_where(path, key)} maps to {shown!r}…, not to an object {{docid: value}}",
            )
        # look past '{' and the first key: a value that is an object means a level of
        # subsets or splits (MTEB v2), anything else a query's documents
        if len(path) < 2 and _opens_level(text):
            text.advance(text.pos + 1)
            yield from _walk(text, (*path, key))
            continue
        docs = text.value()
        yield path, key, line, docs


def _opens_level(text: _Text) -> bool:
    while True:
        at = text.pos + 1  # again after each block read: reading moves the buffer
        rest = text.buf[at : at + 4096]
        stripped = rest.lstrip(_WS)
        if stripped.startswith("}"):
            return False
        if stripped.startswith('"'):
            start = at + len(rest) - len(stripped)
            try:
                _, end = scanstring(text.buf, start + 1)
            except json.JSONDecodeError:
                end = None
            if end is not None:
                after = text.buf[end : end + 4096].lstrip(_WS)
                if after.startswith(":") and after[1:].lstrip(_WS):
                    return after[1:].lstrip(_WS).startswith("{")
        elif stripped:
            return False
        if not text.more():
            return False


def _where(path: tuple[str, ...], qid: str) -> str:
    return f"{'/'.join(path)}: query {qid!r}" if path else f"query {qid!r}"


def read_mapping(source, value: str, select: str | None = None):
    """A JSON mapping as a run or qrels table (qid, docid dictionary-encoded; `value` float64
    scores or int64 grades), checked as the TREC readers check theirs.

    `select` names the MTEB subset/split (`default/test`) when the file holds several (a
    format of `mteb:default/test`, `formats.split_format`).
    """
    from leakeval_core.io.pairs import encode, pairs_table

    name, raw = _open(source)
    with raw:
        text = _Text(name, raw)
        batches = _Batches(name, value)
        for path, qid, line, docs in _queries(text):
            if not isinstance(docs, list):
                raise ParseError(name, line, f"{_where(path, qid)}: not an object {{docid: value}}")
            batches.add("/".join(path), qid, line, docs)
        if text.peek():
            raise ParseError(name, text.line, "invalid JSON: text after the top-level object")
    part = batches.chosen(select)
    del batches  # the other subsets' and splits' arrays
    # each column's chunks are let go as soon as it is joined: the peak holds one copy
    qids = pa.DictionaryArray.from_arrays(
        pa.array(np.concatenate(part.codes) if part.codes else [], pa.int32()),
        pa.array(part.qids, pa.string()),
    )
    part.codes.clear()
    docids = encode(pa.chunked_array(part.docids, pa.string()))
    part.docids.clear()
    kind = pa.float64() if value == "score" else pa.int64()
    values = pa.chunked_array(part.values, kind).combine_chunks()
    part.values.clear()
    lines = _QueryLines(np.asarray(part.lines), qids)
    return pairs_table(name, qids, docids, value, values, lines)


class _QueryLines:
    """Row -> the line of the row's query: where a duplicate is named, without a line a row."""

    def __init__(self, lines: np.ndarray, qids: pa.DictionaryArray) -> None:
        self.lines, self.qids = lines, qids

    def __getitem__(self, row: int) -> int:
        return int(self.lines[self.qids.indices[row].as_py()])


class _Part:
    def __init__(self) -> None:
        self.qids: list[str] = []
        self.lines: list[int] = []
        self.codes: list[np.ndarray] = []
        self.docids: list[pa.Array] = []
        self.values: list[pa.Array] = []


class _Batches:
    """Queries gathered into arrow arrays a batch at a time, per MTEB subset/split."""

    SIZE = 1 << 16

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value
        self.parts: dict[str, _Part] = {}
        self.pending: dict[str, tuple[list, list, list]] = {}

    def add(self, path: str, qid: str, line: int, docs: list) -> None:
        part = self.parts.setdefault(path, _Part())
        codes, docids, values = self.pending.setdefault(path, ([], [], []))
        code = len(part.qids)
        part.qids.append(qid)
        part.lines.append(line)
        codes.append((code, len(docs)))
        if docs:
            keys, numbers = zip(*docs, strict=True)
            docids.extend(keys)
            values.extend(numbers)
        if len(docids) >= self.SIZE:
            self.flush(path)

    def flush(self, path: str) -> None:
        part = self.parts[path]
        codes, docids, values = self.pending.pop(path, ([], [], []))
        if not docids:
            return
        part.codes.append(np.repeat([c for c, _ in codes], [n for _, n in codes]).astype(np.int32))
        part.docids.append(pa.array(docids, pa.string()))
        part.values.append(self.checked(part, codes, docids, values))

    def checked(self, part: _Part, codes, docids: list, values: list) -> pa.Array:
        """The values as float64 scores or int64 grades; the first that is not names its query
        and docid."""
        try:
            array = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            array = None
        numeric = array is not None and (
            pa.types.is_integer(array.type) or pa.types.is_floating(array.type)
        )
        if numeric and not array.null_count:
            numbers = array.to_numpy(zero_copy_only=False).astype(np.float64)
            finite = np.isfinite(numbers)
            whole = (
                (numbers == np.round(numbers)) & (np.abs(numbers) < 2**53)
                if self.value == "grade"
                else finite
            )
            if finite.all() and whole.all():
                return pa.array(numbers if self.value == "score" else numbers.astype(np.int64))
        row = self.first_bad(values)
        qid_code = np.repeat([c for c, _ in codes], [n for _, n in codes])[row]
        what = "a finite number" if self.value == "score" else "an integer grade"
        raise ParseError(
            self.name,
            part.lines[qid_code],
            f"query {part.qids[qid_code]!r}, docid {docids[row]!r}: "
            f"{json.dumps(values[row])} is not {what}",
        )

    def first_bad(self, values: list) -> int:
        for row, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, int | float) or abs(v) >= 2**63:
                return row
            if not math.isfinite(v) or (self.value == "grade" and v != int(v)):
                return row
        return 0  # pragma: no cover - only called when one is bad

    def chosen(self, select: str | None) -> _Part:
        for path in list(self.pending):
            self.flush(path)
        if not self.parts:
            raise ParseError(self.name, 1, "the JSON object holds no query")
        if select is not None:
            if select not in self.parts:
                raise ParseError(self.name, None, f"no {select!r} in it; it holds {self._held()}")
            return self.parts[select]
        if len(self.parts) > 1:
            raise ParseError(
                self.name,
                None,
                f"holds the predictions of several subsets/splits ({self._held()}): save one "
                "per file, or name one as --format mteb:SUBSET/SPLIT (format= in Python)",
            )
        return next(iter(self.parts.values()))

    def _held(self) -> str:
        return ", ".join(self.parts)
