"""The one permutation inversion both randomization tests use: held against the tests it
inverts (their own p, shift by shift), against an independent algorithm for the paired
form, and to the rule that decides significance (p < level), ties included."""

from __future__ import annotations

import numpy as np
import pytest

from leakeval_core.analysis.inversion import shift_interval
from leakeval_core.analysis.paired import _flips, randomization_interval, randomization_test
from leakeval_core.analysis.split import ShiftTest

LEVELS = (0.05, 0.01, 0.05 / 3, 0.05 / 7, 0.1, 0.5)


def differences(rng, n: int, kind: int) -> np.ndarray:
    """Continuous, coarse (ties between queries) or rank-sized differences."""
    if kind == 0:
        return rng.normal(0.05, 0.2, n)
    if kind == 1:
        return rng.integers(-3, 4, n) / 10.0
    return rng.integers(-500, 500, n).astype(float)


def order_statistics(delta: np.ndarray, alpha: float, resamples: int, seed: int):
    """The paired interval by a different route: with |s̄| ≤ 1 every flip is extreme on one
    closed interval of θ holding the observed mean, so each bound is an order statistic of
    those intervals' ends (the `need`-th smallest start, the `need`-th largest end)."""
    mean, flips = delta.mean(), _flips(delta, resamples, seed)
    x, s = flips.means, flips.sign_means
    curvature, slope, constant = s * s - 1.0, 2.0 * (mean - x * s), x * x - mean * mean
    always = curvature > -1e-12
    curvature = np.where(always, -1.0, curvature)
    root = np.sqrt(np.maximum(slope * slope - 4.0 * curvature * constant, 0.0))
    ends = np.sort([(-slope + root) / (2 * curvature), (-slope - root) / (2 * curvature)], axis=0)
    low, high = np.where(always, -np.inf, ends[0]), np.where(always, np.inf, ends[1])
    total = len(x)
    need = int(np.ceil((alpha * total if flips.exact else alpha * (1 + total) - 1) - 1e-9))
    if need <= 0:
        return -np.inf, np.inf
    return float(np.sort(low)[need - 1]), float(np.sort(high)[::-1][need - 1])


def paired_p(delta: np.ndarray, theta: float, resamples: int, seed: int) -> float:
    return randomization_test(delta - theta, np.zeros(len(delta)), resamples, seed)[1]


@pytest.mark.parametrize("n", [*range(2, 17, 2), 17, 30])
def test_the_paired_interval_is_the_order_statistics_one(n):
    """Exact (n ≤ 16) and sampled flips: the general inversion gives the bounds the
    order-statistic route gives, to 1e-12 (none of these levels is a p the flips can give,
    where the two could differ by the rule at p = level)."""
    rng = np.random.default_rng(n)
    resamples = 2_000
    for trial in range(6):
        delta = differences(rng, n, trial % 3)
        for alpha in LEVELS:
            mine = randomization_interval(delta, alpha, resamples, seed=trial)
            if np.ptp(delta) <= 1e-12:
                continue
            theirs = order_statistics(delta, alpha, resamples, trial)
            assert mine == pytest.approx(theirs, abs=1e-12, rel=0), (n, trial, alpha)


@pytest.mark.parametrize("n", [7, 12, 40])
def test_the_paired_interval_is_every_shift_its_test_keeps(n):
    """Brute force: on a grid of shifts, the test itself keeps θ (p ≥ level) inside the
    interval and rejects it outside."""
    rng = np.random.default_rng(100 + n)
    delta, level, resamples = rng.normal(0.05, 0.2, n), 0.05 / 3, 2_000
    low, high = randomization_interval(delta, level, resamples, seed=4)
    span = 0.5 if not np.isfinite(high - low) else high - low
    centre = delta.mean() if not np.isfinite(low + high) else (low + high) / 2
    for theta in np.linspace(centre - span, centre + span, 121):
        p = paired_p(delta, theta, resamples, 4)
        if low + 1e-9 < theta < high - 1e-9:
            assert p >= level, theta
        elif theta < low - 1e-9 or theta > high + 1e-9:
            assert p < level, theta


@pytest.mark.parametrize("sizes", [(6, 6), (6, 9), (9, 6), (12, 30)])
def test_the_two_sample_interval_is_every_shift_its_test_keeps(sizes):
    """The same for the permutation of the leaked flags (exact for the small groups, drawn
    for the large), with strata, and with more leaked than other topics (|b| > 1)."""
    n1, n0 = sizes
    rng = np.random.default_rng(n1 * 100 + n0)
    values = rng.normal(0.05, 0.2, n1 + n0)
    flags = rng.permutation(np.r_[np.ones(n1, bool), np.zeros(n0, bool)])
    strata = np.arange(n1 + n0) % 2 if n1 + n0 > 20 else None
    test = ShiftTest(values, flags, strata, 3_000, seed=2)
    for level in (0.05, 0.01):
        low, high = test.interval(level)
        assert np.isfinite([low, high]).all()
        for shift in np.linspace(2 * low - high, 2 * high - low, 121):
            p = test.p(shift)
            if low + 1e-9 < shift < high - 1e-9:
                assert p >= level, shift
            elif shift < low - 1e-9 or shift > high + 1e-9:
                assert p < level, shift


def test_a_p_equal_to_the_level_is_not_rejected_on_either_form():
    """The duality at a tie: a row is significant when p < level, so at p(0) == level the
    interval must hold 0. Levels here are p values the resamples give, exactly."""
    delta = np.array([0.3, 0.1, 0.25, 0.2, -0.05, 0.15])  # 64 exact flips
    p0 = paired_p(delta, 0.0, 10_000, 0)
    low, high = randomization_interval(delta, p0)
    assert low <= 0 <= high
    low, high = randomization_interval(delta, np.nextafter(p0, 1))
    assert low > 0 or high < 0  # just above p(0): rejected

    values = np.array([0.9, 0.8, 0.85, 0.7, 0.75, 0.1, 0.2, 0.0, 0.15, 0.3, 0.05, 0.25])
    flags = np.r_[np.ones(5, bool), np.zeros(7, bool)]
    test = ShiftTest(values, flags)
    p0 = test.p()
    assert test.exact and p0 < 0.05
    low, high = test.interval(p0)
    assert low <= 0 <= high
    low, high = test.interval(np.nextafter(p0, 1))
    assert low > 0 or high < 0


@pytest.mark.parametrize("seed", range(4))
def test_the_interval_excludes_zero_exactly_when_the_test_rejects(seed):
    """Both forms, at levels that include the resamples' own p values (below 1: a level of
    1 keeps only the observed difference, which rounding may put either side of 0).
    Continuous differences: where a resample ties the data exactly at θ = 0 (coarse
    values), the test counts the tie within its tolerance and the inversion's root may
    round to either side of 0."""
    rng = np.random.default_rng(seed)
    for n in (5, 9, 14, 25):
        delta = rng.normal(0.1 * (seed % 2), 0.2, n)
        p0 = paired_p(delta, 0.0, 2_000, seed)
        for level in (*LEVELS, p0) if p0 < 1 else LEVELS:
            low, high = randomization_interval(delta, level, 2_000, seed)
            assert (low > 0 or high < 0) == (p0 < level), (n, level)
    for n1, n0 in ((6, 6), (7, 5), (10, 25)):
        values = rng.normal(0.0, 0.2, n1 + n0) + 0.15 * np.r_[np.ones(n1), np.zeros(n0)]
        flags = np.r_[np.ones(n1, bool), np.zeros(n0, bool)]
        test = ShiftTest(values, flags, None, 2_000, seed)
        p0 = test.p()
        for level in (*LEVELS, p0) if p0 < 1 else LEVELS:
            low, high = test.interval(level)
            assert (low > 0 or high < 0) == (p0 < level), (n1, n0, level)


def test_four_resamples_by_hand():
    """Observed 0.2. The data itself (b = 1) and its mirror (b = −1) are extreme at every
    shift; (a, b) = (0, 0.5) where (0.5θ)² ≥ (0.2 − θ)², θ in [0.2/1.5, 0.4]; (0.05, 0) where
    |0.2 − θ| ≤ 0.05, θ in [0.15, 0.25]. p is the share extreme: 2/4 everywhere, 3/4 and
    4/4 on those stretches."""
    a, b = np.array([0.2, -0.2, 0.0, 0.05]), np.array([1.0, -1.0, 0.5, 0.0])
    assert shift_interval(a, b, 0.2, True, 0.5) == (-np.inf, np.inf)  # the smallest p
    assert shift_interval(a, b, 0.2, True, 0.75) == pytest.approx((0.2 / 1.5, 0.4))
    assert shift_interval(a, b, 0.2, True, 0.76) == pytest.approx((0.15, 0.25))
    # drawn, not enumerated: p = (1 + count) / (1 + 4), so 3 of 4 extreme is p = 4/5
    assert shift_interval(a, b, 0.2, False, 0.8) == pytest.approx((0.2 / 1.5, 0.4))
