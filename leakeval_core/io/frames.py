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

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from leakeval_core.errors import ParseError
from leakeval_core.io.arrays import from_numpy, to_numpy
from leakeval_core.io.formats import COLUMN_ALIASES, QID_COLUMNS, TEXT_COLUMNS

__all__ = [
    "COLUMN_ALIASES",
    "frame_pairs",
    "iter_table_queries",
    "read_table",
    "table_pairs",
    "table_queries",
]

_BLOCK = 8 << 20


# --------------------------------------------------------------------------- reading files


def read_pairs(source, kind: str, value: str) -> pa.Table:
    """A run or qrels file with named columns (CSV/TSV, Parquet, JSON lines, a saved
    Hugging Face dataset). Of a Parquet file only the three columns are read."""
    wanted = None
    if kind == "parquet":
        import pyarrow.parquet as pq

        name = source[0] if isinstance(source, tuple) else str(source)
        try:
            names = pq.read_schema(_input(source)[1]).names
        except (pa.ArrowInvalid, OSError) as exc:
            raise ParseError(name, None, f"not a readable Parquet file ({exc})") from None
        wanted = [_column(name, names, r, COLUMN_ALIASES[r], None) for r in ("qid", "docid", value)]
    name, table, first = read_table(source, kind, wanted)
    picked = _picked(name, table, value, None)
    del table  # each column is let go once converted (`_pairs`): a 10M-row file is not held twice
    return _pairs(name, picked, value, _Rows(first))


def read_table(
    source, kind: str, columns: list[str] | None = None
) -> tuple[str, pa.Table, int | None]:
    """A frame file as an arrow table, with the line of its first row in a text file (None:
    rows are named by number). `columns` limits what a Parquet file gives."""
    if kind == "hf":
        return _hf_table(source)
    name, stream = _input(source)
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            return name, pq.read_table(stream, columns=columns), None
        except (pa.ArrowInvalid, OSError) as exc:
            raise ParseError(name, None, f"not a readable Parquet file ({exc})") from None
    if kind == "jsonl":
        return name, _jsonl_table(name, stream, source), 1
    return name, _csv_table(name, stream), 2


def _input(source) -> tuple[str, Any]:
    """A file's name and a stream pyarrow reads (gzip looked through, by its magic number)."""
    if isinstance(source, tuple):
        name, data = source
        buffer = pa.BufferReader(data)
    else:
        name = str(source)
        if not Path(source).is_file():
            raise ParseError(name, None, "no such file")
        buffer = pa.OSFile(os.fspath(source))
    head = buffer.read(2)
    buffer.seek(0)
    if head == b"\x1f\x8b":
        return name, pa.CompressedInputStream(buffer, "gzip")
    return name, buffer


def _csv_table(name: str, stream) -> pa.Table:
    import pyarrow.csv as pacsv

    first = stream.read(1 << 16)
    if stream.seekable():
        stream.seek(0)
    else:  # gzip: read whole (a frame with a header is small next to a TREC run)
        stream = pa.BufferReader(first + stream.read())
    delimiter = "\t" if b"\t" in first.split(b"\n", 1)[0] else ","
    try:
        return pacsv.read_csv(
            stream,
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ParseError(name, _csv_line(str(exc)), f"malformed CSV: {_short(exc)}") from None


def _csv_line(message: str) -> int | None:
    """The line of pyarrow's "Row #N" (it counts from 1 after the header), when it says."""
    import re

    found = re.search(r"[Rr]ow #?(\d+)", message)
    return int(found.group(1)) + 1 if found else None


def _short(exc: Exception) -> str:
    return str(exc).split("\n", 1)[0].removeprefix("CSV parse error: ")


def _jsonl_table(name: str, stream, source) -> pa.Table:
    """The file is handed to pyarrow as a stream, never held as bytes beside its table; only
    a failed read is read again, line by line, to name the line."""
    import pyarrow.json as pajson

    try:
        return pajson.read_json(stream)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise _jsonl_error(name, _input(source)[1].read(), exc) from None


def _jsonl_error(name: str, data: bytes, exc: Exception) -> ParseError:
    """pyarrow counts rows within a block, so the bad line is found again, line by line."""
    first: dict[str, type] = {}
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
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


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__.replace("str", "string").replace("dict", "object")


def _hf_table(source) -> tuple[str, pa.Table, None]:
    """A `save_to_disk` folder: its `data-*.arrow` files are arrow IPC streams, in the order
    `state.json` lists them."""
    folder = Path(source)
    name = str(folder)
    try:
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
        files = [folder / f["filename"] for f in state["_data_files"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParseError(name, None, f"state.json does not list the data files ({exc})") from None
    tables = []
    for path in files:
        try:
            with pa.OSFile(str(path)) as fh:
                tables.append(pa.ipc.open_stream(fh).read_all())
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
) -> str:
    given = [k for k, v in (columns or {}).items() if v == role and k in names]
    if given:
        return given[0]
    lowered = {str(c).lower(): c for c in reversed(names)}
    for alias in aliases:
        if alias in lowered:
            return lowered[alias]
    raise ParseError(
        name,
        None,
        f"no {role} column among {', '.join(map(str, names))}; "
        f"pass columns={{'your_name': '{role}'}}",
    )


class _Rows:
    """Row -> line in a text file whose first row is on `first` (None: no lines)."""

    def __init__(self, first: int | None) -> None:
        self.first = first

    def where(self, row: int) -> tuple[int | None, str]:
        if self.first is None:
            return None, f"row {row + 1}: "
        return self.first + row, ""

    def __getitem__(self, row: int) -> int | None:
        return self.where(row)[0]


def _identifiers(name: str, values: pa.ChunkedArray, role: str, rows: _Rows) -> pa.ChunkedArray:
    """Ids as strings, left in their chunks (`encode` joins only the codes: a 10M-row
    column is not copied whole)."""
    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if values.null_count:
        line, row = rows.where(int(np.argmax(~to_numpy(values.is_valid()))))
        raise ParseError(name, line, f"{row}{role} is missing")
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
    return _pairs(name, _picked(name, table, value, columns), value, _Rows(first_line))


def _picked(
    name: str, table: pa.Table, value: str, columns: Mapping[str, str] | None
) -> dict[str, pa.ChunkedArray]:
    """The qid, docid and value columns, found by name."""
    if table.num_rows == 0:
        raise ParseError(name, None, "empty")
    names = [str(c) for c in table.column_names]
    return {
        role: table.column(_column(name, names, role, COLUMN_ALIASES[role], columns))
        for role in ("qid", "docid", value)
    }


def _pairs(name: str, picked: dict[str, pa.ChunkedArray], value: str, rows: _Rows) -> pa.Table:
    from leakeval_core.io.pairs import encode, pairs_table

    qids = encode(_identifiers(name, picked.pop("qid"), "qid", rows))
    docids = encode(_identifiers(name, picked.pop("docid"), "docid", rows))
    values = _values(name, picked.pop(value), value, rows)
    return pairs_table(name, qids, docids, value, values, rows)


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

    names = [str(c) for c in table.column_names]
    rows = _Rows(first_line)
    qid = _column(name, names, "qid", QID_COLUMNS, None)
    text = _column(name, names, "text", TEXT_COLUMNS, None)
    qids = _identifiers(name, table.column(qid), "qid", rows)
    texts = table.column(text).combine_chunks()
    if not pa.types.is_string(texts.type):
        texts = texts.cast(pa.string())
    return pd.DataFrame(
        {
            "qid": pd.Series(qids.to_pylist(), dtype="str").str.strip(),
            "text": pd.Series(texts.fill_null("").to_pylist(), dtype="str")
            .str.split()
            .str.join(" "),
        }
    )


def iter_table_queries(source, kind: str, chunk_size: int) -> Iterator:
    """A query list in frames of `chunk_size` rows; JSON lines and Parquet are streamed."""
    if kind == "jsonl":
        yield from _iter_jsonl(source, chunk_size)
        return
    if kind == "parquet" and not isinstance(source, tuple):
        import pyarrow.parquet as pq

        name = str(source)
        try:
            batches = pq.ParquetFile(os.fspath(source)).iter_batches(chunk_size)
            for batch in batches:
                yield table_queries(name, pa.Table.from_batches([batch]))
        except (pa.ArrowInvalid, OSError) as exc:
            raise ParseError(name, None, f"not a readable Parquet file ({exc})") from None
        return
    name, table, first = read_table(source, kind)
    for start in range(0, table.num_rows, chunk_size):
        yield table_queries(name, table.slice(start, chunk_size), first and first + start)


def _iter_jsonl(source, chunk_size: int) -> Iterator:
    import pyarrow.json as pajson

    name, stream = _input(source)
    line = 1
    try:
        reader = pajson.open_json(stream, read_options=pajson.ReadOptions(block_size=_BLOCK))
        pending: list[pa.RecordBatch] = []
        held = 0
        for batch in reader:
            pending.append(batch)
            held += batch.num_rows
            if held >= chunk_size:
                yield table_queries(name, pa.Table.from_batches(pending), line)
                line += held
                pending, held = [], 0
        if pending:
            yield table_queries(name, pa.Table.from_batches(pending), line)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        _, again = _input(source)
        raise _jsonl_error(name, again.read(), exc) from None
