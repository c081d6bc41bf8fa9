"""The lexical floor under the encoders: the rule, chosen inside folds, and the shipped value
on the human judgments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leakeval_core.leakage.detection_options import ENCODER_FLOOR
from leakeval_core.leakage.detection_quality import evaluate_detection
from leakeval_fit.detector_selection import Candidate, grouped_folds, nested_cross_validation
from leakeval_fit.encoder_floor import KEEP, choose_floor, held_out_floors
from tests.unit.leakage.test_detection_quality import dev_labels

pytestmark = pytest.mark.detection  # `make check` leaves these out


def test_the_floor_is_the_highest_step_that_keeps_the_share():
    # 100 near-duplicates: one at 0.47, the rest at 0.62 and over; the others count for nothing
    lexical = np.r_[0.47, np.linspace(0.62, 1.0, 99), 0.0, 0.1]
    near = np.r_[np.ones(100, bool), False, False]
    assert choose_floor(lexical, near, keep=0.99) == 0.6  # 0.65 would lose 0.62…0.65 too
    assert choose_floor(lexical, near, keep=1.0) == 0.45
    assert choose_floor(lexical[:1], near[:1], keep=1.0) == 0.45
    assert choose_floor(np.array([0.3]), np.array([False])) == 0.0  # nothing to keep


def test_each_fold_chooses_on_its_training_pairs_and_counts_the_held_out_ones():
    lexical = np.array([0.9, 0.8, 0.2, 0.7, 0.9, 0.95])
    near = np.array([1, 1, 1, 1, 1, 0], bool)
    folds = [(np.array([0, 1]), np.array([2, 3, 5])), (np.array([2, 3]), np.array([0, 1, 4]))]
    assert held_out_floors(lexical, near, folds, keep=1.0) == [
        {"floor": 0.8, "near_duplicates": 2, "kept": 0},  # 0.2 and 0.7 fall under 0.8
        {"floor": 0.2, "near_duplicates": 3, "kept": 3},
    ]


def test_nested_scores_a_held_out_pair_under_its_folds_floor_zero_only_where_it_embeds():
    rng = np.random.default_rng(0)
    groups = np.repeat([f"t{i}" for i in range(20)], 5)
    y = (rng.random(100) < 0.8).astype(int)
    lexical = np.where(y == 1, rng.uniform(0.6, 1.0, 100), rng.uniform(0.0, 1.0, 100))
    lexical[:3] = 0.05  # three pairs no fold's floor keeps
    features = pd.DataFrame({"lexical": lexical, "minilm:cosine": y + rng.normal(0, 0.5, 100)})
    embedding = nested_cross_validation(
        [Candidate(("minilm:cosine",))], features, y, groups, lexical=lexical
    )
    words = nested_cross_validation([Candidate(("lexical",))], features, y, groups, lexical=lexical)
    plain = nested_cross_validation([Candidate(("minilm:cosine",))], features, y, groups)
    assert (embedding.scores[:3] == 0).all() and (plain.scores[:3] > 0).all()
    assert (words.scores[:3] > 0).all()  # lexical detection embeds nothing: no floor
    kept = lexical >= 0.6
    np.testing.assert_array_equal(embedding.scores[kept], plain.scores[kept])


def test_the_shipped_floor_is_the_rule_on_the_judgments_and_keeps_the_held_out_share():
    labels = dev_labels()
    lexical = evaluate_detection(labels, "lexical").scored.similarity.to_numpy()
    y = labels.table.near_duplicate.to_numpy(dtype=int)
    assert choose_floor(lexical, y == 1) == ENCODER_FLOOR
    folds = held_out_floors(lexical, y == 1, grouped_folds(y, labels.table.topic.to_numpy(), 5, 0))
    kept = sum(f["kept"] for f in folds) / sum(f["near_duplicates"] for f in folds)
    assert kept >= KEEP - 0.01  # chosen without the held-out topics, it keeps about as many
