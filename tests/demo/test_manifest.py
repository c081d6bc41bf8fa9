"""The demo's manifest, as the generator writes it."""

import pytest

pytestmark = pytest.mark.demo


def test_demo_manifest(demo_experiment):
    assert demo_experiment.simulated
    assert demo_experiment.factors == ("collection", "model", "leakage", "train_size", "fold")
    assert len(demo_experiment.conditions) == 3 * 3 * 2 * 5 * 5
    assert demo_experiment.ground_truth.name == "ground_truth.csv"
