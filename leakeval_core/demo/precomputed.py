"""What `leakeval demo` hands the dashboard ready-made, so the demo opens in seconds.

The demo is generated from a fixed seed, so its SCORES table and its detected pairs are pure
functions of what leakeval ships. Generating the demo writes them into its `precomputed/`
folder, keyed by content as the cache is: the scores of the dashboard's measures under the
default conventions, scored right then, and the pairs of the detection methods the demo can
name, shipped here because detection with a sentence encoder takes much longer than the
rest of the demo. `tests/unit/demo/test_precomputed.py` detects again and checks that the
shipped pairs are what detection gives; `python -m leakeval_core.demo.precomputed` rewrites
them after a change to detection.
"""

from __future__ import annotations

import sys
import tempfile
from importlib import resources
from pathlib import Path

import pandas as pd

from leakeval_core.demo.generator import DEMO_METHOD
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DASHBOARD_MEASURES
from leakeval_core.experiment.cache import PRECOMPUTED, Cache
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.experiment.scores import score_experiment
from leakeval_core.leakage.options import DetectionOptions, method_for
from leakeval_core.leakage.table import detect_leakage, leakage_key

__all__ = ["SHIPPED_METHODS", "precompute", "shipped_pairs"]

SHIPPED_METHODS = (DEMO_METHOD, "lexical")
"""The demo's method, and what a machine without the semantic extra falls back to."""


def shipped_pairs(method: str) -> pd.DataFrame | None:
    """The demo's detected pairs for `method`, as shipped (None while they are rewritten)."""
    path = resources.files(__package__).joinpath(f"precomputed/leakage-{method}.parquet")
    if not path.is_file():
        return None
    with resources.as_file(path) as file:
        return pd.read_parquet(file)


def precompute(root: Path) -> None:
    """Write the demo's scores and its shipped pairs into `root/precomputed/`."""
    experiment = load_experiment(root)
    shelf = Cache(root / PRECOMPUTED)
    score_experiment(experiment, DASHBOARD_MEASURES, Conventions(), shelf)
    for method in SHIPPED_METHODS:
        pairs = shipped_pairs(method)
        if pairs is not None:
            key = leakage_key(experiment, DetectionOptions(method=method))
            shelf.put("leakage", key, pairs)


def _refresh() -> None:
    """Detect the demo's pairs anew with each shipped method and write them here."""
    from leakeval_core.demo.generator import generate_demo

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
                experiment, Cache(Path(tmp) / "cache"), options=DetectionOptions(method=method)
            ).table
            table.to_parquet(folder / f"leakage-{method}.parquet", index=False)
            print(f"{method}: {len(table)} pairs", file=sys.stderr)


if __name__ == "__main__":
    _refresh()
