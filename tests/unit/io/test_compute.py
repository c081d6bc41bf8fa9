"""Each kernel called by name (`io.compute`) gives what pyarrow.compute's function of the
same name gives, on strings alike and different, sliced, with nulls and non-ASCII bytes."""

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.io import compute

WORDS = st.lists(
    st.one_of(st.none(), st.text(alphabet="abcé Z0", max_size=12)), min_size=1, max_size=30
)


def sliced(words: list, start: int) -> pa.Array:
    """The words as arrow strings, from `start` on (an offset, as the readers' slices have)."""
    return pa.array(words, pa.string()).slice(min(start, len(words) - 1))


@given(WORDS, st.integers(0, 5), st.integers(1, 16))
def test_property_string_kernels_match_pyarrow_compute(words, start, width):
    values = sliced(words, start)
    positions = pa.array(list(range(len(values)))[::-1], pa.int64())
    cut = pc.binary_slice(values.cast(pa.binary()), 0, width)
    pad = pa.scalar(b" " * width, pa.binary())
    none = pa.scalar(b"", pa.binary())
    cases = [
        (compute.binary_length(values), pc.binary_length(values)),
        (compute.ascii_rpad(values, width, " "), pc.ascii_rpad(values, width=width, padding=" ")),
        (compute.cast(values, pa.binary()), values.cast(pa.binary())),
        (compute.binary_slice(compute.cast(values, pa.binary()), 0, width), cut),
        (
            compute.binary_join_element_wise(cut, pad, none),
            pc.binary_join_element_wise(cut, pad, none),
        ),
        (compute.dictionary_encode(values), pc.dictionary_encode(values)),
        (compute.equal(values, values.take(positions)), pc.equal(values, values.take(positions))),
        (compute.take(values, positions), values.take(positions)),
        (compute.index_in(values, values[:3]), pc.index_in(values, value_set=values[:3])),
        (compute.sort_indices(values), pc.sort_indices(values)),
        (compute.max(compute.binary_length(values)), pc.max(pc.binary_length(values))),
    ]
    for got, expected in cases:
        assert got.equals(expected)


@pytest.mark.parametrize("direction", ["ascending", "descending"])
def test_sort_indices_of_a_table_by_keys_matches_pyarrow_compute(direction):
    table = pa.table({"block": [2, 1, 1, 2, 1], "docid": ["b", "c", "a", "a", "b"]})
    keys = [("block", "ascending"), ("docid", direction)]
    assert compute.sort_indices(table, keys).equals(pc.sort_indices(table, sort_keys=keys))


def test_list_flatten_and_dictionary_encode_into_a_pool_match_pyarrow():
    lists = pa.LargeListArray.from_arrays(pa.array([0, 3], pa.int64()), pa.array([4, 5, 6]))
    assert compute.list_flatten(lists).equals(lists.flatten())
    pool = pa.system_memory_pool()
    values = pa.chunked_array([["x", "y"], ["y", "z"]])
    encoded = compute.dictionary_encode(values, pool)
    assert encoded.equals(pc.dictionary_encode(values, memory_pool=pool))
