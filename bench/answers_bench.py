"""Answers at MS MARCO's size: how long training qrels of about 530k (query, positive) pairs
take to read, and to join to a test collection's leakage pairs (`shared_relevant`).

MS MARCO passage's qrels.train.tsv holds 532,761 pairs over 502,939 queries; the generated
file has that many lines in its TREC layout (`qid 0 docid 1`). The test side is Robust04's
real qrels from ../shared where present (the demo's otherwise), with 100 candidate training
queries per topic: a tenth of those queries have a positive the topic's qrels judge relevant.
Run by hand:

    .venv/bin/python bench/answers_bench.py [--pairs 532761] [--repeats 5]

Writes bench/results/answers_bench.json.
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
import record

from leakeval_core.io.trec import read_qrels
from leakeval_core.leakage.answers import read_training_qrels, with_answers
from leakeval_core.leakage.given import pairs_from_frame

ROOT = Path(__file__).resolve().parents[1]
REAL_QRELS = ROOT.parent / "shared" / "realdata" / "robust04" / "qrels.txt"
QUERIES = 502_939


def test_side(tmp: Path) -> tuple[str, pd.DataFrame]:
    if REAL_QRELS.exists():
        return "robust04 (../shared)", read_qrels(REAL_QRELS)
    demo = tmp / "demo"
    leakeval = str(Path(sys.executable).parent / "leakeval")
    subprocess.run([leakeval, "demo", "--out", str(demo)], check=True, capture_output=True)
    return "robust04 (the demo's)", read_qrels(demo / "collections" / "robust04" / "qrels.txt")


def generate(path: Path, size: int, qrels: pd.DataFrame, rng) -> pd.DataFrame:
    """The training qrels (written to `path`) and 100 candidate pairs per test topic."""
    queries = rng.permutation(QUERIES)[: min(size, QUERIES)]
    owners = np.r_[queries, rng.choice(queries, size - len(queries))]
    docs = np.array([f"msmarco_{i}" for i in range(size)], dtype=object)
    relevant = qrels[qrels.grade > 0]
    topics = sorted(relevant.qid.unique())
    pairs = []
    for topic in topics:
        candidates = rng.choice(queries, 100, replace=False)
        pairs.append(pd.DataFrame({"test_qid": topic, "train_qid": candidates.astype(str)}))
        answered = candidates[:10]  # their first positive becomes one of the topic's documents
        where = np.flatnonzero(np.isin(queries, answered))  # each query's first line
        docs[where] = rng.choice(relevant.docid[relevant.qid == topic].to_numpy(), len(where))
    lines = pd.DataFrame({"q": owners, "it": 0, "d": docs, "g": 1})
    lines.to_csv(path, sep=" ", header=False, index=False)
    frame = pd.concat(pairs, ignore_index=True)
    return frame.assign(collection="robust04", similarity=rng.random(len(frame)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=532_761)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        name, qrels = test_side(tmp)
        path = tmp / "qrels.train.tsv"
        candidates = generate(path, args.pairs, qrels, rng)
        pairs = pairs_from_frame(candidates, "candidates")
        reading, joining, totals = [], [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            answers = read_training_qrels(path)
            read = time.perf_counter()
            out = with_answers(pairs, {"robust04": qrels}, answers, 1)
            done = time.perf_counter()
            reading.append(read - start)
            joining.append(done - read)
            totals.append(done - start)
        shared = int((out.table.shared_relevant > 0).sum())
        leaks = out.leaks(0.0).leak.value_counts().to_dict()
    print(f"read {args.pairs:,} training pairs: median {statistics.median(reading):.2f} s")
    print(f"join {len(candidates):,} candidate pairs: median {statistics.median(joining):.2f} s")
    print(f"{shared:,} pairs share a relevant document; {out.answers}")
    record.write(
        "answers_bench",
        {
            "training_pairs": args.pairs,
            "training_positives": len(answers.positives),
            "candidate_pairs": len(candidates),
            "test_collection": name,
            "read_seconds": statistics.median(reading),
            "join_seconds": statistics.median(joining),
            "total_seconds": statistics.median(totals),
            "each_total": totals,
            "pairs_sharing": shared,
            "topics_by_leak": leaks,
            "corpus_line": out.answers,
        },
        {"pairs": args.pairs, "repeats": args.repeats},
    )


if __name__ == "__main__":
    main()
