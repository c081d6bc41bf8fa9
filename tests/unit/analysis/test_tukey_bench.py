"""The leaderboard bench's nulls (`bench/tukey_bench.py`): the exchangeable one holds by
construction what the permutations assume, so it cannot fail; the unequal one gives the
systems one mean but their own spreads and correlations, and must be able to show a
family-wise error above α when the test has one."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.support import ROOT

sys.path.insert(0, str(ROOT / "bench"))
tukey_bench = pytest.importorskip("tukey_bench")


def _pool(topics: int = 50) -> np.ndarray:
    """Two real-like systems: per-topic scores in [0, 1], the second a noisy improvement."""
    rng = np.random.default_rng(5)
    first = rng.beta(2, 3, topics)
    second = np.clip(first + rng.normal(0.03, 0.15, topics), 0, 1)
    return np.column_stack([first, second])


def test_the_unequal_systems_share_one_mean_and_nothing_else():
    pool = _pool()
    values = tukey_bench.unequal_systems(pool, 5)
    assert values.shape == (50, 5)
    np.testing.assert_allclose(values.mean(axis=0), pool[:, 0].mean(), atol=1e-12)
    np.testing.assert_allclose(values[:, 0], pool[:, 0])  # the first system as it was
    shifted = pool[:, 1] - pool[:, 1].mean() + pool[:, 0].mean()  # the second, per topic
    np.testing.assert_allclose(values[:, -1], shifted)
    spreads = values.std(axis=0)
    assert spreads.max() - spreads.min() > 0.01  # unequal variances
    correlation = np.corrcoef(values.T)
    assert correlation[0, -1] < 0.95  # the ends are not one system twice


def test_the_unequal_null_can_find_an_error_the_exchangeable_one_cannot():
    """On the same scores, the exchangeable null's error stays within Monte Carlo error of
    α or below, while mixtures of two systems with one mean are called different far more
    often than α: the harder null measures the test, not its implementation."""
    scores = {"planted": _pool()}
    exchangeable = tukey_bench.family_wise_error(scores, 200, 199)
    unequal = tukey_bench.family_wise_error_unequal(scores, 200, 199)
    assert all(row["at_most_alpha"] for row in exchangeable)
    five = next(row for row in unequal if row["systems"] == 5)
    assert five["mc_low"] > tukey_bench.ALPHA and not five["at_most_alpha"]
    for row in (*exchangeable, *unequal):
        assert row["mc_low"] <= row["family_wise_error"] <= row["mc_high"]


def test_the_monte_carlo_interval_is_clopper_pearsons():
    row = tukey_bench._error_row("c", 50, 2, 0, 20)
    assert row["mc_low"] == 0 and row["mc_high"] == pytest.approx(1 - 0.025 ** (1 / 20))
    assert row["at_most_alpha"]
