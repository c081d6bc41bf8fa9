"""Do the topics a verdict needs reach 80% power? A simulation of each design at the sizes
`analysis.topic_set_size` solves for.

    .venv/bin/python bench/topic_set_size_bench.py [--realdata ../shared/realdata]
        [--replicates 4000]

For each case: δ, the sd, the level and (two samples) the ratio of other to leaked topics
give the sizes; then `replicates` data sets of those sizes with a true difference δ are
tested at that level, and the share rejected is the power reached (its Monte Carlo error is
about 0.006 at 4000 replicates).

- normal: gains drawn from a normal with that sd (the design's own assumption);
- real: gains resampled from the per-topic nDCG@10 gains of BM25+RM3 over BM25 on Robust04
  (249 real topics, skewed and heavy-tailed), centred, with δ added to the leaked side (or
  to every paired difference), the sd being theirs.

Two samples are tested with Student's t (the design's test) and with Welch's (the audit's
default), at ratios below and above 1; paired rows with the paired t-test. `power` is the
design's own test's (Student's, or the paired t), `power_welch` Welch's on the same data. Writes
bench/results/topic_set_size_bench.json and .md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import real_scores
import record
from scipy import stats as sps

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leakeval_core.analysis.procedures import POWER  # noqa: E402
from leakeval_core.analysis.topic_set_size import needed_paired, needed_two_sample  # noqa: E402


def real_gains(realdata: Path) -> np.ndarray:
    """Per-topic nDCG@10 gains of BM25+RM3 over BM25 on Robust04 (each fold's BM25 run
    scored on its own 50 topics)."""
    robust = real_scores.robust04(realdata)
    return (robust.rm3 - robust.bm25).to_numpy()


def draw(rng, shape: str, pool: np.ndarray, sd: float, size: tuple[int, ...]) -> np.ndarray:
    if shape == "normal":
        return rng.normal(0.0, sd, size)
    return rng.choice(pool - pool.mean(), size)


def two_sample(rng, shape, pool, delta, sd, level, ratio, replicates) -> dict:
    leaked, other = needed_two_sample(delta, sd, level, ratio)
    on = draw(rng, shape, pool, sd, (replicates, leaked)) + delta
    off = draw(rng, shape, pool, sd, (replicates, other))
    student = sps.ttest_ind(on, off, axis=1).pvalue
    welch = sps.ttest_ind(on, off, axis=1, equal_var=False).pvalue
    return {
        "design": "two-sample",
        "shape": shape,
        "delta": delta,
        "sd": round(sd, 4),
        "level": level,
        "ratio": round(ratio, 3),
        "leaked": leaked,
        "other": other,
        "topics": leaked + other,
        "power": float((student < level).mean()),
        "power_welch": float((welch < level).mean()),
    }


def paired(rng, shape, pool, delta, sd, level, replicates) -> dict:
    topics = needed_paired(delta, sd, level)
    differences = draw(rng, shape, pool, sd, (replicates, topics)) + delta
    p = sps.ttest_1samp(differences, 0.0, axis=1).pvalue
    return {  # the same keys as a two-sample row, "" where they mean nothing here
        "design": "paired",
        "shape": shape,
        "delta": delta,
        "sd": round(sd, 4),
        "level": level,
        "ratio": "",
        "leaked": "",
        "other": "",
        "topics": topics,
        "power": float((p < level).mean()),
        "power_welch": "",
    }


def markdown(rows: list[dict], replicates: int) -> str:
    error = np.sqrt(POWER * (1 - POWER) / replicates)
    lines = [
        "# Topic set size: the power the solved sizes reach",
        "",
        f"{replicates} simulated data sets per row at the sizes solved for {POWER:.0%} power "
        f"(Monte Carlo error ±{error:.3f}); `bench/topic_set_size_bench.py`.",
        "",
        "| design | shape | δ | sd | level | ratio | leaked | other | topics | power (Student "
        "/ paired t) | power (Welch) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        two = r["design"] == "two-sample"
        cells = [
            r["design"],
            r["shape"],
            f"{r['delta']:g}",
            f"{r['sd']:.3f}",
            f"{r['level']:.4g}",
            f"{r['ratio']:.2f}" if two else "",
            str(r["leaked"]),
            str(r["other"]),
            str(r["topics"]),
            f"{r['power']:.3f}",
            f"{r['power_welch']:.3f}" if two else "",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    parser.add_argument("--replicates", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    pool = real_gains(args.realdata)
    real_sd = float(pool.std(ddof=1))
    rows = []
    for shape, sd in (("normal", 0.2), ("real", real_sd)):
        for delta, level, ratio in (
            (0.05, 0.05, 77 / 172),
            (0.1, 0.05 / 3, 77 / 172),
            (0.05, 0.05 / 6, 29 / 21),
            (0.1, 0.01, 3.0),
        ):
            rows.append(two_sample(rng, shape, pool, delta, sd, level, ratio, args.replicates))
        for delta, level in ((0.02, 0.05), (0.05, 0.05 / 15), (0.1, 0.01)):
            rows.append(paired(rng, shape, pool, delta, sd, level, args.replicates))
    for row in rows:
        print(row)
    record.write(
        "topic_set_size_bench",
        rows,
        config=vars(args) | {"realdata": str(args.realdata), "real_sd": real_sd},
    )
    (record.RESULTS / "topic_set_size_bench.md").write_text(markdown(rows, args.replicates))


if __name__ == "__main__":
    main()
