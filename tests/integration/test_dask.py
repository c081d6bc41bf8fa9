"""`leakeval leakage --dask` on real LocalClusters: the same bytes as one process, for both
methods, through a killed worker, and a clean stop on Ctrl-C."""

import json
import os
import signal
import sys

import pandas as pd
import pytest

from leakeval_core.cli import main
from leakeval_core.io import query_files
from leakeval_core.leakage.detect import topic_texts
from leakeval_core.leakage.detection_options import DetectionOptions
from leakeval_core.leakage.distributed import connect, dask_map
from leakeval_core.leakage.sharded import detect_shards
from tests.support import needs_encoder, realdata

pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
psutil = pytest.importorskip("psutil", reason="the dask extra is not installed")


def _write_shards(frame: pd.DataFrame, folder, parts: int) -> None:
    folder.mkdir()
    size = -(-len(frame) // parts)
    for i in range(parts):
        part = frame.iloc[i * size : (i + 1) * size]
        lines = "".join(f"{q}\t{t}\n" for q, t in zip(part.qid, part.text, strict=True))
        (folder / f"part-{i:03d}.tsv").write_text(lines)


@pytest.fixture(scope="module")
def real_log(tmp_path_factory):
    """The real MS MARCO sample, twice over (the copy under other qids, so ties must be
    broken the same way everywhere), in 6 shards; and 40 real Robust04 topics."""
    log = query_files.read_queries(realdata("msmarco", "doctrain-queries.sample.csv"))
    doubled = pd.concat([log, log.assign(qid="b" + log.qid)], ignore_index=True)
    root = tmp_path_factory.mktemp("dask")
    _write_shards(doubled, root / "log", 6)
    topics = query_files.read_topics(realdata("robust04", "topics.txt")).iloc[:40]
    with open(root / "topics.tsv", "w") as fh:
        for qid, title in zip(topics.qid, topics.title, strict=True):
            fh.write(f"{qid}\t{title}\n")
    return root


def _leakage(root, out, *extra: str) -> bytes:
    args = ["leakage", "--topics", str(root / "topics.tsv"), "--train-queries", str(root / "log")]
    assert main([*args, "--out", str(out), *extra]) == 0
    return out.read_bytes()


@pytest.mark.parametrize("method", ["lexical", "hybrid"])
def test_dask_output_is_byte_identical(real_log, tmp_path, method):
    if method != "lexical":
        needs_encoder()
    # the hybrid's probabilities for these pairs (no judged near-duplicate among them) are
    # low: keep every candidate, so there is a table to compare
    method_args = ("--method", method, "--min-similarity", "0.3" if method == "lexical" else "0")
    single = _leakage(real_log, tmp_path / "single.csv", *method_args)
    on_dask = _leakage(real_log, tmp_path / "dask.csv", *method_args, "--dask")
    assert on_dask == single
    pairs = pd.read_csv(tmp_path / "dask.csv", dtype=str)
    assert len(pairs) > 100 and pairs.train_qid.str.startswith("b").any()
    sidecar = json.loads((tmp_path / "dask.csv.json").read_text())
    assert sidecar["dask"] == "local" and sidecar["shards_compared"] == 6
    assert sidecar["queries_compared"] == 2 * 18_093


@pytest.fixture
def client():
    with connect(workers=2) as client:
        yield client


def test_a_killed_worker_changes_nothing(real_log, client):
    topics = query_files.read_topics(realdata("robust04", "topics.txt"))
    side = topic_texts(topics)
    shards = sorted((real_log / "log").iterdir())
    options = DetectionOptions(chunk_size=2_000)
    expected, _ = detect_shards(side, shards, options)
    killed = {}

    def kill_a_busy_worker(done: int, total: int, what: str) -> None:
        if killed:
            return
        busy = [address for address, tasks in client.processing().items() if tasks]
        if not busy:
            return
        pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
        os.kill(pid, signal.SIGKILL)
        killed.update(address=busy[0], pid=pid, after=done)

    got, report = detect_shards(
        side, shards, options, dask_map(client.scheduler.address), kill_a_busy_worker
    )
    assert killed and killed["after"] < len(shards), "no worker was busy to kill"
    assert not psutil.pid_exists(killed["pid"]) or psutil.Process(killed["pid"]).status() in (
        psutil.STATUS_ZOMBIE,
        psutil.STATUS_DEAD,
    )
    assert got.to_csv(index=False) == expected.to_csv(index=False)
    assert report.queries == 2 * 18_093 and not report.skipped


def test_ctrl_c_cancels_and_shuts_the_local_cluster_down(real_log):
    side = topic_texts(query_files.read_topics(realdata("robust04", "topics.txt")).iloc[:5])
    shards = sorted((real_log / "log").iterdir())
    before = {p.pid for p in psutil.Process().children(recursive=True)}

    def interrupt(done: int, total: int, what: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        detect_shards(side, shards, DetectionOptions(), dask_map(workers=2), interrupt)
    started = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    # waits on the processes themselves; the bound only turns a leak into a failure
    _, left = psutil.wait_procs(started, timeout=300)
    assert not left, f"worker processes left running: {left}"


def test_without_the_extra_dask_is_a_one_line_error(real_log, tmp_path, monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "dask" or m.startswith("dask.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    args = ["leakage", "--topics", str(real_log / "topics.tsv")]
    code = main([*args, "--train-queries", str(real_log / "log"), "--out", "x", "--dask"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err == "leakeval: --dask needs the optional extra: pip install -e '.[dask]'"


def test_workers_never_rerun_a_streamlit_script(real_log, tmp_path, monkeypatch):
    """Streamlit's script runner (and so AppTest) installs the app as `__main__`, and
    spawned workers re-run `__main__`: a local cluster must start from a bare one."""
    import types

    script = tmp_path / "app.py"
    marker = tmp_path / "ran"
    script.write_text(f"open({str(marker)!r}, 'a').write('x')\n")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", fake)
    _leakage(real_log, tmp_path / "pairs.csv", "--dask")
    assert not marker.exists()
    assert sys.modules["__main__"] is fake  # given back afterwards
