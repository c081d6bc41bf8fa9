"""The demo's labelled pairs against the shipped hybrid model."""

from __future__ import annotations

import pytest

from leakeval_core.leakage.labels import read_labels
from tests.support import shared

pytestmark = [pytest.mark.demo, pytest.mark.detection]


def test_the_shipped_hybrid_knows_which_pairs_it_was_fitted_on(demo_experiment):
    """Every development pair, and so every pair of the demo's labels (taken from them), is
    among the shipped model's fitted pairs; a changed training query is not."""
    from leakeval_core.leakage.hybrid import seen_in_fitting

    demo = read_labels(demo_experiment.labels).table
    assert seen_in_fitting(demo.topic, demo.train_text) == len(demo) == 361
    changed = demo.train_text + " in winter"
    assert seen_in_fitting(demo.topic, changed) == 0
    assert seen_in_fitting(demo.topic.map(lambda t: f"9{t}"), demo.train_text) == 0
    dev = read_labels(shared("labels", "spire22-near-duplicates.dev.tsv")).table
    assert seen_in_fitting(dev.topic, dev.train_text) == len(dev) == 411
