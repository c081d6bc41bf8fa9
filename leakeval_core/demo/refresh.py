"""Rewrite the demo's shipped detected pairs after a change to detection.

    python -m leakeval_core.demo.refresh

Generates the demo without them, detects its pairs with each shipped method, and writes
them to `leakeval_core/demo/precomputed/`; the tests then check them against detection.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from leakeval_core.demo.generator import generate_demo
from leakeval_core.demo.precomputed import SHIPPED_DEVICE, SHIPPED_METHODS
from leakeval_core.experiment.cache import Cache
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.leakage.detection_options import DetectionOptions, method_for
from leakeval_core.leakage.table import detect_leakage


def _refresh() -> None:
    """Detect the demo's pairs anew with each shipped method and write them here."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(__file__).parent / "precomputed"
        for stale in folder.glob("leakage-*.parquet"):
            stale.unlink()  # the demo is generated without them, then detected here
        demo = generate_demo(Path(tmp) / "demo")
        experiment = load_experiment(demo)
        for method in SHIPPED_METHODS:
            if method_for(method) != method:
                sys.exit(f"{method} is not installed here: install the semantic extra first")
            table = detect_leakage(
                experiment,
                Cache(Path(tmp) / "cache"),
                options=DetectionOptions(method=method, device=SHIPPED_DEVICE),
            ).table
            table.to_parquet(folder / f"leakage-{method}.parquet", index=False)
            print(f"{method}: {len(table)} pairs", file=sys.stderr)


if __name__ == "__main__":
    _refresh()
