"""Leakage detection on Dask: 350 real topics against a synthetic log in shards, lexical.

Compares one process, a LocalCluster with 1 worker and one with 2 workers (one thread
each) on the same shards, checks that all three write the same table, and projects the time
for a billion queries.

    .venv/bin/python bench/dask_bench.py                       # 500k queries, 10 shards
    .venv/bin/python bench/dask_bench.py --queries 10000000 --shards 100

Each run writes bench/results/dask_bench-QUERIES.json.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import record  # noqa: E402
from leakage_bench import study_topics, synthetic_log  # noqa: E402

from leakeval_core.leakage.detection_options import DetectionOptions  # noqa: E402
from leakeval_core.leakage.distributed import dask_map  # noqa: E402
from leakeval_core.leakage.sharded import detect_shards, local_results  # noqa: E402

DEFAULT_QUERIES = 500_000


def write_log(folder: Path, n: int, shards: int, chunk: int) -> list[Path]:
    """The synthetic log as `shards` TSV files of n / shards queries each."""
    per_shard = -(-n // shards)
    paths, current, written = [], None, 0
    for frame in synthetic_log(n, chunk):
        for qid, text in zip(frame.qid, frame.text, strict=True):
            if written % per_shard == 0:
                if current:
                    current.close()
                paths.append(folder / f"part-{len(paths):05d}.tsv")
                current = open(paths[-1], "w", encoding="utf-8")  # noqa: SIM115
            current.write(f"{qid}\t{text}\n")
            written += 1
    current.close()
    return paths


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=DEFAULT_QUERIES)
    parser.add_argument("--shards", type=int, default=10)
    parser.add_argument("--chunk", type=int, default=20_000)
    args = parser.parse_args()
    topics, side = study_topics()
    folder = Path(tempfile.mkdtemp(prefix="leakeval-dask-bench-"))
    try:
        start = time.perf_counter()
        shards = write_log(folder, args.queries, args.shards, args.chunk)
        print(
            f"{len(topics)} topics ({len(side.table)} texts) vs {args.queries:,} queries in "
            f"{len(shards)} shards (written in {time.perf_counter() - start:.0f} s)",
            flush=True,
        )
        options = DetectionOptions(chunk_size=args.chunk)
        runs = {
            "one process": local_results,
            "LocalCluster, 1 worker": dask_map(workers=1),
            "LocalCluster, 2 workers": dask_map(workers=2),
        }
        rate, tables = {}, {}
        for name, results in runs.items():
            start = time.perf_counter()
            pairs, report = detect_shards(side, shards, options, results)
            elapsed = time.perf_counter() - start
            rate[name] = report.queries / elapsed
            tables[name] = pairs.to_csv(index=False)
            print(f"{name}: {elapsed:.1f} s, {rate[name]:,.0f} queries/s", flush=True)
        assert len(set(tables.values())) == 1, "the three runs wrote different tables"
        speedup = rate["LocalCluster, 2 workers"] / rate["LocalCluster, 1 worker"]
        print(f"identical tables: yes ({tables['one process'].count(chr(10)) - 1:,} pairs)")
        print(f"2 workers / 1 worker: {speedup:.2f}x (scaling efficiency {speedup / 2:.0%})")
        per_worker = rate["LocalCluster, 1 worker"]
        efficiency = min(speedup / 2, 1.0)  # never project a superlinear gain
        billion = {}
        for workers in (2, 16, 64, 256):
            hours = billion[workers] = 1e9 / (per_worker * workers * efficiency) / 3600
            print(f"1B queries on {workers} workers: {hours:.1f} h", flush=True)
        print(
            f"(assumes each worker is a core like these at {per_worker:,.0f} queries/s, "
            f"{efficiency:.0%} efficient as with 2 workers here, {len(side.table)} topic "
            "texts, and shards read from a shared disk at the same speed)"
        )
        record.write(
            f"dask_bench-{args.queries}",
            {
                "queries": args.queries,
                "shards": len(shards),
                "topics": len(topics),
                "queries_per_second": rate,
                "identical_tables": True,
                "speedup_2_over_1": speedup,
                "efficiency": speedup / 2,
                "billion_queries_hours": billion,
            },
            config=vars(args),
            note=""
            if args.queries == DEFAULT_QUERIES
            else f"A smaller log than the default {DEFAULT_QUERIES:,} queries, to keep the run "
            "short on a shared 2-core machine.",
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
