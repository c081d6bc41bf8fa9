"""Frames with named columns: PyTerrier's result and qrels frames, ranx's objects, and the
files such frames are kept in (CSV/TSV with a header, Parquet, JSON lines, a Hugging Face
dataset saved to disk), as runs, qrels or query lists.

The columns are found by name (`COLUMN_ALIASES`, or a `columns` mapping), the values are
checked in arrow, vectorised, and the table ends where every reader's does
(`trec.pairs_table`), so a frame gives the table its TREC file would. Identifiers are made
strings and values float64 scores or int64 grades here, because pytrec_eval rejects int keys,
numpy float32 scores and numpy int64 grades.

A bad value is named by its line in a text file (the header is line 1), by its row
otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from leakeval_core.errors import ParseError
from leakeval_core.io import json_values
from leakeval_core.io.arrays import from_numpy, to_numpy
from leakeval_core.io.compressed import decompressed_limit, open_input
from leakeval_core.io.decoded import Counted, parquet_batches, parquet_table
from leakeval_core.io.formats import COLUMN_ALIASES, QID_COLUMNS, TEXT_COLUMNS
from leakeval_core.io.kinds import headerless_advice
from leakeval_core.io.pairs import compact

__all__ = [
    "COLUMN_ALIASES",
    "frame_pairs",
    "iter_table_queries",
    "read_table",
    "table_pairs",
    "table_queries",
]

_BLOCK = 1 << 20
"""Bytes of a JSON lines or CSV file parsed at a time, pyarrow's own default: its JSON
reader holds many times a block while it parses one, so larger blocks raise the peak and
read no faster."""
_FIRST_LINE = {"jsonl": 1, "csv": 2}
"""The line of a text file's first row (a CSV's header is line 1); other files name rows."""
_STREAMED = ("jsonl", "csv", "parquet")


# --------------------------------------------------------------------------- reading files


def read_pairs(source, kind: str, value: str, columns: Mapping[str, str] | None = None) -> pa.Table:
    """A run or qrels file with named columns (CSV/TSV, Parquet, JSON lines, a saved
    Hugging Face dataset).

    A text or Parquet file is read a block at a time, and each block's three columns are
    converted before the next is read: a large file is never one table of every column
    beside its converted copy. pyarrow's streaming readers fix each column's type on the
    first block, so a file they refuse (a type that changes later, as integer scores then a
    fraction, or a malformed line) is read again whole, which infers over every block or
    names the line.
    """
    file = ("run" if value == "score" else "qrels", _header(_FIRST_LINE.get(kind)))
    if kind in _STREAMED:
        name = _name(source)
        roles = ("qid", "docid", value)

        def pick(names: list[str]) -> dict[str, str]:
            return {r: _column(name, names, r, COLUMN_ALIASES[r], columns, *file) for r in roles}

        try:
            return _pairs(name, _batches(source, kind, pick), value, _FIRST_LINE.get(kind))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
            pass  # read again outside this handler, whose traceback holds the blocks read
    name, table, first = read_table(source, kind)
    picked = _picked(name, table, value, columns, file)
    del table  # each column is let go once converted (`_pairs`): a 10M-row file is not held twice
    return _pairs(name, iter([picked]), value, first)


def read_table(source, kind: str) -> tuple[str, pa.Table, int | None]:
    """A frame file as one arrow table, with the line of its first row in a text file (None:
    rows are named by number)."""
    if kind == "hf":
        return _hf_table(source)
    name, stream = _input(source)
    try:
        if kind == "parquet":
            table = parquet_table(name, stream, decompressed_limit())
        elif kind == "jsonl":
            import pyarrow.json as pajson

            table = pajson.read_json(stream)
        else:
            import pyarrow.csv as pacsv

            table = pacsv.read_csv(stream, **_csv_options(source))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
        raise _unreadable(name, source, kind, exc) from None
    return name, table, _FIRST_LINE.get(kind)


def _batches(
    source, kind: str, pick: Callable[[list[str]], dict[str, str]]
) -> Iterator[dict[str, pa.Array]]:
    """A JSON lines, CSV or Parquet file a block at a time: for each block, the columns
    `pick` chooses by name (role -> column), the others let go at once. pyarrow's errors
    pass through; the caller decides what they mean. A Parquet file's batches are counted
    against the decompression limit as they are decoded (`decoded`).
    """
    name, stream = _input(source)
    if kind == "parquet":
        import pyarrow.parquet as pq

        chosen = pick(pq.ParquetFile(stream, pre_buffer=False).schema_arrow.names)
        counted = Counted(name, decompressed_limit())
        reader = parquet_batches(stream, counted, list(chosen.values()))
    elif kind == "jsonl":
        import pyarrow.json as pajson

        reader = pajson.open_json(stream, read_options=pajson.ReadOptions(block_size=_BLOCK))
        chosen = pick(reader.schema.names)
    else:
        import pyarrow.csv as pacsv

        options = _csv_options(source)
        options["read_options"] = pacsv.ReadOptions(block_size=_BLOCK)
        reader = pacsv.open_csv(stream, **options)
        chosen = pick(reader.schema.names)
    for batch in reader:
        yield {role: batch.column(column) for role, column in chosen.items()}


def _name(source) -> str:
    return source[0] if isinstance(source, tuple) else str(source)


def _input(source) -> tuple[str, Any]:
    """A file's name and a stream pyarrow reads (gzip looked through, by its magic number,
    within the decompression limit: `compressed`)."""
    if isinstance(source, tuple):
        name, data = source
        buffer = pa.BufferReader(data)
    else:
        name = str(source)
        if not Path(source).is_file():
            raise ParseError(name, None, "no such file")
        buffer = pa.OSFile(os.fspath(source))
    return name, open_input(name, buffer)


def _csv_options(source) -> dict[str, Any]:
    """The parse and convert options of a CSV or TSV file: a tab in its header makes it TSV."""
    import pyarrow.csv as pacsv

    with _input(source)[1] as stream:
        header = stream.read(1 << 16).split(b"\n", 1)[0]
    return {
        "parse_options": pacsv.ParseOptions(delimiter="\t" if b"\t" in header else ","),
        "convert_options": pacsv.ConvertOptions(strings_can_be_null=False),
    }


def _unreadable(name: str, source, kind: str, exc: Exception) -> ParseError:
    """The error of a file pyarrow refused: the line, where a text file's can be told (an
    OSError is unreadable bytes, such as corrupt gzip, not a line)."""
    if kind == "jsonl" and not isinstance(exc, OSError):
        return _jsonl_error(name, source, exc)
    if kind == "csv" and not isinstance(exc, OSError):
        return ParseError(name, _csv_line(str(exc)), f"malformed CSV: {_short(exc)}")
    what = "a readable Parquet file" if kind == "parquet" else "readable"
    return ParseError(name, None, f"not {what} ({exc})")


def _csv_line(message: str) -> int | None:
    """The line of pyarrow's "Row #N" (it counts from 1 after the header), when it says."""
    import re

    found = re.search(r"[Rr]ow #?(\d+)", message)
    return int(found.group(1)) + 1 if found else None


def _short(exc: Exception) -> str:
    return str(exc).split("\n", 1)[0].removeprefix("CSV parse error: ")


def _jsonl_error(name: str, source, exc: Exception) -> ParseError:
    """pyarrow counts rows within a block, so the bad line is found again, line by line."""
    first: dict[str, type] = {}
    for lineno, line in enumerate(_lines(source), start=1):
        if not line.strip():
            continue
        try:
            record = json_values.loads(line)
        except ValueError as err:
            return ParseError(name, lineno, f"invalid JSON: {err.args[0].split(':')[0]}")
        if not isinstance(record, dict):
            return ParseError(name, lineno, "not a JSON object")
        for key, value in record.items():
            kind = _json_kind(value)
            if first.setdefault(key, kind) != kind and value is not None:
                return ParseError(
                    name, lineno, f"{key!r} is a {kind} here, a {first[key]} on earlier lines"
                )
    return ParseError(name, None, f"not JSON lines pyarrow reads: {_short(exc)}")


def _lines(source) -> Iterator[bytes]:
    """A file's lines, read a block at a time (pyarrow's streams have no readline)."""
    with _input(source)[1] as stream:
        rest = b""
        while block := stream.read(_BLOCK):
            *lines, rest = (rest + block).split(b"\n")
            yield from lines
        yield rest


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__.replace("str", "string").replace("dict", "object")


def _hf_table(source) -> tuple[str, pa.Table, None]:
    """A `save_to_disk` folder: its `data-*.arrow` files are arrow IPC streams, in the order
    `state.json` lists them, their batches counted together as they are decoded
    (`decoded`)."""
    folder = Path(source)
    name = str(folder)
    try:
        state = json_values.loads((folder / "state.json").read_text(encoding="utf-8"))
        files = [folder / f["filename"] for f in state["_data_files"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParseError(name, None, f"state.json does not list the data files ({exc})") from None
    tables, counted = [], Counted(name, decompressed_limit())
    for path in files:
        try:
            with pa.OSFile(str(path)) as fh:
                reader = pa.ipc.open_stream(fh)
                tables.append(pa.Table.from_batches(counted.batches(reader), reader.schema))
        except (OSError, pa.ArrowInvalid) as exc:
            raise ParseError(path, None, f"not an arrow stream ({exc})") from None
    if not tables:
        raise ParseError(name, None, "holds no rows")
    return name, pa.concat_tables(tables), None


# --------------------------------------------------------------------------- columns


def _column(
    name: str,
    names: list[str],
    role: str,
    aliases: tuple[str, ...],
    columns: Mapping[str, str] | None,
    file: str | None = None,
    header: int | None = None,
) -> str:
    """The column of `role` (qid, docid, score, grade, text) among `names`. `file` is what a
    file is read as (run, qrels, queries; None: a frame handed to the API) and `header` its
    header's line, for the error."""
    given = [k for k, v in (columns or {}).items() if v == role and k in names]
    if given:
        return given[0]
    lowered = {str(c).lower(): c for c in reversed(names)}
    for alias in aliases:
        if alias in lowered:
            return lowered[alias]
    accepted = ", ".join(
        dict.fromkeys([*(k for k, v in (columns or {}).items() if v == role), *aliases])
    )
    if file is None:
        raise ParseError(
            name,
            None,
            f"no {role} column among {', '.join(map(repr, names))}; name one {accepted}, or "
            f"pass columns={{'your_name': '{role}'}}",
        )
    advice = headerless_advice(names, file)
    if advice:
        why = f"{advice}; or give it a header (a {role} column is one of {accepted})"
    else:
        why = f"among {', '.join(map(repr, names))}; name one {accepted} in the header"
    raise ParseError(name, header, f"no {role} column {why}")


class _Rows:
    """Row -> line in a text file whose first row is on `first` (None: no lines), for rows
    counted from `start` (a block's first row in the file)."""

    def __init__(self, first: int | None, start: int = 0) -> None:
        self.first, self.start = first, start

    def where(self, row: int) -> tuple[int | None, str]:
        if self.first is None:
            return None, f"row {self.start + row + 1}: "
        return self.first + self.start + row, ""

    def __getitem__(self, row: int) -> int | None:
        return self.where(row)[0]


def _identifiers(name: str, values: pa.ChunkedArray, role: str, rows: _Rows) -> pa.ChunkedArray:
    """Ids as strings, left in their chunks (`encode` joins only the codes: a 10M-row
    column is not copied whole)."""
    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    if values.null_count:
        line, row = rows.where(int(np.argmax(~to_numpy(values.is_valid()))))
        raise ParseError(name, line, f"{row}{role} is missing")
    if pa.types.is_dictionary(values.type):
        strings = values.type.value_type
        if pa.types.is_string(strings) or pa.types.is_large_string(strings):
            values = values.cast(pa.dictionary(pa.int32(), pa.string()))  # never one per row
            return pa.chunked_array([compact(c) for c in values.chunks], values.type)
        values = values.cast(strings)
    if pa.types.is_floating(values.type):  # ids that pandas made floats: 301.0 is 301
        numbers = to_numpy(values)
        if (np.abs(numbers) < 2**53).all() and (numbers == np.floor(numbers)).all():
            values = values.cast(pa.int64())
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        try:
            values = values.cast(pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise ParseError(name, None, f"{role} column of {values.type} is not ids") from None
    return values.cast(pa.string())


def _values(name: str, raw: pa.Array, value: str, rows: _Rows) -> pa.Array:
    """float64 scores or int64 grades; the first bad one named with its row or line."""
    raw = raw.combine_chunks() if isinstance(raw, pa.ChunkedArray) else raw
    if pa.types.is_dictionary(raw.type):
        raw = raw.cast(raw.type.value_type)
    numeric = pa.types.is_integer(raw.type) or pa.types.is_floating(raw.type)
    if numeric:
        numbers = to_numpy(raw.cast(pa.float64()), fill=np.nan)
    else:
        import pandas as pd

        numbers = pd.to_numeric(pd.Series(raw.to_pylist(), dtype=object), errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan
        )
    bad = ~np.isfinite(numbers)
    kind = "a finite number"
    if value == "grade" and not bad.any():
        bad = (numbers != np.round(numbers)) | (np.abs(numbers) >= 2**53)
        kind = "an integer"
    if bad.any():
        i = int(np.argmax(bad))
        line, row = rows.where(i)
        raise ParseError(name, line, f"{row}{value} {raw[i].as_py()!r} is not {kind}")
    return from_numpy(numbers.astype(np.int64) if value == "grade" else numbers)


def table_pairs(
    name: str,
    table: pa.Table,
    value: str,
    columns: Mapping[str, str] | None = None,
    first_line: int | None = None,
) -> pa.Table:
    """A run (`value` "score") or qrels ("grade") from a table with named columns."""
    return _pairs(name, iter([_picked(name, table, value, columns)]), value, first_line)


def _picked(
    name: str,
    table: pa.Table,
    value: str,
    columns: Mapping[str, str] | None,
    file: tuple[str | None, int | None] = (None, None),
) -> dict[str, pa.ChunkedArray]:
    """The qid, docid and value columns, found by name (`file`: what `_column` says of a
    file)."""
    if table.num_rows == 0:
        raise ParseError(name, None, "empty")
    names = [str(c) for c in table.column_names]
    return {
        role: table.column(_column(name, names, role, COLUMN_ALIASES[role], columns, *file))
        for role in ("qid", "docid", value)
    }


def _header(first: int | None) -> int | None:
    """The line of a text file's header: the one before its first row, if any (JSON lines
    have none)."""
    return first - 1 if first is not None and first > 1 else None


def _pairs(
    name: str, blocks: Iterable[dict[str, pa.Array]], value: str, first: int | None
) -> pa.Table:
    """A run or qrels table from its qid, docid and value columns, a block at a time (a
    whole table is one block): each block's columns are checked and made strings and numbers
    as they come, and let go; ids are dictionary-encoded once every block is in, with one
    dictionary."""
    from leakeval_core.io.pairs import encode, pairs_table

    done: dict[str, list[pa.Array]] = {"qid": [], "docid": [], value: []}
    start = 0
    for picked in blocks:
        rows = _Rows(first, start)
        start += len(picked[value])
        for role in ("qid", "docid"):
            done[role].extend(_identifiers(name, picked.pop(role), role, rows).chunks)
        done[value].append(_values(name, picked.pop(value), value, rows))
    if not start:
        raise ParseError(name, None, "empty")
    qids = encode(pa.chunked_array(done.pop("qid")))
    docids = encode(pa.chunked_array(done.pop("docid")))
    values = pa.chunked_array(done.pop(value)).combine_chunks()
    return pairs_table(name, qids, docids, value, values, _Rows(first))


def frame_pairs(frame, value: str, name: str, columns: Mapping[str, str] | None = None):
    """A pandas frame (PyTerrier's, or any with recognisable columns) as a run or qrels
    table. Object columns of mixed types are made strings (ids) or numbers (values) first."""
    names = [str(c) for c in frame.columns]
    picked = {
        role: _column(name, names, role, COLUMN_ALIASES[role], columns)
        for role in ("qid", "docid", value)
    }
    arrays = {}
    for role, column in picked.items():
        series = frame[column] if column in frame.columns else frame[names.index(column)]
        try:
            arrays[role] = pa.array(series, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed types: read as text, then checked
            arrays[role] = pa.array(series.astype(str), pa.string())
    return table_pairs(name, pa.table(arrays), value)


# --------------------------------------------------------------------------- query lists


def table_queries(name: str, table: pa.Table, first_line: int | None = None):
    """A query list (qid, text) from a table with named columns."""
    import pandas as pd

    from leakeval_core.io.pairs import decode, encode, one_word_ids

    names = [str(c) for c in table.column_names]
    rows = _Rows(first_line)
    file = ("queries", _header(first_line))
    qid = _column(name, names, "qid", QID_COLUMNS, None, *file)
    text = _column(name, names, "text", TEXT_COLUMNS, None, *file)
    qids = _identifiers(name, table.column(qid), "qid", rows)
    qids = decode(one_word_ids(name, "qid", encode(qids), rows))
    texts = table.column(text).combine_chunks()
    if not pa.types.is_string(texts.type):
        texts = texts.cast(pa.string())
    return pd.DataFrame(
        {
            "qid": pd.Series(qids.to_pylist(), dtype="str"),
            "text": pd.Series(texts.fill_null("").to_pylist(), dtype="str")
            .str.split()
            .str.join(" "),
        }
    )


def iter_table_queries(source, kind: str, chunk_size: int) -> Iterator:
    """A query list in frames of `chunk_size` rows; JSON lines, CSV and Parquet files are
    read a block at a time (`_batches`)."""
    if kind not in _STREAMED:
        name, table, first = read_table(source, kind)
        for start in range(0, table.num_rows, chunk_size):
            yield table_queries(name, table.slice(start, chunk_size), first and first + start)
        return
    name = _name(source)
    first = _FIRST_LINE.get(kind)

    def pick(names: list[str]) -> dict[str, str]:
        file = ("queries", _header(first))
        return {
            "qid": _column(name, names, "qid", QID_COLUMNS, None, *file),
            "text": _column(name, names, "text", TEXT_COLUMNS, None, *file),
        }

    held, start = None, 0  # rows read and not yet given, and the place of the first
    try:
        for block in _batches(source, kind, pick):
            held = pa.table(block) if held is None else pa.concat_tables([held, pa.table(block)])
            while held.num_rows >= chunk_size:
                yield table_queries(name, held.slice(0, chunk_size), first and first + start)
                held, start = held.slice(chunk_size), start + chunk_size
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
        raise _unreadable(name, source, kind, exc) from None
    if held is not None and held.num_rows:
        yield table_queries(name, held, first and first + start)
