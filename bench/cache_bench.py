"""Cache: `leakeval scores` on the demo with an empty cache (cold) and again (warm), as
whole processes. Each repeat starts from a new empty cache; the medians and the warm/cold
ratio are reported. Run by hand:

    .venv/bin/python bench/cache_bench.py [--repeats 5]

Writes bench/results/cache_bench.json.
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

import record

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    leakeval = str(Path(sys.executable).parent / "leakeval")
    if not (DEMO / "experiment.toml").exists():
        subprocess.run([leakeval, "demo", "--out", str(DEMO)], check=True)
    cold, warm = [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "LEAKEVAL_CACHE": str(Path(tmp) / "cache")}
            command = [leakeval, "scores", str(DEMO), "--out", str(Path(tmp) / "scores.csv")]
            cold.append(timed(command, env))
            warm.append(timed(command, env))
    ratios = [w / c for w, c in zip(warm, cold, strict=True)]
    print(f"cold (empty cache): median {statistics.median(cold):.2f} s  {cold}")
    print(f"warm (same files):  median {statistics.median(warm):.2f} s  {warm}")
    print(
        f"warm / cold: median {statistics.median(ratios):.1%} "
        f"(range {min(ratios):.1%}-{max(ratios):.1%})"
    )
    record.write(
        "cache_bench",
        {
            "cold_seconds": statistics.median(cold),
            "warm_seconds": statistics.median(warm),
            "warm_over_cold": statistics.median(ratios),
            "each_cold": cold,
            "each_warm": warm,
        },
        config=vars(args) | {"experiment": "data/demo"},
    )


if __name__ == "__main__":
    main()
