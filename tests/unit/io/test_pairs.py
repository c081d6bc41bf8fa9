"""Pair keys order (major, minor) code pairs as the pairs are ordered, in 32 bits only where
every key fits."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.io.pairs import pair_keys


@given(st.lists(st.tuples(st.integers(0, 300), st.integers(0, 999)), max_size=50))
def test_property_pair_keys_sort_as_the_pairs_do(pairs):
    major = np.array([p[0] for p in pairs], np.int32)
    minor = np.array([p[1] for p in pairs], np.int16)
    keys = pair_keys(major, minor, 1000)
    assert keys.dtype == np.int32
    assert sorted(range(len(pairs)), key=lambda i: (keys[i], i)) == sorted(
        range(len(pairs)), key=lambda i: (pairs[i], i)
    )
    assert len(set(keys.tolist())) == len(set(pairs))


def test_keys_that_would_overflow_32_bits_are_64():
    major = np.array([0, 2**20], np.int32)
    minor = np.array([5, 7], np.int32)
    keys = pair_keys(major, minor, 2**12)
    assert keys.dtype == np.int64
    assert keys.tolist() == [5, 2**32 + 7]
    assert pair_keys(major[:1], minor[:1], 2**12).dtype == np.int32
