"""How fast leakeval answers offline: a document text ir_datasets cannot serve, and a
collection whose files are absent (the error names them). The targets the tests no longer
time: under 10 s and under 15 s.

    .venv/bin/python bench/offline_bench.py

Writes bench/results/offline_bench.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGETS = {"absent document text": 10.0, "missing collection files, one-line error": 15.0}


def main() -> None:
    from leakeval_core.experiment.collections import document_text, load_collection
    from leakeval_core.experiment.manifest import CollectionSpec

    seconds = {}
    start = time.monotonic()
    try:
        collection = load_collection(CollectionSpec("core17", ir_datasets="core17"))
        document_text(collection, "497476")
        seconds["absent document text"] = time.monotonic() - start
    except Exception as exc:  # no IR_DATASETS_HOME laid out: say so, time the rest
        print(f"skipped the document text: {exc}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "IR_DATASETS_HOME": str(Path(home) / "irds")}
        start = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "leakeval_core.cli", "collection", "stats", "core17"],
            capture_output=True,
            env=env,
            timeout=120,
        )
        seconds["missing collection files, one-line error"] = time.monotonic() - start
    results = {
        name: {"seconds": round(value, 2), "target": TARGETS[name]}
        for name, value in seconds.items()
    }
    print(json.dumps(results, indent=2))
    record.write("offline_bench", results)


if __name__ == "__main__":
    main()
