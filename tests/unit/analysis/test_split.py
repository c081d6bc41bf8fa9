"""Leaked minus other, the one test of the question every page asks: its p and interval
against scipy, its family correction, its minimum detectable difference by simulation, and
a verdict for every case a reader meets."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from leakeval_core.analysis.corrections import adjust_families, correct
from leakeval_core.analysis.split import (
    MIN_TOPICS,
    ShiftTest,
    Split,
    leaked_vs_other,
    minimum_detectable,
)
from leakeval_core.analysis.statistics_options import Statistics


def split(seed: int, leaked: int = 30, others: int = 70, delta: float = 0.0) -> Split:
    rng = np.random.default_rng(seed)
    gain = rng.normal(0.02, 0.15, leaked + others)
    flags = np.r_[np.ones(leaked, bool), np.zeros(others, bool)]
    return Split(gain + delta * flags, flags)


def test_welch_p_and_interval_are_scipys_at_the_corrected_level():
    splits = [split(seed, delta=0.1 * (seed % 2)) for seed in range(4)]
    table = leaked_vs_other([{"collection": "c", "row": i} for i in range(4)], splits)
    levels = 1 - table.confidence
    assert levels.tolist() == pytest.approx([0.05 / 4] * 4)  # Bonferroni over the 4 rows
    for row, one in zip(table.itertuples(), splits, strict=True):
        welch = sps.ttest_ind(one.on, one.off, equal_var=False)
        assert row.p == pytest.approx(welch.pvalue)
        assert row.p_adjusted == pytest.approx(min(1.0, 4 * welch.pvalue))
        bounds = welch.confidence_interval(row.confidence)
        assert (row.ci_low, row.ci_high) == pytest.approx((bounds.low, bounds.high))
        # dual: the interval excludes 0 exactly when the row is significant
        assert (row.ci_low > 0 or row.ci_high < 0) == row.significant
        assert row.test == "Welch's t-test over topics"


def test_the_randomization_setting_runs_the_permutation_test():
    one = split(3, delta=0.08)
    statistics = Statistics(test="randomization", seed=5)
    row = leaked_vs_other([{}], [one], statistics, ()).iloc[0]
    assert row.p == pytest.approx(ShiftTest(one.gain, one.flags, None, 10_000, 5).p())
    assert (row.ci_low, row.ci_high) == pytest.approx(
        ShiftTest(one.gain, one.flags, None, 10_000, 5).interval(0.05)
    )
    assert row.test == "permutation test of the leaked flags over topics"


def test_a_row_too_small_to_test_is_no_test_and_not_in_the_family():
    rows = [{"collection": "c", "row": i} for i in range(3)]
    few = split(1, leaked=1, others=99)
    table = leaked_vs_other(rows, [split(0), few, split(2)])
    small = table.iloc[1]
    assert small.verdict == "cannot tell" and np.isnan(small.p) and np.isnan(small.ci_low)
    assert np.isnan(small.mde) and small.family_size == 0
    assert table.family_size.tolist() == [2, 0, 2]  # m counts the tests that ran
    assert table.p_adjusted.iloc[[0, 2]].tolist() == pytest.approx(
        correct(table.p.iloc[[0, 2]].to_numpy(), "bonferroni")
    )
    none = leaked_vs_other([{}], [Split(np.ones(10), np.zeros(10, bool))], family=()).iloc[0]
    assert none.verdict == "cannot tell" and none.leaked_topics == 0


@pytest.mark.parametrize("leaked", [MIN_TOPICS - 1, MIN_TOPICS])
def test_the_minimum_is_the_first_size_that_is_tested(leaked):
    row = leaked_vs_other([{}], [split(4, leaked=leaked)], family=()).iloc[0]
    assert (row.verdict == "cannot tell") == (leaked < MIN_TOPICS)


def test_each_verdict_says_what_the_test_found():
    statistics = Statistics()
    up = leaked_vs_other([{}], [split(7, delta=0.3)], statistics, ()).iloc[0]
    down = leaked_vs_other([{}], [split(7, delta=-0.3)], statistics, ()).iloc[0]
    flat = leaked_vs_other([{}], [split(8)], statistics, ()).iloc[0]
    assert (up.verdict, down.verdict) == ("inflated", "reversed")
    assert flat.verdict == "no evidence" and 0 < flat.mde < 0.3
    assert abs(flat.difference) < flat.mde  # it could not have been found


def test_the_minimum_detectable_difference_is_found_four_times_in_five():
    """Planting mde on the leaked topics, the test finds it in about 80% of replicates."""
    found = 0
    replicates = 400
    for seed in range(replicates):
        null = split(10_000 + seed)
        shift = minimum_detectable(null.on, null.off, 0.05)
        planted = Split(null.gain + shift * null.flags, null.flags)
        found += leaked_vs_other([{}], [planted], family=()).verdict.iloc[0] == "inflated"
    assert 0.74 <= found / replicates <= 0.86, found


def test_one_correction_for_every_table():
    """`adjust_families` is the correction of comparisons, inflation and the audit alike."""
    import pandas as pd

    table = pd.DataFrame({"collection": ["a", "a", "b"], "p": [0.01, 0.04, 0.03]})
    out = adjust_families(table, ["collection"], Statistics(correction="holm"))
    assert out.p_adjusted.tolist() == pytest.approx([0.02, 0.04, 0.03])
    assert out.family_size.tolist() == [2, 2, 1]
    assert out.significant.tolist() == [True, True, True]
