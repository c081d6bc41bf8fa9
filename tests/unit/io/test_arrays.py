"""The pandas-free numpy <-> arrow conversions agree with pyarrow's own."""

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.io.arrays import from_numpy, to_numpy

TYPES = [pa.int8(), pa.int32(), pa.int64(), pa.uint16(), pa.float32(), pa.float64(), pa.bool_()]


@st.composite
def sliced_arrays(draw):
    """An arrow array with nulls, cut at an offset, possibly split into chunks."""
    arrow_type = draw(st.sampled_from(TYPES))
    values = draw(st.lists(st.one_of(st.none(), st.integers(0, 100)), max_size=40))
    if pa.types.is_boolean(arrow_type):
        values = [None if v is None else bool(v % 2) for v in values]
    array = pa.array(values, arrow_type)
    start = draw(st.integers(0, len(values)))
    array = array.slice(start, draw(st.integers(0, len(values) - start)))
    if draw(st.booleans()) and len(array) > 1:
        cut = draw(st.integers(0, len(array)))
        array = pa.chunked_array([array.slice(0, cut), array.slice(cut)], arrow_type)
    return array


@given(sliced_arrays())
def test_property_to_numpy_matches_pyarrow(array):
    fill = True if pa.types.is_boolean(array.type) else 7
    expected = array.fill_null(fill).to_numpy(zero_copy_only=False)
    got = to_numpy(array, fill=fill)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    if array.null_count:
        with pytest.raises(ValueError, match="null"):
            to_numpy(array)


@given(st.lists(st.integers(-(2**40), 2**40), max_size=30), st.integers(1, 3))
def test_property_from_numpy_round_trips_strided_arrays(values, step):
    source = np.array(values, dtype=np.int64)[::step]
    array = from_numpy(source)
    assert array.type == pa.int64()
    assert array.to_pylist() == source.tolist()
    as_float = source.astype(np.float32)
    np.testing.assert_array_equal(to_numpy(from_numpy(as_float)), as_float)


def test_non_numeric_arrays_are_refused():
    with pytest.raises(TypeError, match="not a numeric array"):
        to_numpy(pa.array(["a"]))
    with pytest.raises(TypeError, match="not a numeric array"):
        from_numpy(np.array(["a"]))


def test_leakeval_score_never_imports_pandas(tmp_path):
    """pandas is start-up time that the scoring path has no use for."""
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n")
    (tmp_path / "r.run").write_text("q1 Q0 d2 1 2.0 x\nq1 Q0 d1 2 1.0 x\nq2 Q0 d1 1 0.5 x\n")
    code = (
        "import sys; from leakeval_core.cli import main\n"
        f"main(['score', '--qrels', {str(tmp_path / 'q.txt')!r}, '--run', "
        f"{str(tmp_path / 'r.run')!r}, '--measures', 'ndcg_cut_10,P_1,map,recip_rank'])\n"
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False"
    assert "0.5000" in out.stdout  # q1: P@1 0 (d2 first, irrelevant), q2: 1
