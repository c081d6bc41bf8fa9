"""Scoring throughput and peak memory: `leakeval score` vs plain pytrec_eval, ranx and
ir_measures, as whole processes.

100 runs x 250 queries x 100 documents (~2.5M lines) against the real Robust04 qrels when
../shared/realdata is present (else the demo's). `leakeval score` runs twice a repeat: with
an empty cache, as a first command against these qrels, and with the qrels an untimed first
command prepared kept. The commands run alternately, several times; the median time and
peak RSS of each, and their ratios to pytrec_eval's, are printed as the README's performance
table. ranx and ir_measures are not project dependencies: they run under `--peer-python`
(an interpreter where they are installed, e.g. a throwaway venv with
`pip install ranx ir-measures`) and are left out where they do not import. Run by hand:

    .venv/bin/python bench/score_bench.py [--runs 100] [--repeats 7] [--peer-python PY]

Writes bench/results/score_bench.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import record

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


# The same five measures in each tool's names; every tool reads the files itself.
RANX = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
for path in sys.argv[2:]:
    evaluate(qrels, Run.from_file(path, kind="trec"),
             ["ndcg@10", "precision@1", "recall@100", "mrr", "map"])
"""

IR_MEASURES = """
import sys
import ir_measures
from ir_measures import AP, P, R, RR, nDCG
measures = [nDCG @ 10, P @ 1, R @ 100, RR, AP]
evaluator = ir_measures.evaluator(measures, ir_measures.read_trec_qrels(sys.argv[1]))
for path in sys.argv[2:]:
    evaluator.calc_aggregate(ir_measures.read_trec_run(path))
"""


def imports(python: str, module: str) -> bool:
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def version(python: str, module: str) -> str:
    """The installed version of `module`'s distribution under `python`."""
    dist = {"pytrec_eval": "pytrec-eval-terrier", "ir_measures": "ir-measures"}.get(module, module)
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    done = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return done.stdout.strip()


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


FIRST = "leakeval score, qrels read"
KEPT = "leakeval score, qrels kept"
"""`leakeval score` with an empty cache each time (what a first command against these qrels
costs), and with the qrels an untimed first command prepared kept in its cache
(`qrels_cache`)."""

TIME = Path("/usr/bin/time")  # GNU time (Debian's `time`): the whole process's peak RSS


def timed(cmd: list[str], cache: str | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS in MB of one whole process (NaN without GNU time), with
    `cache` as its LEAKEVAL_CACHE where given."""
    wrapped = [str(TIME), "-f", "%M", *cmd] if TIME.exists() else cmd
    env = os.environ | ({"LEAKEVAL_CACHE": cache} if cache else {})
    start = time.perf_counter()
    done = subprocess.run(
        wrapped, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
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
    parser.add_argument(
        "--peer-python", default=sys.executable, help="interpreter with ranx and ir_measures"
    )
    args = parser.parse_args()
    qrels = REAL_QRELS if REAL_QRELS.exists() else ROOT / "data/demo/collections/robust04/qrels.txt"
    with tempfile.TemporaryDirectory() as tmp:
        runs = make_runs(qrels, Path(tmp), args.runs, args.queries, args.depth)
        size = sum(p.stat().st_size for p in runs) / 1e6
        lines = sum(p.read_bytes().count(b"\n") for p in runs)
        print(f"{len(runs)} runs, {lines:,} lines, {size:.0f} MB; qrels {qrels}")
        files = [str(p) for p in runs]
        leakeval = [str(Path(sys.executable).parent / "leakeval"), "score", "--qrels", str(qrels)]
        leakeval += ["--measures", ",".join(MEASURES), "--out", str(Path(tmp) / "out.csv")]
        leakeval += [a for p in files for a in ("--run", p)]
        versions = {"pytrec_eval": version(sys.executable, "pytrec_eval")}
        tools = {
            "pytrec_eval": [sys.executable, "-c", BASELINE, str(qrels), ",".join(MEASURES), *files],
            FIRST: leakeval,
            KEPT: leakeval,
        }
        kept = tempfile.mkdtemp(dir=tmp)
        timed(leakeval, kept)  # keeps the prepared qrels for every repeat of KEPT
        for name, module, script in (
            ("ranx", "ranx", RANX),
            ("ir_measures", "ir_measures", IR_MEASURES),
        ):
            if imports(args.peer_python, module):
                tools[name] = [args.peer_python, "-c", script, str(qrels), *files]
                versions[name] = version(args.peer_python, module)
            else:
                print(f"{name}: not importable by {args.peer_python}, left out")
        seconds: dict[str, list[float]] = {name: [] for name in tools}
        peaks: dict[str, list[float]] = {name: [] for name in tools}
        for _ in range(args.repeats):
            for name, cmd in tools.items():
                cache = {FIRST: tempfile.mkdtemp(dir=tmp), KEPT: kept}.get(name)
                elapsed, peak = timed(cmd, cache)
                seconds[name].append(elapsed)
                peaks[name].append(peak)
        base = seconds["pytrec_eval"]
        ratios = {
            name: [o / t for o, t in zip(seconds[name], base, strict=True)]
            for name in (FIRST, KEPT)
        }
        for name, each in ratios.items():
            print(
                f"{name} / pytrec_eval: median {statistics.median(each):.2f} "
                f"(range {min(each):.2f}-{max(each):.2f} over {len(each)} alternating pairs)"
            )
        base_time, base_rss = statistics.median(base), statistics.median(peaks["pytrec_eval"])
        rows = []
        print("\n| tool | time (median) | × pytrec_eval | peak RSS | × pytrec_eval |")
        print("|---|---|---|---|---|")
        for name in tools:
            t, m = statistics.median(seconds[name]), statistics.median(peaks[name])
            print(f"| {name} | {t:.2f} s | {t / base_time:.2f} | {m:.0f} MB | {m / base_rss:.2f} |")
            rows.append(
                {
                    "tool": name,
                    "version": versions.get(name, ""),
                    "seconds": t,
                    "time_ratio": t / base_time,
                    "peak_mb": m,
                    "memory_ratio": m / base_rss,
                    "each_seconds": seconds[name],
                }
            )
        record.write(
            "score_bench",
            {
                "tools": rows,
                "leakeval_ratios": {
                    name: {"median": statistics.median(each), "range": [min(each), max(each)]}
                    for name, each in ratios.items()
                },
            },
            config=vars(args)
            | {"qrels": str(qrels), "lines": lines, "megabytes": size, "measures": MEASURES},
            note="" if len(tools) == 4 else "ranx or ir_measures not importable: left out",
        )


if __name__ == "__main__":
    main()
