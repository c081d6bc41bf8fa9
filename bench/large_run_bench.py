"""A 10M-line run read and scored as `leakeval score` does: wall time and peak memory
against the file size.

    .venv/bin/python bench/large_run_bench.py [--lines 10000000]

Peak memory is the process's max RSS minus its RSS before reading (imports, qrels).
Writes bench/results/large_run_bench.json.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
QRELS = ROOT.parent / "shared" / "realdata" / "robust04" / "qrels.txt"

from leakeval_core.evaluation.qrels import PreparedQrels  # noqa: E402
from leakeval_core.evaluation.scoring import score_files  # noqa: E402
from leakeval_core.io import trec  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def write_run(path: Path, lines: int, qrels) -> None:
    """Lines spread over the Robust04 topics (judged documents first), written per query."""
    rng = np.random.default_rng(0)
    pools = {q: g.docid.to_numpy(dtype=str) for q, g in qrels.groupby("qid")}
    per_query = lines // len(pools)
    with open(path, "w") as fh:
        for qid, judged in pools.items():
            filler = np.char.add("DOC-", np.arange(per_query).astype(str))
            docs = np.concatenate([judged, filler])[:per_query]
            scores = np.sort(rng.random(per_query))[::-1]
            ranks = np.arange(1, per_query + 1).astype(str)
            block = np.char.add(np.char.add(np.char.add(f"{qid} Q0 ", docs), " "), ranks)
            block = np.char.add(np.char.add(block, " "), np.char.mod("%.6f", scores))
            fh.write("\n".join(np.char.add(block, " bench").tolist()) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000_000)
    args = parser.parse_args()
    qrels = trec.read_qrels(QRELS)
    prepared = PreparedQrels(qrels)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "large.run"
        write_run(path, args.lines, qrels)
        size = path.stat().st_size / 1e6
        base = rss_mb()
        start = time.perf_counter()
        (result,) = score_files([path], prepared, "ndcg_cut_10,P_1,recall_100,map")
        total = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base
        whole = whole_process_peak(path)
    print(
        f"{args.lines:,} lines, {size:.0f} MB file: read + score {total:.1f} s; peak memory "
        f"above baseline {peak:.0f} MB = {peak / size:.2f}x the file "
        f"({result.diagnostics.queries_scored} queries scored)"
    )
    print(
        f"`leakeval score` as a whole process, interpreter included: peak RSS {whole:.0f} MB = "
        f"{whole / size:.2f}x the file"
    )
    record.write(
        "large_run_bench",
        {
            "megabytes": size,
            "seconds": total,
            "peak_above_baseline_mb": peak,
            "peak_above_baseline_ratio": peak / size,
            "whole_process_peak_mb": whole,
            "whole_process_ratio": whole / size,
            "queries_scored": result.diagnostics.queries_scored,
        },
        config=vars(args) | {"qrels": str(QRELS), "measures": "ndcg_cut_10,P_1,recall_100,map"},
    )


def whole_process_peak(path: Path) -> float:
    """Peak RSS in MB of `leakeval score` on the file, run as its own process (GNU time)."""
    import subprocess

    command = [
        "/usr/bin/time",
        "-f",
        "%M",
        str(Path(sys.executable).parent / "leakeval"),
        "score",
        "--qrels",
        str(QRELS),
        "--run",
        str(path),
        "--measures",
        "ndcg_cut_10,P_1,recall_100,map",
        "--out",
        str(path.with_suffix(".csv")),
    ]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024


if __name__ == "__main__":
    main()
