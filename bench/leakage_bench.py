"""Leakage detection at log scale: 350 topics (title + description) vs a synthetic log.

The log is made of words drawn from the real MS MARCO query sample (lengths and vocabulary
like a real log), streamed in chunks, so the 10M run never holds the log in memory.

    .venv/bin/python bench/leakage_bench.py --queries 367000
    .venv/bin/python bench/leakage_bench.py --queries 10000000
    .venv/bin/python bench/leakage_bench.py --method hybrid   # candidates pruned lexically

Each run writes bench/results/leakage_bench-METHOD-QUERIES.json.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
REAL = ROOT.parent / "shared" / "realdata"

from leakeval_core.io import query_files  # noqa: E402
from leakeval_core.leakage.detect import TopicTexts, detect, topic_texts  # noqa: E402
from leakeval_core.leakage.detection_options import DetectionOptions  # noqa: E402


def synthetic_log(n: int, chunk: int, seed: int = 0):
    sample = query_files.read_queries(REAL / "msmarco" / "doctrain-queries.sample.csv")
    words = np.array(" ".join(sample.text).split())
    lengths = sample.text.str.split().str.len().to_numpy()
    rng = np.random.default_rng(seed)
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        lens = rng.choice(lengths, size)
        flat = rng.choice(words, lens.sum())
        texts = [" ".join(part) for part in np.split(flat, np.cumsum(lens)[:-1])]
        yield pd.DataFrame({"qid": np.arange(start, start + size).astype(str), "text": texts})


def study_topics() -> tuple[pd.DataFrame, TopicTexts]:
    """The study's 350 real topics (Robust04, Core17, Core18) and their title and
    description texts, the test side of every detection bench."""
    topics = pd.concat(
        [
            query_files.read_topics(REAL / c / "topics.txt").assign(collection=c)
            for c in ("robust04", "core17", "core18")
        ],
        ignore_index=True,
    )
    side = TopicTexts.concat(
        [topic_texts(g, collection=c) for c, g in topics.groupby("collection")]
    )
    return topics, side


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=367_000)
    parser.add_argument("--chunk", type=int, default=20_000)
    parser.add_argument("--method", default="lexical", help="lexical, semantic or hybrid")
    args = parser.parse_args()
    topics, side = study_topics()
    print(f"{topics.shape[0]} topics, {len(side.table)} topic texts vs {args.queries:,} queries")
    start = time.perf_counter()
    last = [start]

    def progress(done: int, total: int, what: str) -> None:
        if time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            print(f"  {done:,} compared, {time.perf_counter() - start:.0f} s", flush=True)

    pairs = detect(
        side,
        synthetic_log(args.queries, args.chunk),
        DetectionOptions(chunk_size=args.chunk, method=args.method),
        progress,
        args.queries,
    )
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{args.method}: {len(pairs):,} pairs in {elapsed:.1f} s "
        f"({args.queries / elapsed:,.0f} queries/s); peak RSS {peak:,.0f} MB"
    )
    record.write(
        f"leakage_bench-{args.method}-{args.queries}",
        {
            "method": args.method,
            "queries": args.queries,
            "topics": int(topics.shape[0]),
            "topic_texts": len(side.table),
            "pairs": len(pairs),
            "seconds": elapsed,
            "queries_per_second": args.queries / elapsed,
            "peak_rss_mb": peak,
        },
        config=vars(args),
    )


if __name__ == "__main__":
    main()
