"""Scoring throughput: `leakeval score` vs the plain pytrec_eval path, as whole processes.

100 runs x 250 queries x 100 documents (~2.5M lines) against the real Robust04 qrels when
../shared/realdata is present (else the demo's). Both commands run alternately, several
times, and the median of each and of their ratio is reported. Run by hand:

    .venv/bin/python bench/score_bench.py [--runs 100] [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
REAL_QRELS = ROOT.parent / "shared" / "realdata" / "robust04" / "qrels.txt"
MEASURES = ["ndcg_cut_10", "P_1", "recall_100", "recip_rank", "map"]

BASELINE = """
import sys, pytrec_eval
qrels_path, measures, runs = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
with open(qrels_path) as fh:
    evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fh), set(measures))
for path in runs:
    with open(path) as fh:
        evaluator.evaluate(pytrec_eval.parse_run(fh))
"""


def make_runs(qrels_path: Path, out: Path, n_runs: int, n_queries: int, depth: int) -> list[Path]:
    sys.path.insert(0, str(ROOT))
    from leakeval_core.io.trec import read_qrels

    qrels = read_qrels(qrels_path)
    rng = np.random.default_rng(0)
    qids = qrels.qid.unique()[:n_queries]
    pools = {q: g.docid.to_numpy() for q, g in qrels[qrels.qid.isin(qids)].groupby("qid")}
    paths = []
    for i in range(n_runs):
        frames = []
        for q in qids:
            pool = pools[q]
            judged = rng.choice(pool, size=min(depth // 2, len(pool)), replace=False)
            unjudged = [f"X{i}-{q}-{j}" for j in range(depth - len(judged))]
            docs = np.concatenate([judged, unjudged])
            frames.append(
                pd.DataFrame(
                    {
                        "qid": q,
                        "q0": "Q0",
                        "docid": docs,
                        "rank": np.arange(1, depth + 1),
                        "score": np.sort(rng.random(depth))[::-1],
                        "tag": "b",
                    }
                )
            )
        path = out / f"run{i:03d}.run"
        pd.concat(frames).to_csv(path, sep=" ", header=False, index=False, float_format="%.6f")
        paths.append(path)
    return paths


TIME = Path("/usr/bin/time")  # GNU time (Debian's `time`): the whole process's peak RSS


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS in MB of one whole process (NaN without GNU time)."""
    wrapped = [str(TIME), "-f", "%M", *cmd] if TIME.exists() else cmd
    start = time.perf_counter()
    done = subprocess.run(wrapped, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    lines = done.stderr.decode().strip().splitlines()
    peak = int(lines[-1]) / 1024 if TIME.exists() and lines else float("nan")
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument(
        "--repeats", type=int, default=7, help="alternating pairs; single pairs vary by ±30%% here"
    )
    args = parser.parse_args()
    qrels = REAL_QRELS if REAL_QRELS.exists() else ROOT / "data/demo/collections/robust04/qrels.txt"
    with tempfile.TemporaryDirectory() as tmp:
        runs = make_runs(qrels, Path(tmp), args.runs, args.queries, args.depth)
        size = sum(p.stat().st_size for p in runs) / 1e6
        lines = sum(p.read_bytes().count(b"\n") for p in runs)
        print(f"{len(runs)} runs, {lines:,} lines, {size:.0f} MB; qrels {qrels}")
        leakeval = [
            str(Path(sys.executable).parent / "leakeval"),
            "score",
            "--qrels",
            str(qrels),
            "--measures",
            ",".join(MEASURES),
            "--out",
            str(Path(tmp) / "out.csv"),
        ]
        leakeval += [a for p in runs for a in ("--run", str(p))]
        baseline = [sys.executable, "-c", BASELINE, str(qrels), ",".join(MEASURES)]
        baseline += [str(p) for p in runs]
        ours, theirs, our_rss, their_rss = [], [], [], []
        for _ in range(args.repeats):
            seconds, peak = timed(baseline)
            theirs.append(seconds)
            their_rss.append(peak)
            seconds, peak = timed(leakeval)
            ours.append(seconds)
            our_rss.append(peak)
        ratios = [o / t for o, t in zip(ours, theirs, strict=True)]
        print(f"plain pytrec_eval: median {statistics.median(theirs):.2f} s  {theirs}")
        print(f"leakeval score:    median {statistics.median(ours):.2f} s  {ours}")
        print(
            f"ratio leakeval / pytrec_eval: median {statistics.median(ratios):.2f} "
            f"(range {min(ratios):.2f}-{max(ratios):.2f} over {len(ratios)} pairs)"
        )
        rss, base = statistics.median(our_rss), statistics.median(their_rss)
        print(
            f"peak RSS, whole process: leakeval {rss:.0f} MB, pytrec_eval {base:.0f} MB "
            f"(ratio {rss / base:.2f})"
        )


if __name__ == "__main__":
    main()
