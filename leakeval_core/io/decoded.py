"""Columnar input (Parquet, arrow IPC streams), decoded a batch at a time and counted
against the limit gzip's output is counted against (`compressed`).

A Parquet file keeps a repeated value once (a dictionary), a run of it in a few bytes, and
compresses its pages besides: a file of under a megabyte can hold sixty million rows. Its
own size says nothing of that, so what each batch holds once decoded is counted (strings as
long as they are, each time they repeat, as their text would be), and the read stops with
the limit's own message as soon as the count passes it. Every string column is read as a
dictionary and counted from its codes: read as plain strings, pyarrow would expand a long
repeated value across a whole batch before anything could count it. From the file's footer,
before any of it is read: a row group whose pages inflate past the limit, and a file whose
rows alone (4 bytes a string, 8 a float) would pass it, are refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from leakeval_core.io.compressed import Limit
from leakeval_core.io.compressed import measure as inflated

__all__ = ["Counted", "decoded_bytes", "measure", "parquet_batches", "parquet_table"]

ROWS = 1 << 20
"""Rows of a Parquet file read at a time (one row group may hold the whole file). pyarrow
sends a dictionary column's dictionary, as it has grown, with every batch: few large
batches, or a run of many distinct ids is slow to read."""


class Counted:
    """What one input has decoded to so far (`name`, within `limit`): every batch is
    counted before it is used, and past the limit reading stops."""

    def __init__(self, name: str, limit: Limit) -> None:
        self.name, self.limit, self.bytes = name, limit, 0

    def add(self, size: int) -> None:
        self.bytes += size
        if self.bytes > self.limit.bytes:
            raise self.limit.past(self.name)

    def batches(self, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            self.add(decoded_bytes(batch))
            yield batch


def decoded_bytes(batch: pa.RecordBatch) -> int:
    """What a batch holds with every dictionary expanded: a dictionary column's strings
    are counted once per row that names them, found from the codes without expanding."""
    total = 0
    for column in batch.columns:
        if not pa.types.is_dictionary(column.type):
            total += column.nbytes
            continue
        values = column.dictionary
        if _is_binary(values.type):  # each row's length, from the offsets of the values named
            wide = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
            offsets = np.frombuffer(values.buffers()[1], np.int64 if wide else np.int32)
            indices = column.indices.fill_null(0) if column.null_count else column.indices
            codes = indices.to_numpy().astype(np.int64) + values.offset
            lengths = offsets[codes + 1].astype(np.int64) - offsets[codes]
            total += int(lengths.sum()) + 4 * len(column)
        else:
            total += len(column) * -(-values.nbytes // max(len(values), 1))
    return total


def _is_binary(kind: pa.DataType) -> bool:
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    )


def parquet_batches(
    stream: Any, counted: Counted, columns: list[str] | None = None
) -> Iterator[pa.RecordBatch]:
    """A Parquet file's `columns` (None: all) a batch at a time, each counted (`Counted`)
    before it is given.

    It is not pre-buffered: pyarrow would keep every column chunk it fetched until the file
    is read through, the file's columns again beside the batches used."""
    import pyarrow.parquet as pq

    if columns is None:
        columns = pq.ParquetFile(stream, pre_buffer=False).schema_arrow.names
    names = list(dict.fromkeys(columns))
    # pyarrow reads the string columns named as dictionaries, and any other as it is
    file = pq.ParquetFile(stream, pre_buffer=False, read_dictionary=names)
    schema = file.schema_arrow
    least = file.metadata.num_rows * sum(_least_width(schema.field(n).type) for n in names)
    if max(_pages_bytes(file.metadata, set(names)), least) > counted.limit.bytes:
        raise counted.limit.past(counted.name)
    yield from counted.batches(file.iter_batches(ROWS, columns=names))


def _least_width(kind: pa.DataType) -> int:
    """The fewest bytes a row of a column of `kind` decodes to: its footer's row count then
    gives the least a file decodes to, refused before it is read when past the limit."""
    kind = kind.value_type if pa.types.is_dictionary(kind) else kind
    if _is_binary(kind):
        return 4  # an offset, whatever the string
    return kind.bit_width // 8 if pa.types.is_primitive(kind) and kind.bit_width >= 8 else 0


def _pages_bytes(metadata, names: set[str]) -> int:
    """The largest decompressed size of one row group's columns, from the file's footer:
    pyarrow decompresses a page whole, so a row group that inflates past the limit is
    refused before any of it is read."""
    largest = 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        chunks = (row_group.column(i) for i in range(row_group.num_columns))
        size = sum(c.total_uncompressed_size for c in chunks if c.path_in_schema in names)
        largest = max(largest, size)
    return largest


def parquet_table(name: str, stream: Any, limit: Limit) -> pa.Table:
    """A whole Parquet file as one table, counted as it is read."""
    import pyarrow.parquet as pq

    batches = list(parquet_batches(stream, Counted(name, limit)))
    return pa.Table.from_batches(batches) if batches else pq.read_table(stream)


def measure(name: str, data: bytes, limit: Limit) -> int:
    """What an upload holds once read, counted without holding it (past `limit` it raises
    TooLarge): a Parquet file by what its batches decode to, gzip by what it inflates to
    (`compressed.measure`), anything else by its size. A file pyarrow cannot decode is
    left for its reader to name."""
    if data[:4] == b"PAR1":
        counted = Counted(name, limit)
        try:
            for _ in parquet_batches(pa.BufferReader(data), counted):
                pass
            return max(counted.bytes, len(data))
        except pa.ArrowException:
            pass
    return inflated(name, data, limit)
