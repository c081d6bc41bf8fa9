import errno
import os
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.cache import Cache, hash_key, take_notices

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


# A cache that cannot be written is an optimisation lost, never a failure.


@pytest.fixture(autouse=True)
def no_degraded_caches(monkeypatch):
    """Each test starts in a process that has seen no cache fail (it remembers them)."""
    from leakeval_core.experiment import cache

    monkeypatch.setattr(cache, "_DEGRADED", {})
    monkeypatch.setattr(cache, "_TAKEN", set())


def test_a_file_where_the_cache_folder_should_be(tmp_path):
    """Works as root too: no permission is involved."""
    (tmp_path / "cache").write_text("not a folder")
    cache = Cache(tmp_path / "cache")
    builds = []
    for _ in range(2):
        frame, meta = cache.get_or_build("k", "abc", lambda: (builds.append(1) or FRAME, {"a": 1}))
        assert len(frame) == 2 and meta == {"a": 1}
    assert builds == [1, 1]  # kept nowhere, rebuilt: the caller keeps it in memory
    cache.put_bytes("blob", "abc", b"x")
    assert cache.get_bytes("blob", "abc") is None
    assert cache.notice == (
        f"leakeval: cache {tmp_path / 'cache'} is not writable (a file is where its folder "
        "should be); working from memory, nothing new is kept between runs"
    )
    assert (tmp_path / "cache").read_text() == "not a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through a read-only mode")
def test_a_read_only_cache_folder(tmp_path):
    (tmp_path / "cache").mkdir(mode=0o500)
    cache = Cache(tmp_path / "cache")
    cache.put("k", "abc", FRAME)
    assert cache.notice is not None and "not writable (permission denied)" in cache.notice
    assert list((tmp_path / "cache").iterdir()) == []


def test_read_only_file_system_degrades_once_and_still_serves_its_entries(tmp_path, monkeypatch):
    """A read-only mount (simulated: every new file fails with EROFS, as root's would too):
    what the cache holds is still read; the first failed write is the last one tried."""
    warm = Cache(tmp_path)
    warm.put("k", "held", FRAME)
    tries = []

    def read_only(*args, **kwargs):
        tries.append(1)
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    cache = Cache(tmp_path)
    assert cache.probe() == (
        f"leakeval: cache {tmp_path} is not writable (read-only file system); working from "
        "memory, nothing new is kept between runs"
    )
    cache.put("k", "new", FRAME)
    cache.put_bytes("blob", "new", b"x")
    assert tries == [1]
    assert cache.get("k", "held") is not None
    assert Cache(tmp_path).notice == cache.notice  # the folder is degraded, not one object
    assert take_notices() == [cache.notice]
    assert take_notices() == []  # said once


def test_a_full_disk_leaves_no_partial_file(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    written = []

    def full(table, where, *args, **kwargs):
        Path(where).write_bytes(b"PAR1 half a table")
        written.append(where)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq, "write_table", full)
    cache = Cache(tmp_path)
    cache.put("k", "abc", FRAME)
    cache.put("k", "other", FRAME)
    assert len(written) == 1
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    assert "is full (no space left on device)" in cache.notice


def test_a_corrupt_entry_in_a_read_only_cache_is_rebuilt_in_memory(tmp_path, monkeypatch):
    cache = Cache(tmp_path)
    cache.path("k", "abc").parent.mkdir(parents=True)
    cache.path("k", "abc").write_bytes(b"not parquet at all")

    def refuse(self, missing_ok=False):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(Path, "unlink", refuse)
    frame, _ = cache.get_or_build("k", "abc", lambda: (FRAME, {}))
    assert len(frame) == 2
    assert "read-only file system" in cache.notice


def test_clearing_a_cache_that_cannot_be_written_is_a_one_line_error(tmp_path, monkeypatch):
    import shutil

    cache = Cache(tmp_path / "c")
    cache.put("a", "1", FRAME)

    def refuse(path, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(shutil, "rmtree", refuse)
    with pytest.raises(LeakevalError, match=r"cannot clear the cache .*: Read-only file system"):
        cache.clear()


def test_the_probe_says_at_once_and_leaves_nothing(tmp_path):
    assert Cache(tmp_path / "fine").probe() is None
    assert list((tmp_path / "fine").iterdir()) == []
    (tmp_path / "file").write_text("in the way")
    assert "a file is where its folder should be" in Cache(tmp_path / "file").probe()


# A bounded cache: least recently used entries go first, dead writers' temp files at start.


def entries_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and p.name[0] != ".")


def test_the_cache_stays_within_its_limit(tmp_path):
    Cache(tmp_path / "probe").put("k", "x", FRAME)
    size = entries_bytes(tmp_path / "probe")
    cache = Cache(tmp_path / "c", max_bytes=5.5 * size)
    for i in range(40):
        cache.put("k", f"{i:02d}", FRAME)
        assert entries_bytes(tmp_path / "c") <= cache.max_bytes
    kept = sorted(p.stem for p in (tmp_path / "c" / "k").iterdir())
    assert kept == ["35", "36", "37", "38", "39"]  # the five most recent


def test_a_hit_keeps_an_entry_and_the_least_recently_used_goes(tmp_path):
    Cache(tmp_path / "probe").put("k", "x", FRAME)
    size = entries_bytes(tmp_path / "probe")
    cache = Cache(tmp_path / "c", max_bytes=3.5 * size)
    for key in ("a", "b", "c"):
        cache.put("k", key, FRAME)
    assert cache.get("k", "a") is not None  # used: now the most recent
    cache.put("k", "d", FRAME)
    assert sorted(p.stem for p in (tmp_path / "c" / "k").iterdir()) == ["a", "c", "d"]
    cache.put_bytes("blob", "e", b"x" * 10)
    assert cache.get_bytes("blob", "e") is not None
    assert cache.get("k", "b") is None


def test_eviction_never_touches_a_write_in_progress(tmp_path):
    """Another process's temp file is not an entry: eviction leaves it, whatever its size."""
    cache = Cache(tmp_path, max_bytes=1)
    writing = tmp_path / "k" / f".abc.{os.getpid()}@elsewhere.x1y2z3.tmp"
    writing.parent.mkdir()
    writing.write_bytes(b"half a table" * 1000)
    cache.put("k", "new", FRAME)
    assert writing.exists()
    assert not cache.path("k", "new").exists()  # alone over the limit: it goes too


def test_a_reader_whose_entry_was_evicted_rebuilds_it(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    cache = Cache(tmp_path)
    cache.put("k", "abc", FRAME)
    real = pq.read_table

    def evicted_meanwhile(path, *args, **kwargs):
        Path(path).unlink()  # another process evicted it between the look and the read
        return real(path, *args, **kwargs)

    monkeypatch.setattr(pq, "read_table", evicted_meanwhile)
    assert cache.get("k", "abc") is None
    assert cache.notice is None
    monkeypatch.undo()
    frame, _ = cache.get_or_build("k", "abc", lambda: (FRAME, {}))
    assert len(frame) == 2 and cache.get("k", "abc") is not None


def test_the_limit_comes_from_the_environment(tmp_path, monkeypatch):
    from leakeval_core.experiment.cache import DEFAULT_LIMIT_MB

    monkeypatch.delenv("LEAKEVAL_CACHE_MB", raising=False)
    assert Cache(tmp_path).max_bytes == DEFAULT_LIMIT_MB * 2**20
    monkeypatch.setenv("LEAKEVAL_CACHE_MB", "0.5")
    assert Cache(tmp_path).max_bytes == 2**19
    for bad in ("lots", "0", "-3", "nan", "inf"):
        monkeypatch.setenv("LEAKEVAL_CACHE_MB", bad)
        with pytest.raises(LeakevalError, match=rf"LEAKEVAL_CACHE_MB='{bad}': not a size"):
            Cache(tmp_path)


def dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    return int(child.stdout)  # it has exited (and been waited for): no process has its pid


def temp_file(root: Path, pid: int, host: str, age: float, now: float | None = None) -> Path:
    """A temp file as a writer names it (`.KEY.PID@HOST.RANDOM.tmp`), last written `age`
    seconds before `now` (the clock's time, unless given)."""
    import socket

    host = socket.gethostname() if host == "here" else host
    path = root / "experiment-scores" / f".0123abcd.{pid}@{host}.k9x{int(age)}.tmp"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\0" * 2048)
    then = (time.time() if now is None else now) - age
    os.utime(path, (then, then))
    return path


def test_a_dead_writers_temp_files_are_removed_at_start(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from leakeval_core.experiment import cache as module

    monkeypatch.setattr(module, "_SWEPT", set())
    # the sweep reads a clock stopped at `now`: each file's age is what it says, however
    # long this machine takes between writing the files and opening the cache
    now = time.time()
    monkeypatch.setattr(module, "time", SimpleNamespace(time=lambda: now, time_ns=time.time_ns))
    dead, alive = dead_pid(), os.getpid()
    left = {
        "killed, here": (temp_file(tmp_path, dead, "here", 120, now), False),
        "killed moments ago": (temp_file(tmp_path, dead, "here", 5, now), True),
        "running, here": (temp_file(tmp_path, alive, "here", 120, now), True),
        "on another host": (temp_file(tmp_path, dead, "elsewhere", 120, now), True),
        "another host, two hours ago": (temp_file(tmp_path, dead, "elsewhere", 7200, now), False),
    }
    old_format = tmp_path / "experiment-runs" / ".0123abcd.qz81.tmp"
    old_format.parent.mkdir()
    old_format.write_bytes(b"x")
    os.utime(old_format, (now - 7200,) * 2)
    entry = tmp_path / "experiment-scores" / "0123abcd.parquet"  # unused for hours: kept
    entry.write_bytes(b"PAR1")
    os.utime(entry, (now - 7200,) * 2)
    Cache(tmp_path)
    assert {what: path.exists() for what, (path, _) in left.items()} == {
        what: kept for what, (_, kept) in left.items()
    }
    assert not old_format.exists()
    assert entry.exists()
    (tmp_path / "experiment-scores" / ".0123abcd.x.tmp").write_bytes(b"x")
    Cache(tmp_path)  # swept once per process: a second open does not look again
    assert (tmp_path / "experiment-scores" / ".0123abcd.x.tmp").exists()


def test_a_writer_whose_temp_file_was_swept_loses_its_entry_only(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    real = pq.write_table

    def swept_meanwhile(table, where, *args, **kwargs):
        real(table, where, *args, **kwargs)
        Path(where).unlink()

    monkeypatch.setattr(pq, "write_table", swept_meanwhile)
    cache = Cache(tmp_path)
    cache.put("k", "abc", FRAME)
    assert cache.notice is None and cache.get("k", "abc") is None
    monkeypatch.undo()
    cache.put("k", "abc", FRAME)
    assert cache.get("k", "abc") is not None


def test_usage_counts_entries_and_temp_files(tmp_path):
    cache = Cache(tmp_path, max_bytes=10 * 2**20)
    cache.put("a", "1", FRAME)
    cache.put("a", "2", FRAME)
    cache.put_bytes("b", "3", b"x" * 100)
    temp_file(tmp_path, os.getpid(), "here", 0)
    usage = cache.usage()
    assert usage.entries == 3 and usage.limit == 10 * 2**20
    assert usage.kinds["a"][0] == 2 and usage.kinds["b"] == (1, 104)  # a 4-byte CRC first
    assert usage.size == entries_bytes(tmp_path)
    assert usage.temporary == (1, 2048)


WRITER = """
import sys
import pandas as pd
from leakeval_core.experiment.cache import Cache
cache = Cache(sys.argv[1], max_bytes=float(sys.argv[2]))
frame = pd.DataFrame({"qid": [str(i) for i in range(500)], "value": 1.0})
for i in range(25):
    cache.put("k", f"{sys.argv[3]}-{i}", frame)
    for j in range(i):  # entries another process may be evicting meanwhile
        hit = cache.get("k", f"{sys.argv[3]}-{j}")
        assert hit is None or len(hit[0]) == 500
assert cache.notice is None, cache.notice
"""


def test_processes_sharing_a_cache_keep_it_within_its_limit(tmp_path):
    import subprocess
    import sys

    from tests.support import ROOT

    one = Cache(tmp_path / "one")
    one.put("k", "x", pd.DataFrame({"qid": [str(i) for i in range(500)], "value": 1.0}))
    limit = 8.5 * entries_bytes(tmp_path / "one")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path / "c"), str(limit), name],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b", "c")
    ]
    errors = [(w.wait(), w.stderr.read()) for w in writers]
    assert errors == [(0, "")] * 3
    assert 0 < entries_bytes(tmp_path / "c") <= limit
    assert [p for p in (tmp_path / "c" / "k").iterdir() if p.name.startswith(".")] == []


def test_an_entry_larger_than_the_limit_is_not_kept(tmp_path):
    """Evicting down to the limit would delete every other entry, then this one."""
    cache = Cache(tmp_path, max_bytes=64)
    cache.put_bytes("b", "small", b"x" * 10)
    cache.put_bytes("b", "large", b"x" * 100)
    assert cache.get_bytes("b", "large") is None
    assert bytes(cache.get_bytes("b", "small")) == b"x" * 10
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["small.crc"]


def _unread(monkeypatch):
    """From here on a file is hashed only from what a cache kept: the process's own memory
    of its hashes is forgotten (as in a new command) and reading a file fails the test."""
    from leakeval_core.io import digest

    monkeypatch.setattr(digest, "_KNOWN", {})

    def refuse(fh):
        raise AssertionError("the file was read to hash it")

    monkeypatch.setattr(digest, "_file_hash", refuse)


def test_a_file_hash_is_kept_for_the_next_command_while_the_file_stands(
    tmp_path, monkeypatch, hashes_kept_at_once
):
    """Kept by the file's identity: the next command does not read the file again; an edit
    (a new identity, whatever the size and mtime) is hashed anew."""
    import hashlib

    def hashed(data: bytes) -> str:
        return hashlib.blake2b(data).hexdigest()[:32]

    path = tmp_path / "qrels.txt"
    path.write_text("301 0 d1 1\n")
    assert Cache(tmp_path / "c").file_digest(path) == hashed(b"301 0 d1 1\n")
    with monkeypatch.context() as inner:
        _unread(inner)
        assert Cache(tmp_path / "c").file_digest(path) == hashed(b"301 0 d1 1\n")
    stat = path.stat()
    path.write_text("301 0 d2 1\n")  # the same size, its times restored: only ctime moves
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert Cache(tmp_path / "c").file_digest(path) == hashed(b"301 0 d2 1\n")


def test_a_file_changed_just_now_has_its_hash_kept_nowhere(tmp_path, monkeypatch):
    """Its ctime may not yet tell it from its next edit on a coarse filesystem clock. The
    file is hashed at the very time it last changed, by the hashing's own clock, so no
    machine's speed can let it settle first."""
    from types import SimpleNamespace

    from leakeval_core.io import digest

    path = tmp_path / "qrels.txt"
    path.write_text("301 0 d1 1\n")
    changed = path.stat().st_ctime_ns
    monkeypatch.setattr(digest, "time", SimpleNamespace(time_ns=lambda: changed))
    Cache(tmp_path / "c").file_digest(path)
    assert not (tmp_path / "c" / "file-digests").exists()
