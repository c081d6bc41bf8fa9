"""The leaked-minus-other test's calibration on real per-topic gains, and its verdicts.

    .venv/bin/python bench/audit_bench.py [--realdata ../shared/realdata] [--replicates 2000]

Writes bench/results/audit_bench.json (the docs' performance page renders it) and a
readable copy, audit_bench.md. The gains are real: nDCG@10 of BM25+RM3 over
BM25 per topic on Robust04 (250 topics, BM25 from its five fold runs) and on TREC 2018 Common
Core (title and description queries, 50 topics each), scored by leakeval from
../shared/realdata. On each, k topics are flagged at random as leaked (so nothing is
planted, δ = 0) and the test is run; a second null spreads the flagged topics' gains twice
as wide about the mean (leaked topics that vary more, with the same mean). Measured:

- size: the share of replicates with p < 0.05, for Welch's t-test and for the permutation
  test, at each k. `MIN_TOPICS` is the smallest k from which Welch's size stays within
  Bradley's liberal bound, 1.5 × 0.05, on every real gain and both nulls (real gains are
  skewed, and a two-sample t-test converges slowly on them: within two Monte Carlo errors
  of 0.05 takes k = 25 on Robust04, which would leave most 50-topic collections untestable);
- verdicts: `leaked_vs_other` on each replicate, with δ = 0 (the share answered `no
  evidence` or `cannot tell`, wanted ≥ 95%) and with δ = the mde the function reports on
  that replicate's unshifted data planted on the flagged topics (the share answered
  `inflated`, wanted ≥ 80%); on planted data (200 topics, gains drawn anew per replicate
  with normal noise, sd 0.15, as the unit tests plant them) and on the real gains;
- speed: one test of each kind, and the audit of the demo (45 pairs of twins).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import real_scores
import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leakeval_core.analysis.split import (  # noqa: E402
    MIN_TOPICS,
    ShiftTest,
    Split,
    WelchTest,
    leaked_vs_other,
    minimum_detectable,
)
from leakeval_core.analysis.statistics_options import Statistics  # noqa: E402

KS = (2, 3, 4, 5, 6, 8, 10, 15, 25)
ALPHA = 0.05
TOLERANCE = 1.5
"""The most a test's true size may exceed its nominal level, as a ratio: Bradley's (1978)
liberal criterion of robustness, a size within [0.5 α, 1.5 α]."""


def real_gains(realdata: Path) -> dict[str, np.ndarray]:
    """Per-topic nDCG@10 gains of BM25+RM3 over BM25, scored by leakeval."""
    robust, core = real_scores.robust04(realdata), real_scores.core18(realdata)
    return {
        "robust04 rm3-bm25": (robust.rm3 - robust.bm25).to_numpy(),
        "core18 rm3-title-bm25": (core["rm3-title"] - core.bm25).to_numpy(),
        "core18 rm3-desc-bm25": (core["rm3-desc"] - core.bm25).to_numpy(),
    }


def flagged(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    flags = np.zeros(n, bool)
    flags[rng.choice(n, k, replace=False)] = True
    return flags


def spread(gain: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """The flagged topics' gains twice as far from the overall mean: same mean, more spread."""
    out = gain.copy()
    out[flags] = gain.mean() + 2 * (gain[flags] - gain.mean())
    return out


def sizes(gains: dict, replicates: int, permutations: int) -> list[dict]:
    rows = []
    for name, gain in gains.items():
        for null in ("random flags", "wider leaked spread"):
            for k in KS:
                if k > len(gain) // 2:
                    continue
                rng = np.random.default_rng(k)
                welch = perm = 0
                for r in range(replicates):
                    flags = flagged(rng, len(gain), k)
                    values = spread(gain, flags) if null != "random flags" else gain
                    welch += WelchTest(values[flags], values[~flags]).p() < ALPHA
                    if r < permutations:
                        perm += ShiftTest(values, flags, None, 2_000, r).p() < ALPHA
                for test, hits, reps in (
                    ("welch", welch, replicates),
                    ("permutation", perm, min(permutations, replicates)),
                ):
                    rows.append(
                        {
                            "gains": name,
                            "null": null,
                            "k": k,
                            "test": test,
                            "size": hits / reps,
                            "mc_se": float(np.sqrt(ALPHA * (1 - ALPHA) / reps)),
                        }
                    )
                print(rows[-2:], flush=True)
    return rows


def smallest_calibrated(rows: list[dict]) -> int:
    """The smallest k from which Welch's size stays within TOLERANCE · α."""
    bad = [r["k"] for r in rows if r["test"] == "welch" and r["size"] > TOLERANCE * ALPHA]
    return min(k for k in KS if all(b < k for b in bad))


def planted(rng: np.random.Generator) -> np.ndarray:
    """200 topics' gains drawn anew: a uniform gain of 0.05 plus normal noise (sd 0.15)."""
    return rng.normal(0.05, 0.15, 200)


def verdicts(gains: dict, replicates: int, planted_replicates: int, test: str) -> list[dict]:
    statistics = Statistics(test=test)
    rows = []
    for name, fixed in {"planted (normal noise)": None, **gains}.items():
        runs = planted_replicates if fixed is None else replicates
        for k in (MIN_TOPICS, 10, 25, 100):
            n = 200 if fixed is None else len(fixed)
            if k > n // 2:
                continue
            rng = np.random.default_rng(1_000 + k)
            null_ok = found = 0
            for _ in range(runs):
                gain = planted(rng) if fixed is None else fixed
                flags = flagged(rng, n, k)
                null = leaked_vs_other([{}], [Split(gain, flags)], statistics, ())
                null_ok += null.verdict.iloc[0] in ("no evidence", "cannot tell")
                shift = minimum_detectable(gain[flags], gain[~flags], ALPHA)
                shifted = leaked_vs_other(
                    [{}], [Split(gain + shift * flags, flags)], statistics, ()
                )
                found += shifted.verdict.iloc[0] == "inflated"
            rows.append(
                {
                    "gains": name,
                    "test": test,
                    "replicates": runs,
                    "k": k,
                    "no evidence or cannot tell at δ = 0": null_ok / runs,
                    "inflated at δ = mde": found / runs,
                }
            )
            print(rows[-1], flush=True)
    return rows


def speed(gains: dict) -> dict:
    gain = gains["robust04 rm3-bm25"]
    flags = flagged(np.random.default_rng(0), len(gain), 125)
    out = {}
    for name, make in (
        ("welch", lambda: WelchTest(gain[flags], gain[~flags]).p()),
        ("permutation (10,000)", lambda: ShiftTest(gain, flags, None, 10_000, 0).p()),
    ):
        start = time.perf_counter()
        for _ in range(20):
            make()
        out[name] = (time.perf_counter() - start) / 20
    from leakeval_core import api
    from leakeval_core.demo.generator import generate_demo

    demo = ROOT / "data" / "demo"
    if not (demo / "experiment.toml").exists():
        generate_demo(demo)
    for test in ("ttest", "randomization"):
        study = api.Study.open(demo)
        study.scores(api.View().conventions)
        study.leakage()
        start = time.perf_counter()
        api.audit(study, statistics=Statistics(test=test))
        out[f"demo audit, 45 pairs ({test})"] = time.perf_counter() - start
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--permutations", type=int, default=400)
    parser.add_argument("--verdict-replicates", type=int, default=400)
    parser.add_argument("--planted-replicates", type=int, default=2000)
    args = parser.parse_args()
    gains = real_gains(args.realdata)
    size_rows = sizes(gains, args.replicates, args.permutations)
    verdict_rows = verdicts(
        gains, args.verdict_replicates, args.planted_replicates, "ttest"
    ) + verdicts(gains, args.verdict_replicates // 4, args.planted_replicates // 4, "randomization")
    results = {
        "min_topics_shipped": MIN_TOPICS,
        "min_topics_calibrated": smallest_calibrated(size_rows),
        "size": size_rows,
        "verdicts": verdict_rows,
        "seconds": speed(gains),
    }
    record.write("audit_bench", results, config=vars(args) | {"realdata": str(args.realdata)})
    (record.RESULTS / "audit_bench.md").write_text(markdown(results))
    print(markdown(results))


def markdown(results: dict) -> str:
    import pandas as pd

    from leakeval_core.present.tables import to_markdown

    size = pd.DataFrame(results["size"]).round(3)
    wide = size.pivot_table(index=["gains", "null", "test"], columns="k", values="size")
    lines = [
        "# Leaked minus other: calibration on real gains",
        "",
        f"Smallest k (topics on the smaller side) from which Welch's size stays within "
        f"{TOLERANCE} α (Bradley's liberal criterion) on every real gain and null: "
        f"**{results['min_topics_calibrated']}**; "
        f"shipped `MIN_TOPICS` = {results['min_topics_shipped']}.",
        "",
        "## Size: share of p < 0.05 when nothing is planted",
        "",
        to_markdown(wide.reset_index()),
        "",
        "## Verdicts (one row, m = 1)",
        "",
        to_markdown(pd.DataFrame(results["verdicts"]).round(3)),
        "",
        "## Seconds",
        "",
        to_markdown(pd.Series(results["seconds"]).round(4).rename("s").reset_index()),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
