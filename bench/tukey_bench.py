"""The leaderboard's randomised Tukey HSD test: its family-wise error when no system differs,
its power when one does, and its speed.

    .venv/bin/python bench/tukey_bench.py [--realdata ../shared/realdata] [--replicates 400]
        [--unequal-replicates 2000]
    .venv/bin/python bench/tukey_bench.py --replicates 20 --power-replicates 10 \
        --unequal-replicates 40 --out /tmp/tukey_bench.json  # smoke: a scratch file

Writes bench/results/tukey_bench.json and a readable copy, tukey_bench.md. The per-topic
scores are real: nDCG@10 of BM25 and BM25+RM3 on Robust04 (249 judged topics, BM25 from
its five fold runs) and of BM25, BM25+RM3 (title) and BM25+RM3 (description) on TREC 2018
Common Core (50 topics), scored by leakeval from ../shared/realdata.

- Family-wise error, exchangeable null: on each replicate, k systems whose score on every
  topic is one of the real systems' scores on that topic, drawn at random per system and
  topic; so the systems are exchangeable on every topic (no system differs) while each
  topic keeps its real difficulty and its real spread between systems. With k = 2 on
  Robust04 this is the real BM25 / RM3 pair shuffled within each topic. Measured: the share
  of replicates in which any pair is called different at α = 0.05, with its exact (Clopper–
  Pearson) 95% Monte Carlo interval. This null is exactly what the permutations assume, so
  it checks the implementation: the error cannot exceed α here but by Monte Carlo error.
- Family-wise error, unequal null: systems with one mean but their own spreads and
  correlations, as real systems have: each real system shifted on every topic by one
  constant to BM25's mean (BM25+RM3 on Robust04 minus its mean gain over BM25), and where
  more systems are asked than there are real ones, per-topic mixtures of neighbouring real
  systems (less spread than either, correlated with both). Each replicate draws the
  collection's number of topics with replacement from its topics, so the systems' means
  over the population of topics are equal (no system differs) while the permutations'
  assumption, that a topic's scores are exchangeable across systems, does not hold. The
  same share, with its interval, from 2,000 replicates by default: the test can fail here.
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


def unequal_systems(pool: np.ndarray, systems: int) -> np.ndarray:
    """`systems` systems (topics × systems) with one mean and unequal spreads and
    correlations: every real system shifted on each topic by one constant to the first's
    (BM25's) mean; with more systems than real ones, per-topic mixtures of neighbouring real
    systems, evenly spaced along them (the real ones at the ends)."""
    centred = pool - pool.mean(axis=0) + pool[:, 0].mean()
    real = centred.shape[1]
    places = np.linspace(0, real - 1, systems)
    low = np.floor(places).astype(int).clip(max=real - 2)
    weight = places - low
    return centred[:, low] * (1 - weight) + centred[:, low + 1] * weight


def _any_pair_different(values: np.ndarray, resamples: int, seed: int) -> bool:
    p = tukey_hsd(values, resamples, seed=seed)
    return bool((p[np.triu_indices(values.shape[1], 1)] <= ALPHA).any())


def _error_row(name: str, topics: int, systems: int, hits: int, replicates: int) -> dict:
    """The family-wise error of `hits` in `replicates`, with its exact 95% Monte Carlo
    interval (Clopper–Pearson) and whether α is within it or above it."""
    from scipy.stats import binomtest

    interval = binomtest(hits, replicates).proportion_ci(0.95, method="exact")
    return {
        "collection": name,
        "topics": topics,
        "systems": systems,
        "replicates": replicates,
        "family_wise_error": hits / replicates,
        "mc_low": float(interval.low),
        "mc_high": float(interval.high),
        "mc_se": float(np.sqrt(ALPHA * (1 - ALPHA) / replicates)),
        "at_most_alpha": bool(interval.low <= ALPHA),
    }


def family_wise_error(scores: dict, replicates: int, resamples: int) -> list[dict]:
    """The exchangeable null (`null_systems`): the permutations' own assumption."""
    rows = []
    for name, pool in scores.items():
        for systems in SYSTEMS:
            rng = np.random.default_rng((45, systems))
            hits = sum(
                _any_pair_different(null_systems(rng, pool, systems), resamples, r)
                for r in range(replicates)
            )
            rows.append(_error_row(name, len(pool), systems, hits, replicates))
            print(rows[-1], flush=True)
    return rows


def family_wise_error_unequal(scores: dict, replicates: int, resamples: int) -> list[dict]:
    """The unequal null (`unequal_systems`), topics drawn with replacement per replicate."""
    rows = []
    for name, pool in scores.items():
        for systems in SYSTEMS:
            values = unequal_systems(pool, systems)
            topics = len(values)
            rng = np.random.default_rng((47, systems))
            hits = sum(
                _any_pair_different(values[rng.integers(0, topics, topics)], resamples, r)
                for r in range(replicates)
            )
            rows.append(_error_row(name, topics, systems, hits, replicates))
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
    parser.add_argument("--unequal-replicates", type=int, default=2_000)
    parser.add_argument(
        "--out", type=Path, help="write the JSON here, not bench/results (a smoke run)"
    )
    args = parser.parse_args()
    scores = real_scores(args.realdata)
    results = {
        "alpha": ALPHA,
        "family_wise_error": family_wise_error(scores, args.replicates, args.resamples),
        "family_wise_error_unequal": family_wise_error_unequal(
            scores, args.unequal_replicates, args.resamples
        ),
        "power": power(scores, args.power_replicates, args.resamples),
        "seconds": speed(),
    }
    config = vars(args) | {"realdata": str(args.realdata), "out": str(args.out)}
    record.write("tukey_bench", results, config=config, path=args.out)
    if args.out is None:
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
            "Exchangeable systems (the permutations' own assumption), with the exact 95% "
            "Monte Carlo interval:",
            "",
            to_markdown(pd.DataFrame(results["family_wise_error"]).round(4)),
            "",
            "Equal means, unequal spreads and correlations (real systems shifted to BM25's "
            "mean, topics drawn with replacement): at_most_alpha says whether α is within "
            "or above the interval.",
            "",
            to_markdown(pd.DataFrame(results["family_wise_error_unequal"]).round(4)),
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
