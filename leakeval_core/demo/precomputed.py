"""What `leakeval demo` hands the dashboard ready-made, so the demo opens in seconds.

The demo is generated from a fixed seed, so its SCORES table and its detected pairs are pure
functions of what leakeval ships. Generating the demo writes them into its `precomputed/`
folder, keyed by content as the cache is: the scores of the dashboard's measures under the
default conventions, scored right then, and the pairs of the detection methods the demo can
name, shipped here because detection with a sentence encoder takes much longer than the
rest of the demo. `tests/unit/demo/test_precomputed.py` detects again and checks that the
shipped pairs are what detection gives; `python -m leakeval_core.demo.refresh` rewrites
them after a change to detection.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

import pandas as pd

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DASHBOARD_MEASURES
from leakeval_core.experiment.cache import PRECOMPUTED, Cache
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.experiment.scores import score_experiment
from leakeval_core.leakage.detection_options import DetectionOptions, encoder_of
from leakeval_core.leakage.devices import ran_on
from leakeval_core.leakage.table import leakage_key

__all__ = ["DEMO_METHOD", "SHIPPED_METHODS", "precompute", "shipped_pairs"]

DEMO_METHOD = "hybrid"
"""The detection method the demo names (`[leakage] method`): the most accurate that detects
the demo while a person waits; its pairs ship with the demo, so every machine flags the same
topics."""
SHIPPED_METHODS = (DEMO_METHOD, "lexical")
"""The demo's method (its pairs serve installations without the semantic extra too), and
lexical, which every installation can switch to on the leakage page without waiting."""
SHIPPED_DEVICE = "cpu"
"""Where the shipped pairs are detected (`refresh` runs on the CPU), as their record says."""


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
    shelf = Cache(root / PRECOMPUTED, max_bytes=math.inf)  # the experiment's own: kept whole
    score_experiment(experiment, DASHBOARD_MEASURES, Conventions(), shelf)
    for method in SHIPPED_METHODS:
        pairs = shipped_pairs(method)
        if pairs is not None:
            key = leakage_key(experiment, DetectionOptions(method=method))
            shelf.put("leakage", key, pairs, ran_on(encoder_of(method), SHIPPED_DEVICE))
