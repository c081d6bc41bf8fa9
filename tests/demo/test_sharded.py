"""Sharded logs on the demo's training log: the same pairs however the log is split."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from leakeval_core.cli import main
from leakeval_core.leakage.detection_options import DetectionOptions

pytestmark = [pytest.mark.demo, pytest.mark.detection]


def test_leakage_command_on_an_experiment_writes_its_leakage_table(demo_dir, tmp_path):
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.leakage.table import detect_leakage, load_leakage

    out = tmp_path / "pairs.csv"
    assert main(["leakage", "--experiment", str(demo_dir), "--out", str(out)]) == 0
    written = pd.read_csv(out, dtype={"test_qid": str, "train_qid": str})
    assert {"collection", "near_duplicate"} <= set(written.columns)
    experiment = load_experiment(demo_dir)
    detected = detect_leakage(experiment, options=DetectionOptions())
    assert len(written) == len(detected.table)
    assert written.collection.tolist() == detected.table.collection.tolist()
    assert np.allclose(written.similarity, detected.table.similarity, atol=5e-7)
    # read back as the experiment's [leakage] table, it keeps the lexical threshold
    given = load_leakage(replace(experiment, leakage_table=out, training_queries=None))
    assert given.method == "lexical" and given.threshold == detected.threshold
    assert main(["leakage", "--out", str(out)]) == 2
