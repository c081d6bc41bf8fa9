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
from leakeval_core.io.arrays import to_numpy

if TYPE_CHECKING:
    import pandas as pd

    RunLike = pd.DataFrame | pa.Table
    """A run (qid, docid, score) or qrels (qid, docid, grade) as a frame or arrow table."""

__all__ = ["as_table", "codes", "dictionary", "group_starts", "rank_within", "strings"]


def group_starts(group: np.ndarray) -> np.ndarray:
    """Where each run of equal, adjacent group ids starts."""
    change = np.empty(len(group), bool)
    change[:1] = True
    np.not_equal(group[1:], group[:-1], out=change[1:])
    return np.flatnonzero(change)


def rank_within(group: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """1-based position of each row within its run of equal, adjacent group ids (`starts`:
    their `group_starts`, where the caller has them)."""
    n = group.shape[0]
    starts = group_starts(group) if starts is None else starts
    return np.arange(1, n + 1) - np.repeat(starts, np.diff(starts, append=n))


def strings(values: pd.Series | pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Strings as pyarrow `string`, the CSV reader's type, so arrays from files are never
    copied; other inputs (pandas' large_string) are cast once."""
    array = values if isinstance(values, pa.Array | pa.ChunkedArray) else pa.array(values)
    return array if array.type == pa.string() else pc.cast(array, pa.string())


def codes(values: pa.Array | pa.ChunkedArray, value_set: pa.Array) -> np.ndarray:
    """Index of each value in `value_set` (a hash lookup in pyarrow), -1 where absent."""
    found = pc.index_in(strings(values), strings(value_set))
    return to_numpy(found, fill=-1).astype(np.int64)


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
        values = pc.cast(values, values.type.value_type)
    return trec.encode(strings(values))


def dictionary(table: pa.Table, column: str) -> tuple[np.ndarray, pa.Array]:
    """A dictionary column's codes (int32, as stored: a 10M-line run's rows stay small)
    and values."""
    array = table.column(column).chunk(0)
    return to_numpy(array.indices), array.dictionary
