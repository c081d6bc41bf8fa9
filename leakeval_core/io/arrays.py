"""numpy views of arrow arrays, and arrow arrays of numpy ones, without pandas.

pyarrow imports pandas the first time it converts to or from numpy (`to_numpy`,
`pa.array(ndarray)`, a Python scalar as a compute argument): start-up time spent on a
library the scorer never uses. Numeric columns are plain buffers, so numpy can look at them
directly.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["from_numpy", "to_numpy"]


def to_numpy(array: pa.Array | pa.ChunkedArray, fill: float | None = None) -> np.ndarray:
    """The values of a numeric or boolean array (zero-copy where arrow's layout allows it,
    read-only then). Nulls become `fill`; without one, a null is a ValueError."""
    if isinstance(array, pa.ChunkedArray):
        parts = [to_numpy(chunk, fill) for chunk in array.chunks]
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.empty(0, array.type.to_pandas_dtype())
    validity, data = array.buffers()[:2]
    if pa.types.is_boolean(array.type):
        values = _bits(data, array.offset, len(array))
    else:
        if not pa.types.is_integer(array.type) and not pa.types.is_floating(array.type):
            raise TypeError(f"not a numeric array: {array.type}")
        dtype = np.dtype(array.type.to_pandas_dtype())
        if data is None:
            return np.empty(0, dtype)
        values = np.frombuffer(data, dtype, count=len(array), offset=array.offset * dtype.itemsize)
    if array.null_count:
        if fill is None:
            raise ValueError(f"{array.null_count} null(s) and no fill value")
        values = np.where(_bits(validity, array.offset, len(array)), values, fill)
    return values


def _bits(buffer: pa.Buffer | None, offset: int, length: int) -> np.ndarray:
    """Arrow's bit-packed booleans (least significant bit first) as a numpy bool array."""
    if buffer is None or not length:
        return np.zeros(length, bool)
    bits = np.unpackbits(np.frombuffer(buffer, np.uint8), bitorder="little")
    return bits[offset : offset + length].view(bool)


def from_numpy(values: np.ndarray) -> pa.Array:
    """A numeric numpy array as an arrow array sharing its memory (copied only if strided)."""
    values = np.ascontiguousarray(values)
    if values.dtype.kind not in "iuf":
        raise TypeError(f"not a numeric array: {values.dtype}")
    arrow_type = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(values)])
