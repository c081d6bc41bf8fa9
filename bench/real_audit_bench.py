"""The real example, a negative control: `leakeval audit examples/real-audit`, BM25+RM3
against BM25 on Robust04 and TREC 2018 Common Core with the leakage study's human
judgments, laid out afresh from ../shared/realdata in a temporary folder.

    .venv/bin/python bench/real_audit_bench.py [--realdata ../shared/realdata]

Writes bench/results/real_audit_bench.json: every audited row (gains, difference, interval,
adjusted p, mde, the topics needed per δ, verdict), the leaked-topic counts and the seconds
the audit took.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import record

ROOT = Path(__file__).resolve().parents[1]
KEEP = (
    "collection",
    "model",
    "leaked_topics",
    "other_topics",
    "gain_leaked",
    "gain_other",
    "difference",
    "ci_low",
    "ci_high",
    "p_adjusted",
    "family_size",
    "mde",
    "topics_needed",
    "verdict",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, example = Path(tmp) / "irds", Path(tmp) / "real-audit"
        subprocess.run(
            ["bash", str(args.realdata / "irds-home.sh"), args.realdata, home], check=True
        )
        shutil.copytree(
            ROOT / "examples" / "real-audit", example, ignore=shutil.ignore_patterns("runs")
        )
        python = sys.executable
        subprocess.run([python, str(example / "setup.py"), str(args.realdata)], check=True)
        env = {**os.environ, "IR_DATASETS_HOME": str(home), "PYTHONPATH": str(ROOT)}
        out = Path(tmp) / "audit.json"
        start = time.perf_counter()
        subprocess.run(
            [python, "-m", "leakeval_core.cli", "audit", str(example), "--json", str(out)],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - start
        audit = json.loads(out.read_text())
    rows = [{k: row[k] for k in KEEP if k in row} for row in audit["audit"]]
    for row in rows:
        print(row)
    record.write(
        "real_audit_bench",
        {
            "measure": audit["measure"],
            "statistics": audit["statistics"],
            "leaked": audit["leaked"],
            "rows": rows,
            "audit_seconds": seconds,
        },
        config={"realdata": str(args.realdata), "example": "examples/real-audit"},
    )


if __name__ == "__main__":
    main()
