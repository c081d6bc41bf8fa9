"""The leaderboard's randomised Tukey HSD test: its family-wise error when no system differs,
its power when one does, and its speed.

    .venv/bin/python bench/tukey_bench.py [--realdata ../shared/realdata] [--replicates 400]

Writes bench/results/tukey_bench.json and a readable copy, tukey_bench.md. The per-topic
scores are real: nDCG@10 of BM25 and BM25+RM3 on Robust04 (249 judged topics, BM25 from
its five fold runs) and of BM25, BM25+RM3 (title) and BM25+RM3 (description) on TREC 2018
Common Core (50 topics), scored by leakeval from ../shared/realdata.

- Family-wise error: on each replicate, k systems whose score on every topic is one of the
  real systems' scores on that topic, drawn at random per system and topic; so the systems
  are exchangeable on every topic (no system differs) while each topic keeps its real
  difficulty and its real spread between systems. With k = 2 on Robust04 this is the real
  BM25 / RM3 pair shuffled within each topic. Measured: the share of replicates in which
  any pair is called different at α = 0.05 (wanted ≤ α, within Monte Carlo error).
- Power: the same null systems, with δ added to one system's scores on every topic; the
  share of replicates in which that system is called better than every other (and in
  which at least one of its pairs is), at each δ.
- Speed: 10,000 permutations of 250 topics × 10 systems, the default run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import real_scores as real
import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leakeval_core.analysis.procedures import MANY_SYSTEMS  # noqa: E402
from leakeval_core.analysis.tukey import tukey_hsd  # noqa: E402

ALPHA = 0.05
SYSTEMS = (2, 5, 10)
DELTAS = (0.02, 0.05, 0.1)


def real_scores(realdata: Path) -> dict[str, np.ndarray]:
    """Per collection, the real systems' nDCG@10 per topic (topics × systems)."""
    return {
        "robust04": real.robust04(realdata)[["bm25", "rm3"]].to_numpy(),
        "core18": real.core18(realdata)[["bm25", "rm3-desc", "rm3-title"]].to_numpy(),
    }


def null_systems(rng: np.random.Generator, pool: np.ndarray, systems: int) -> np.ndarray:
    """`systems` exchangeable systems: each one's score on each topic is one of the real
    systems' scores on it, drawn at random. Two systems from a pool of two: the real pair,
    shuffled within each topic."""
    topics, real = pool.shape
    if systems == real:
        return rng.permuted(pool, axis=1)
    return pool[np.arange(topics)[:, None], rng.integers(0, real, (topics, systems))]


def family_wise_error(scores: dict, replicates: int, resamples: int) -> list[dict]:
    rows = []
    for name, pool in scores.items():
        for systems in SYSTEMS:
            rng = np.random.default_rng((45, systems))
            hits = 0
            for r in range(replicates):
                p = tukey_hsd(null_systems(rng, pool, systems), resamples, seed=r)
                hits += bool((p[np.triu_indices(systems, 1)] <= ALPHA).any())
            rows.append(
                {
                    "collection": name,
                    "topics": len(pool),
                    "systems": systems,
                    "replicates": replicates,
                    "family_wise_error": hits / replicates,
                    "mc_se": float(np.sqrt(ALPHA * (1 - ALPHA) / replicates)),
                }
            )
            print(rows[-1], flush=True)
    return rows


def power(scores: dict, replicates: int, resamples: int, systems: int = 5) -> list[dict]:
    rows = []
    for name, pool in scores.items():
        for delta in DELTAS:
            rng = np.random.default_rng((46, round(delta * 1000)))
            every = some = 0
            for r in range(replicates):
                values = null_systems(rng, pool, systems)
                values[:, 0] += delta
                p = tukey_hsd(values, resamples, seed=r)
                means = values.mean(axis=0)
                ahead = (p[0, 1:] <= ALPHA) & (means[0] > means[1:])
                every += bool(ahead.all())
                some += bool(ahead.any())
            rows.append(
                {
                    "collection": name,
                    "topics": len(pool),
                    "systems": systems,
                    "delta": delta,
                    "replicates": replicates,
                    "better_than_every_other": every / replicates,
                    "better_than_one_or_more": some / replicates,
                }
            )
            print(rows[-1], flush=True)
    return rows


def speed() -> dict:
    values = np.random.default_rng(0).random((250, 10))
    start = time.perf_counter()
    tukey_hsd(values, MANY_SYSTEMS.resamples, seed=0)
    return {"250 topics × 10 systems, 10,000 permutations": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--power-replicates", type=int, default=200)
    args = parser.parse_args()
    scores = real_scores(args.realdata)
    results = {
        "alpha": ALPHA,
        "family_wise_error": family_wise_error(scores, args.replicates, args.resamples),
        "power": power(scores, args.power_replicates, args.resamples),
        "seconds": speed(),
    }
    record.write("tukey_bench", results, config=vars(args) | {"realdata": str(args.realdata)})
    (record.RESULTS / "tukey_bench.md").write_text(markdown(results))
    print(markdown(results))


def markdown(results: dict) -> str:
    import pandas as pd

    from leakeval_core.present.tables import to_markdown

    return "\n".join(
        [
            "# Leaderboards: the randomised Tukey HSD test on real per-topic scores",
            "",
            "## Family-wise error when no system differs (wanted ≤ α = 0.05)",
            "",
            to_markdown(pd.DataFrame(results["family_wise_error"]).round(4)),
            "",
            "## Power: one system δ better than four others",
            "",
            to_markdown(pd.DataFrame(results["power"]).round(4)),
            "",
            "## Seconds",
            "",
            to_markdown(pd.Series(results["seconds"]).round(3).rename("s").reset_index()),
            "",
        ]
    )


if __name__ == "__main__":
    main()
