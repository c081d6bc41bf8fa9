"""The pyarrow compute functions the scorer calls, without importing `pyarrow.compute`.

Importing `pyarrow.compute` builds a Python wrapper, docstring and all, for each of
pyarrow's hundreds of kernels: a large share of what a one-run `leakeval score` spends
before its first file (bench/score_bench.py). The kernels themselves live in
`pyarrow._compute`, and each function here calls its kernel by name with the options the
`pyarrow.compute` function of the same name would pass (`pyarrow.compute.call_function`),
so the results are the same (tests/unit/io/test_compute.py holds each to it). Code off the
scoring path uses `pyarrow.compute` as usual.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from pyarrow._compute import (
    CastOptions,
    JoinOptions,
    PadOptions,
    SetLookupOptions,
    SliceOptions,
    SortOptions,
    call_function,
)

__all__ = [
    "ascii_rpad",
    "binary_join_element_wise",
    "binary_length",
    "binary_slice",
    "cast",
    "dictionary_encode",
    "equal",
    "index_in",
    "list_flatten",
    "max",
    "sort_indices",
    "take",
]


def ascii_rpad(values, width: int, padding: str = " "):
    return call_function("ascii_rpad", [values], PadOptions(width, padding))


def binary_join_element_wise(*values):
    """The last argument is the separator."""
    return call_function("binary_join_element_wise", list(values), JoinOptions())


def binary_length(values):
    return call_function("binary_length", [values])


def binary_slice(values, start: int, stop: int):
    return call_function("binary_slice", [values], SliceOptions(start, stop))


def cast(values, target_type: pa.DataType):
    """A safe cast, as `Array.cast`'s default."""
    return call_function("cast", [values], CastOptions.safe(target_type))


def dictionary_encode(values, memory_pool: pa.MemoryPool | None = None):
    return call_function("dictionary_encode", [values], None, memory_pool)


def equal(left, right):
    return call_function("equal", [left, right])


def index_in(values, value_set: pa.Array):
    return call_function("index_in", [values], SetLookupOptions(value_set))


def list_flatten(lists):
    """As `ListArray.flatten`: the values of every list, in order."""
    return call_function("list_flatten", [lists])


def max(values) -> pa.Scalar:
    return call_function("max", [values])


def sort_indices(data, sort_keys: Sequence[tuple[str, str]] = ()):
    """Ascending for an array; by `sort_keys` (column, "ascending" | "descending") for a
    table."""
    return call_function("sort_indices", [data], SortOptions(sort_keys))


def take(data, indices):
    return call_function("take", [data, indices])
