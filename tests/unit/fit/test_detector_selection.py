"""Nested selection: the candidate spaces, no peeking at held-out topics, the topic interval.

Synthetic signals here test the mechanics only; the quality figures come from the human
judgments (`bench/detection_bench.py --nested`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from leakeval_fit.detector_selection import (
    Candidate,
    NestedResult,
    calibration,
    candidate_space,
    choose_candidate,
    grouped_folds,
    nested_cross_validation,
    signal_table,
    topic_bootstrap,
)
from tests.unit.leakage.test_detection_quality import dev_labels

pytestmark = pytest.mark.detection  # `make check` leaves these out


def synthetic(n_topics: int = 30, per_topic: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    groups = np.repeat([f"t{i}" for i in range(n_topics)], per_topic)
    y = (rng.random(len(groups)) < 0.7).astype(int)
    features = pd.DataFrame(
        {
            "minilm:semantic": y + rng.normal(0, 0.8, len(y)),
            "minilm:need_shift": rng.normal(0, 1, len(y)),
            "minilm:title_coverage": y + rng.normal(0, 0.5, len(y)),
            "minilm:matched_coverage": rng.normal(0, 1, len(y)),
            "minilm:asks_definition": rng.integers(0, 2, len(y)).astype(float),
            "minilm:what_is": np.zeros(len(y)),
            "minilm:define_word": np.zeros(len(y)),
            "lexical": rng.random(len(y)),
        }
    )
    return features, y, groups


def test_candidate_spaces_hold_every_choice():
    hybrid = candidate_space("hybrid")
    # 2^3 subsets of the optional signals x 4 word-list choices x 4 Cs, each with the cosine
    assert len(hybrid) == 128
    assert all(c.signals[0] == "minilm:semantic" and c.c is not None for c in hybrid)
    assert candidate_space("semantic-mpnet") == [Candidate(("mpnet:cosine",))]
    ensemble = candidate_space("ensemble")
    assert all({"mpnet:semantic", "mpnet:need_shift"} <= set(c.signals) for c in ensemble)
    assert len(candidate_space("all")) == 1 + 2 * (1 + 128) + 128
    assert all(c.c is not None for c in candidate_space("all"))  # all on one scale
    assert len(candidate_space("all", ("minilm",))) == 1 + 1 + 128
    with pytest.raises(ValueError, match="unknown family"):
        candidate_space("bm25")


def test_held_out_scores_never_see_their_own_labels():
    features, y, groups = synthetic()
    candidates = candidate_space("hybrid", ("minilm",))[:24]
    first = nested_cross_validation(candidates, features, y, groups, outer=3, inner=3)
    # relabel one held-out fold's topics: the scores given to that fold must not move
    train, test = grouped_folds(y, groups, 3, 0)[0]
    flipped = y.copy()
    flipped[test] = 1 - flipped[test]
    second = nested_cross_validation(candidates, features, flipped, groups, outer=3, inner=3)
    np.testing.assert_array_equal(first.scores[test], second.scores[test])
    np.testing.assert_array_equal(first.thresholds[test], second.thresholds[test])
    assert not np.array_equal(first.scores[train], second.scores[train])


def test_selection_finds_the_informative_signal():
    features, y, groups = synthetic(n_topics=60)
    candidates = [
        Candidate(("lexical",)),
        Candidate(("minilm:semantic", "minilm:title_coverage"), 1.0),
    ]
    best, out_of_fold = choose_candidate(candidates, features, y, groups)
    assert best == candidates[1] and len(out_of_fold) == len(y)
    assert roc_auc_score(y, out_of_fold) > 0.8
    result = nested_cross_validation(candidates, features, y, groups)
    assert set(result.chosen) == {"logistic(minilm:semantic + minilm:title_coverage; C=1)"}
    assert result.roc_auc() > 0.8
    fold = result.at_fold_thresholds()
    assert 0.75 <= fold["recall"] <= 1.0 and 0 < fold["precision"] <= 1


def test_unfitted_candidate_is_its_signal():
    features, y, groups = synthetic()
    only = Candidate(("minilm:semantic",))
    result = nested_cross_validation([only], features, y, groups)
    # calibrated per fold, so not the raw cosine, but ranked as it within each fold
    assert result.scores.min() >= 0 and result.scores.max() <= 1
    for _, test in grouped_folds(y, groups, 5, 0):
        assert roc_auc_score(y[test], result.scores[test]) == pytest.approx(
            roc_auc_score(y[test], features["minilm:semantic"].to_numpy()[test])
        )


def test_calibration_is_monotone_and_matches_the_base_rate():
    features, y, _ = synthetic(n_topics=60)
    raw = features["minilm:semantic"].to_numpy()
    calibrate = calibration(raw, y)
    probability = calibrate(raw)
    assert np.all(np.diff(probability[np.argsort(raw)]) >= 0)
    # a logistic fit with an intercept gives the mean probability of the observed rate
    assert probability.mean() == pytest.approx(y.mean(), abs=1e-4)
    # a similarity that ranks backwards carries no information: the base rate for all
    np.testing.assert_allclose(calibration(-raw, y)(raw), y.mean())


def test_outer_auc_is_the_mean_within_folds_and_its_topic_interval_holds_it():
    features, y, groups = synthetic(n_topics=60)
    result = nested_cross_validation([Candidate(("minilm:semantic",))], features, y, groups)
    by_hand = np.mean(
        [roc_auc_score(y[result.folds == f], result.scores[result.folds == f]) for f in range(5)]
    )
    assert result.roc_auc() == pytest.approx(by_hand)
    low, high = topic_bootstrap(result, reps=300)
    assert low < result.roc_auc() < high and high - low < 0.3
    perfect = NestedResult(y.astype(float), y, (), y, groups, result.folds)
    assert topic_bootstrap(perfect, reps=20) == (1.0, 1.0)
    # paired: the difference from itself is nil, from a perfect ranking always below it
    assert topic_bootstrap(result, reps=20, against=result) == (0.0, 0.0)
    low, high = topic_bootstrap(result, reps=200, against=perfect)
    assert low <= high < 0
    other = nested_cross_validation([Candidate(("lexical",))], features, y, groups, seed=1)
    with pytest.raises(ValueError, match="same outer folds"):
        topic_bootstrap(result, against=other)


def test_signal_table_without_an_encoder_holds_the_lexical_cosine():
    labels = dev_labels()
    table = signal_table(labels, ())
    assert list(table.columns) == ["lexical"] and len(table) == len(labels.table)
    assert table.lexical.between(0, 1).all()
