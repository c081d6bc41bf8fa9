"""Leakage detection at log scale: 350 topics (title + description) vs a synthetic log.

The log is made of words drawn from the real MS MARCO query sample (lengths and vocabulary
like a real log), streamed in chunks, so the 10M run never holds the log in memory.

    .venv/bin/python bench/leakage_bench.py --queries 367000 --methods lexical,hybrid-mpnet
    .venv/bin/python bench/leakage_bench.py --queries 10000000
    .venv/bin/python bench/leakage_bench.py --encoder-batches

Each method is timed in the same run and writes bench/results/leakage_bench-METHOD-QUERIES.json:
its queries per second, its time against lexical's in that run, and where the time went
(comparing the log with the topics, then scoring the candidates, of which embedding the
texts). `--save-pairs DIR` keeps each method's pairs and time; `--against DIR` compares with
pairs kept so by another version of leakeval (run with `PYTHONPATH=` its checkout, whose
code this file then imports): how many times faster, and how many of its near-duplicate pairs
at the method's threshold and of its leaked topics are found again. `--encoder-batches`
times each encoder on real queries and topic descriptions at several batch sizes
(bench/results/leakage_bench-batches.json), which `semantic.BATCH_SIZES` follows.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: `--against` runs measure another checkout
REAL = ROOT.parent / "shared" / "realdata"

from leakeval_core.io import query_files  # noqa: E402
from leakeval_core.leakage import semantic  # noqa: E402
from leakeval_core.leakage.detect import TopicTexts, detect, topic_texts  # noqa: E402
from leakeval_core.leakage.detection_options import DetectionOptions, threshold_for  # noqa: E402


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


class Embedding:
    """Counts the texts the encoders embed and the time they take (the bench wraps
    `semantic.embed`'s one call to the model, whichever version of leakeval it measures)."""

    def __init__(self) -> None:
        self.texts, self.seconds = 0, 0.0
        encode = semantic._encode

        def counted(texts, *rest):
            start = time.perf_counter()
            try:
                return encode(texts, *rest)
            finally:
                self.texts += len(texts)
                self.seconds += time.perf_counter() - start

        semantic._encode = counted


def detect_once(method: str, queries: int, chunk: int, side: TopicTexts) -> dict:
    """One detection over the synthetic log: its pairs and where its time went."""
    embedding = Embedding()
    start = time.perf_counter()
    compared = [start]

    def progress(done: int, total: int, what: str) -> None:
        if "scoring the candidates" in what:
            compared[0] = time.perf_counter()

    pairs = detect(
        side,
        synthetic_log(queries, chunk),
        DetectionOptions(chunk_size=chunk, method=method),
        progress,
        queries,
    )
    seconds = time.perf_counter() - start
    searched = (compared[0] if method != "lexical" else time.perf_counter()) - start
    return {
        "pairs": pairs,
        "seconds": seconds,
        "search_seconds": searched,
        "scoring_seconds": seconds - searched,
        "texts_embedded": embedding.texts,
        "embedding_seconds": embedding.seconds,
    }


def compare(pairs: pd.DataFrame, method: str, reference: Path) -> dict:
    """How many of the reference's near-duplicate pairs (at the method's threshold now) and
    leaked topics these pairs find again."""
    before = pd.read_parquet(reference)
    threshold = threshold_for(method)
    keys = ["collection", "test_qid", "train_qid"]
    old = before[before.similarity >= threshold][keys].drop_duplicates()
    new = pairs[pairs.similarity >= threshold][keys].drop_duplicates()
    found = len(old.merge(new, on=keys))
    old_topics = set(map(tuple, old[keys[:2]].to_numpy()))
    new_topics = set(map(tuple, new[keys[:2]].to_numpy()))
    return {
        "reference_pairs_at_threshold": len(old),
        "reference_pairs_found": found,
        "reference_pairs_found_share": found / len(old) if len(old) else 1.0,
        "reference_leaked_topics": len(old_topics),
        "same_leaked_topics": old_topics == new_topics,
    }


def encoder_batches(sizes: tuple[int, ...]) -> list[dict]:
    """Texts per second of each encoder on 600 real queries and 200 real descriptions, at
    each batch size."""
    from leakeval_core.leakage.detection_options import encoder_installed
    from leakeval_core.leakage.devices import resolve_device

    queries = query_files.read_queries(REAL / "msmarco" / "doctrain-queries.sample.csv")
    texts = {"queries": queries.text.tolist()[:600]}
    texts["descriptions"] = study_topics()[0].description.tolist()[:200]
    device = resolve_device("auto")
    rows = []
    for encoder in semantic.ENCODERS:
        if not encoder_installed(encoder):
            continue
        model = semantic._model(encoder, device)
        model.encode(texts["queries"][:64])  # loaded and warm
        for size in sizes:
            row = {"encoder": encoder, "device": device, "batch_size": size}
            for kind, batch in texts.items():
                start = time.perf_counter()
                model.encode(batch, batch_size=size, normalize_embeddings=True)
                row[f"{kind}_per_second"] = len(batch) / (time.perf_counter() - start)
            rows.append(row)
            print(row, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=367_000)
    parser.add_argument("--chunk", type=int, default=20_000)
    parser.add_argument("--methods", default="lexical", help="comma-separated, timed in turn")
    parser.add_argument("--save-pairs", help="keep each method's pairs and time in this folder")
    parser.add_argument("--against", help="a folder --save-pairs wrote, from another version")
    parser.add_argument("--encoder-batches", action="store_true")
    args = parser.parse_args()
    if args.encoder_batches:
        record.write("leakage_bench-batches", encoder_batches((16, 32, 64, 256)), vars(args))
        return
    topics, side = study_topics()
    methods = args.methods.split(",")
    print(f"{topics.shape[0]} topics, {len(side.table)} topic texts vs {args.queries:,} queries")
    measured = {}
    for method in methods:
        run = measured[method] = detect_once(method, args.queries, args.chunk, side)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{method}: {len(run['pairs']):,} pairs in {run['seconds']:.1f} s "
            f"({args.queries / run['seconds']:,.0f} queries/s; comparing "
            f"{run['search_seconds']:.1f} s, scoring {run['scoring_seconds']:.1f} s of which "
            f"{run['texts_embedded']:,} texts embedded in {run['embedding_seconds']:.1f} s); "
            f"peak RSS {peak:,.0f} MB",
            flush=True,
        )
    lexical = measured.get("lexical")
    for method, run in measured.items():
        name = f"{method}-{args.queries}"
        results = {
            "method": method,
            "queries": args.queries,
            "topics": int(topics.shape[0]),
            "topic_texts": len(side.table),
            "pairs": len(run["pairs"]),
            "seconds": run["seconds"],
            "queries_per_second": args.queries / run["seconds"],
            "search_seconds": run["search_seconds"],
            "scoring_seconds": run["scoring_seconds"],
            "texts_embedded": run["texts_embedded"],
            "embedding_seconds": run["embedding_seconds"],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
        if lexical is not None and method != "lexical":
            results["times_lexical_in_this_run"] = run["seconds"] / lexical["seconds"]
        if args.save_pairs:
            folder = Path(args.save_pairs)
            folder.mkdir(parents=True, exist_ok=True)
            run["pairs"].to_parquet(folder / f"{name}.parquet", index=False)
            (folder / f"{name}.json").write_text(
                json.dumps({"seconds": run["seconds"], "commit": _commit()})
            )
        if args.against and (Path(args.against) / f"{name}.parquet").exists():
            before = json.loads((Path(args.against) / f"{name}.json").read_text())
            results |= compare(run["pairs"], method, Path(args.against) / f"{name}.parquet")
            results |= {
                "reference_commit": before["commit"],
                "reference_seconds": before["seconds"],
                "times_faster_than_reference": before["seconds"] / run["seconds"],
            }
            print(f"{method} against {before['commit']}: {json.dumps(results)}")
        if not args.save_pairs or args.against:
            record.write(f"leakage_bench-{name}", results, config=vars(args))


def _commit() -> str:
    """The commit of the leakeval this run imported (a checkout's, by PYTHONPATH)."""
    folder = Path(sys.modules["leakeval_core"].__file__).parents[1]
    done = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    main()
