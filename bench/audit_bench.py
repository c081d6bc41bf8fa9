"""The audit's calibration and speed, on planted data (run by hand; the README quotes it).

    .venv/bin/python bench/audit_bench.py [--replicates 1000]

- coverage: a model equal to the baseline plus a uniform gain plus δ on leaked topics, 200
  topics (60% leaked), noise sd 0.15: the share of replicates whose interval (the shifts the
  permutation test does not reject, and the BCa bootstrap) covers δ;
- size: with δ = 0, the share of p < 0.05, and a Kolmogorov–Smirnov test of the p's against
  the uniform;
- speed: one audit of the demo (45 pairs of twins) and of the real example, if present.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leakeval_core.analysis.audit import did, gains  # noqa: E402
from tests.unit.analysis.test_audit import planted  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    delta, n = 0.08, args.replicates
    covered = {"test": 0, "bootstrap": 0}
    for seed in range(n):
        model, baseline, leaked = planted(10_000 + seed, delta)
        gain = gains(model, baseline, "higher")
        for interval in covered:
            row = did(gain, leaked, interval=interval, resamples=args.resamples, seed=seed)
            covered[interval] += row["ci_low"] <= delta <= row["ci_high"]
    for interval, hits in covered.items():
        print(f"coverage of δ = {delta}, {interval} interval: {hits / n:.3f} ({hits}/{n})")
    ps = []
    for seed in range(n):
        model, baseline, leaked = planted(20_000 + seed, 0.0)
        ps.append(
            did(gains(model, baseline, "higher"), leaked, resamples=args.resamples, seed=seed)["p"]
        )
    ps = np.array(ps)
    print(
        f"with δ = 0: p < 0.05 in {np.mean(ps < 0.05):.3f}; KS p = "
        f"{sps.kstest(ps, 'uniform').pvalue:.3f} ({n} replicates)"
    )
    from leakeval_core import api
    from leakeval_core.demo.generator import generate_demo

    demo = ROOT / "data" / "demo"
    if not (demo / "experiment.toml").exists():
        generate_demo(demo)
    study = api.Study.open(demo)
    study.scores(api.View().conventions)
    study.leakage()
    start = time.perf_counter()
    api.audit(study)
    print(f"audit of the demo's 45 pairs of twins: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
