import os
import threading

import pandas as pd

from leakeval_core.experiment.cache import Cache, hash_key

FRAME = pd.DataFrame({"qid": ["1", "2"], "value": [0.5, 1.0]})


def test_roundtrip_with_metadata(tmp_path):
    cache = Cache(tmp_path)
    cache.put("k", "abc", FRAME, {"ties": 3})
    frame, meta = cache.get("k", "abc")
    pd.testing.assert_frame_equal(frame, FRAME, check_dtype=False)
    assert meta == {"ties": 3}


def test_keys_depend_on_every_part():
    assert hash_key("a", {"depth": 100}) != hash_key("a", {"depth": 10})
    assert hash_key("a", {"x": 1, "y": 2}) == hash_key("a", {"y": 2, "x": 1})


def test_truncated_entry_is_detected_and_rebuilt(tmp_path):
    cache = Cache(tmp_path)
    cache.put("k", "abc", FRAME)
    path = cache.path("k", "abc")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a write cut off mid-file
    assert cache.get("k", "abc") is None
    assert not path.exists()
    calls = []
    frame, _ = cache.get_or_build("k", "abc", lambda: (calls.append(1) or FRAME, {}))
    assert calls == [1] and len(frame) == 2
    assert cache.get("k", "abc") is not None


def test_garbage_entry_is_rebuilt(tmp_path):
    cache = Cache(tmp_path)
    cache.path("k", "abc").parent.mkdir(parents=True)
    cache.path("k", "abc").write_bytes(b"not parquet at all")
    assert cache.get("k", "abc") is None


def test_write_is_atomic_no_temp_files_left(tmp_path):
    cache = Cache(tmp_path)
    cache.put("k", "abc", FRAME)
    assert [p.name for p in (tmp_path / "k").iterdir()] == ["abc.parquet"]


def test_concurrent_writers_of_one_key(tmp_path):
    cache = Cache(tmp_path)
    big = pd.DataFrame({"qid": [str(i) for i in range(20_000)], "value": 1.0})
    errors = []

    def writer():
        try:
            for _ in range(5):
                cache.put("k", "same", big)
                got = cache.get("k", "same")
                assert got is not None and len(got[0]) == 20_000
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(os.listdir(tmp_path / "k")) == ["same.parquet"]


def test_clear(tmp_path):
    cache = Cache(tmp_path / "c")
    cache.put("a", "1", FRAME)
    cache.put("b", "2", FRAME)
    assert cache.clear() == 2
    assert cache.get("a", "1") is None
    assert Cache(tmp_path / "never").clear() == 0
