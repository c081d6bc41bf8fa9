"""The topics a verdict needs, held to statsmodels' power solvers (an independent
implementation of the same designs), rounded up, on normal and real per-topic gains; and
every edge a row meets (no spread, too few topics, NaN) answers None, never a crash."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.power import TTestIndPower, TTestPower

from leakeval_core.analysis.procedures import POWER
from leakeval_core.analysis.topic_set_size import (
    needed_paired,
    needed_two_sample,
    power,
    solve,
    topics_needed_paired,
    topics_needed_split,
)
from leakeval_core.evaluation.conventions import Conventions
from tests.support import realdata


def statsmodels_two_sample(delta, sd, level, ratio):
    n = TTestIndPower().solve_power(
        effect_size=delta / sd, alpha=level, power=POWER, ratio=ratio, alternative="two-sided"
    )
    n = float(np.asarray(n).item())
    return math.ceil(n), math.ceil(n * ratio)


def statsmodels_paired(delta, sd, level):
    n = TTestPower().solve_power(
        effect_size=delta / sd, alpha=level, power=POWER, alternative="two-sided"
    )
    return math.ceil(float(np.asarray(n).item()))


CASES = [  # delta, sd, level, ratio of other to leaked topics
    (0.05, 0.15, 0.05, 1.0),
    (0.02, 0.21, 0.05 / 3, 77 / 172),  # the Robust04 re-ranker, roughly
    (0.05, 0.21, 0.05 / 3, 77 / 172),
    (0.01, 0.1, 0.01, 2.5),
    (0.1, 0.3, 0.05 / 15, 29 / 21),  # Core17's 21 leaked and 29 other topics
    (0.5, 0.2, 0.05, 1.0),  # a large effect: a handful of topics
]


@pytest.mark.parametrize(("delta", "sd", "level", "ratio"), CASES)
def test_two_sample_sizes_are_statsmodels(delta, sd, level, ratio):
    assert needed_two_sample(delta, sd, level, ratio) == statsmodels_two_sample(
        delta, sd, level, ratio
    )


@pytest.mark.parametrize(("delta", "sd", "level"), [(d, s, lv) for d, s, lv, _ in CASES])
def test_paired_sizes_are_statsmodels(delta, sd, level):
    assert needed_paired(delta, sd, level) == statsmodels_paired(delta, sd, level)


@pytest.mark.parametrize("ratio", [None, 0.45, 2.0])
def test_the_power_at_the_solution_is_statsmodels_and_reaches_80_percent(ratio):
    n = solve(0.02, 0.2, 0.01, ratio)
    if ratio is None:
        theirs = TTestPower().power(0.1, n, 0.01, alternative="two-sided")
    else:
        theirs = TTestIndPower().power(0.1, n, 0.01, ratio=ratio, alternative="two-sided")
    assert power(0.02, 0.2, 0.01, n, ratio) == pytest.approx(float(theirs), abs=1e-9)
    assert power(0.02, 0.2, 0.01, n, ratio) == pytest.approx(POWER, abs=1e-8)
    # one topic fewer (first group) falls short: the rounding is up, not to nearest
    assert power(0.02, 0.2, 0.01, math.ceil(n - 1e-7) - 1, ratio) < POWER


def test_real_gains_are_sized_as_statsmodels_sizes_them():
    """Per-topic nDCG@10 gains of BM25+RM3 over BM25 on Robust04 (real runs), split at
    random into two thirds 'leaked' and the rest, sized for each default δ at a Bonferroni level."""
    import pandas as pd

    import leakeval_core as le

    robust = realdata("robust04")
    folds = sorted((robust / "runs").glob("bm25.top150.fold*.run"))
    # each fold's run holds its own 50 topics: the others are not scored 0, but dropped
    kept = Conventions(missing="drop")
    bm25 = pd.concat(
        le.score(robust / "qrels.txt", {"f": p}, "ndcg_cut_10", kept).table for p in folds
    )
    rm3 = le.score(robust / "qrels.txt", robust / "runs/bm25-rm3.top1000.run", "ndcg_cut_10")
    joined = rm3.table.merge(bm25, on=["qid", "measure"], suffixes=("", "_bm25"))
    gains = (joined.value - joined.value_bm25).to_numpy()
    assert len(gains) == 249
    flags = np.zeros(len(gains), bool)
    flags[np.random.default_rng(0).choice(len(gains), len(gains) * 2 // 3, replace=False)] = True
    on, off = gains[flags], gains[~flags]
    level = 0.05 / 3
    pooled = np.sqrt(
        ((len(on) - 1) * on.var(ddof=1) + (len(off) - 1) * off.var(ddof=1)) / (len(gains) - 2)
    )
    rows = topics_needed_split(on, off, level, (0.01, 0.02, 0.05))
    for row in rows:
        leaked, other = statsmodels_two_sample(row["delta"], pooled, level, len(off) / len(on))
        assert (row["leaked"], row["other"]) == (leaked, other)
    paired = topics_needed_paired(gains, level, (0.01, 0.02, 0.05))
    for row in paired:
        assert row["topics"] == statsmodels_paired(row["delta"], gains.std(ddof=1), level)


def test_the_shapes_a_row_carries():
    rng = np.random.default_rng(1)
    on, off = rng.normal(0, 0.2, 30), rng.normal(0, 0.2, 60)
    split = topics_needed_split(on, off, 0.05, (0.02, 0.05))
    assert [set(r) for r in split] == [{"delta", "leaked", "other"}] * 2
    assert all(isinstance(r["leaked"], int) and isinstance(r["other"], int) for r in split)
    assert split[0]["leaked"] > split[1]["leaked"]  # a smaller δ needs more topics
    # the row's ratio of other to leaked topics is kept
    assert split[0]["other"] == pytest.approx(2 * split[0]["leaked"], abs=1)
    paired = topics_needed_paired(on, 0.05, (0.02,))
    assert [set(r) for r in paired] == [{"delta", "topics"}]


@pytest.mark.parametrize(
    ("on", "off"),
    [
        (np.full(10, 0.1), np.full(12, 0.1)),  # no spread: no variance to size against
        (np.array([0.1]), np.arange(10) / 10),  # one leaked topic: no spread on that side
        (np.array([]), np.arange(10) / 10),  # none leaked
        (np.array([np.nan, 0.2, 0.3]), np.arange(10) / 10),  # a NaN gain
    ],
)
def test_a_row_that_cannot_say_answers_none(on, off):
    for row in topics_needed_split(on, off, 0.05, (0.01, 0.05)):
        assert row["leaked"] is None and row["other"] is None
    assert topics_needed_paired(on, 0.05, (0.01,))[0]["topics"] is None


def test_a_tiny_difference_needs_a_huge_but_finite_number():
    leaked, other = needed_two_sample(1e-4, 0.3, 0.001, 0.5)
    assert 10**8 < leaked < 10**9
    # statsmodels' own solver stops a few topics in 10^8 short of exact there
    theirs = statsmodels_two_sample(1e-4, 0.3, 0.001, 0.5)
    assert (leaked, other) == pytest.approx(theirs, rel=1e-7)
    # where statsmodels' noncentral t gives up, the normal's closed form is exact enough
    z = sps.norm.isf(0.001 / 2) + sps.norm.ppf(POWER)
    assert needed_paired(1e-4, 0.3, 0.001) == math.ceil((z * 0.3 / 1e-4) ** 2)


def test_a_level_of_nan_or_a_delta_of_zero_answers_none():
    assert needed_two_sample(0.02, 0.2, float("nan"), 1.0) == (None, None)
    assert needed_paired(0.0, 0.2, 0.05) is None


def test_a_huge_effect_needs_the_fewest_topics_where_scipys_noncentral_t_gives_nan():
    """δ ten times the sd: power is 1 to many digits at 4 topics, where scipy's noncentral
    t returns NaN (and statsmodels' solver gives up); the solver still answers: the
    smallest groups it considers, whose power it checks."""
    assert power(0.5, 0.05, 0.025, 4, 1.0) == pytest.approx(1.0)
    assert power(0.5, 0.05, 0.025, 2, 1.0) >= POWER
    assert needed_two_sample(0.5, 0.05, 0.025, 1.0) == (2, 2)
