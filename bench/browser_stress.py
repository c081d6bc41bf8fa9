"""Every browser test, several runs in a row, while other processes keep every core busy.

A browser test that waits on a clock passes on a quiet machine and fails on a busy one; the
suite waits on state instead, and this is how that claim is checked. Run by hand:

    .venv/bin/python bench/browser_stress.py            # 2 runs, one busy process per core
    .venv/bin/python bench/browser_stress.py --runs 5 --burners 4

Exits 1 if any run fails; prints each run's outcome and time, and writes them to
bench/results/browser_stress.json.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import record

ROOT = Path(__file__).resolve().parents[1]
BUSY = "while True: pass"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    burners = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(args.burners)]
    results, runs = [], []
    try:
        for run in range(1, args.runs + 1):
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "browser"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            seconds = time.perf_counter() - started
            summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
            results.append(done.returncode == 0)
            runs.append({"passed": done.returncode == 0, "seconds": seconds, "summary": summary})
            print(
                f"run {run}: {'pass' if done.returncode == 0 else 'FAIL'} in {seconds:.0f} s: "
                f"{summary}",
                flush=True,
            )
            if done.returncode:
                print(done.stdout[-4000:], file=sys.stderr)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    print(
        f"{sum(results)} of {len(results)} runs passed with {args.burners} busy processes "
        f"on {os.cpu_count()} cores"
    )
    record.write("browser_stress", {"runs": runs, "passed": sum(results)}, config=vars(args))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
