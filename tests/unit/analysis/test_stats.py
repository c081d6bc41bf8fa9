"""Statistics held against scipy / statsmodels directly, on random data and on the demo."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from leakeval_core.analysis.compare import compare_levels
from leakeval_core.analysis.corrections import correct
from leakeval_core.analysis.folds import PerQuery, per_query
from leakeval_core.analysis.inflation import inflation
from leakeval_core.analysis.paired import (
    bootstrap_ci,
    compare_pair,
    paired_ttest,
    randomization_test,
)
from leakeval_core.analysis.ranking import ranking_change
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.design import Design
from leakeval_core.leakage.table import ground_truth, leaked_qids


@pytest.mark.parametrize("seed", range(5))
def test_ttest_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(60)
    b = a + rng.normal(0.02, 0.1, 60)
    expected = sps.ttest_rel(a, b)
    assert paired_ttest(a, b) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)


def test_identical_runs_give_p_one_not_nan():
    a = np.linspace(0, 1, 30)
    assert paired_ttest(a, a) == (0.0, 1.0)
    assert randomization_test(a, a)[1] == 1.0
    result = compare_pair(a, a)
    assert (result.p, result.effect_size, result.ties, result.ci_low) == (1.0, 0.0, 30, 0.0)
    assert paired_ttest(a, a + 0.1)[1] == 0.0


@pytest.mark.parametrize("n", [5, 12, 16])
def test_exact_randomization_matches_scipy_permutation_test(n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n)
    expected = sps.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), n_resamples=np.inf, permutation_type="samples"
    ).pvalue
    assert randomization_test(a, b)[1] == pytest.approx(expected, rel=1e-12)


def test_sampled_randomization_is_seeded_and_close_to_scipy():
    rng = np.random.default_rng(7)
    a = rng.random(80)
    b = a + rng.normal(0.015, 0.1, 80)
    first, again = randomization_test(a, b, seed=3), randomization_test(a, b, seed=3)
    assert first == again
    p = first[1]
    assert p * 10_001 == pytest.approx(round(p * 10_001))  # (1 + hits) / (1 + R)
    expected = sps.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), n_resamples=100_000, permutation_type="samples", rng=1
    ).pvalue
    assert p == pytest.approx(expected, abs=0.01)


def test_bootstrap_matches_scipy_and_is_seeded():
    rng = np.random.default_rng(2)
    delta = rng.normal(0.03, 0.1, 100)
    expected = sps.bootstrap(
        (delta,),
        np.mean,
        n_resamples=10_000,
        method="percentile",
        random_state=np.random.default_rng(4),
    ).confidence_interval
    assert bootstrap_ci(delta, seed=4) == pytest.approx((expected.low, expected.high))
    assert bootstrap_ci(delta, seed=4) == bootstrap_ci(delta, seed=4)
    low, high = bootstrap_ci(delta)
    assert low < delta.mean() < high


def test_effect_size_and_win_tie_loss_by_hand():
    a = np.array([0.5, 0.6, 0.7, 0.4])
    b = np.array([0.4, 0.6, 0.5, 0.5])
    result = compare_pair(a, b)
    delta = a - b
    assert result.effect_size == pytest.approx(delta.mean() / delta.std(ddof=1))
    assert (result.wins, result.ties, result.losses) == (2, 1, 1)


@pytest.mark.parametrize("method", ["bonferroni", "holm"])
def test_corrections_match_statsmodels(method):
    p = np.array([0.001, 0.02, 0.03, 0.5, 0.04])
    np.testing.assert_allclose(correct(p, method), multipletests(p, method=method)[1])
    assert correct(p, "bonferroni").tolist() == pytest.approx(np.minimum(1, p * 5).tolist())
    with pytest.raises(LeakevalError):
        correct(p, "sidak")


def test_compare_levels_on_demo_against_scipy(demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    rows = compare_levels(table, "leakage", baseline="none")
    assert len(rows) == 3 * 3 * 5
    assert set(rows.a) == {"leaked"} and set(rows.b) == {"none"}
    row = rows[
        (rows.collection == "robust04") & (rows.model == "monot5") & (rows.train_size == 4000)
    ].iloc[0]
    wide = table.table.query(
        "collection == 'robust04' and model == 'monot5' and train_size == 4000"
    ).pivot(index="qid", columns="leakage", values="value")
    expected = sps.ttest_rel(wide.leaked, wide.none)
    assert row.n == 250
    assert row.p == pytest.approx(expected.pvalue, rel=1e-10)
    # the correction family is one collection's comparisons: 3 models x 5 sizes
    assert row.family_size == 15
    assert row.p_adjusted == pytest.approx(min(1.0, expected.pvalue * 15), rel=1e-10)
    assert row.delta == pytest.approx((wide.leaked - wide.none).mean())
    all_pairs = compare_levels(table, "model")
    assert len(all_pairs) == 3 * 2 * 5 * 3


def test_compare_levels_pairs_by_query_id_not_position(demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    shuffled = table.table.sample(frac=1.0, random_state=0)
    reordered = type(table)(shuffled, table.factors, table.fold_rule, table.missing)
    pd.testing.assert_frame_equal(
        compare_levels(reordered, "leakage"), compare_levels(table, "leakage")
    )


def test_inflation_on_demo_shrinks_with_train_size(demo_experiment, demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    flags = leaked_qids(ground_truth(demo_experiment), 0.0)  # the planted pairs
    result = inflation(table, flags, demo_experiment.design)
    by_size = result.summary.groupby("train_size").delta_leaked.mean()
    assert by_size.is_monotonic_decreasing
    assert by_size.iloc[0] > 0.05
    assert not (result.summary.p_other_adjusted < 0.05).any()
    at_2000 = result.summary.query("train_size == 2000 and collection == 'robust04'")
    assert (at_2000.p_leaked_adjusted < 0.05).all()  # 250 topics: every model
    assert (result.top.groupby(["collection", "model", "train_size"]).size() <= 10).all()
    top = result.top.iloc[0]
    assert top.delta == pytest.approx(top.leaked - top.none)


def test_inflation_by_hand():
    rows = [
        ("c", lv, q, v)
        for lv, vals in (("leaked", [0.9, 0.8, 0.5, 0.5]), ("none", [0.5, 0.6, 0.5, 0.4]))
        for q, v in zip("1234", vals, strict=True)
    ]
    table = pd.DataFrame(rows, columns=["collection", "leakage", "qid", "value"])
    pq = PerQuery(table, ("collection", "leakage"), "none", pd.DataFrame())
    design = Design(leakage="leakage", leaked="leaked", clean="none")
    result = inflation(pq, pd.DataFrame({"collection": ["c", "c"], "qid": ["1", "2"]}), design)
    row = result.summary.iloc[0]
    assert row.delta_leaked == pytest.approx(0.3) and row.delta_other == pytest.approx(0.05)
    assert row.p_difference == pytest.approx(
        sps.ttest_ind([0.4, 0.2], [0.0, 0.1], equal_var=False).pvalue
    )
    assert result.top.qid.tolist() == ["1", "2"]


def test_ranking_change_on_demo(demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    taus = ranking_change(table, "model", "leakage", ["collection", "train_size"])
    assert len(taus) == 3 * 5
    pooled = taus.groupby("train_size").tau.mean()
    assert pooled.loc[2000] < 1.0
    row = taus.iloc[0]
    assert -1.0 <= row.tau <= 1.0 and " > " in row["ranking (leaked)"]


def test_condition_means_bands_stay_within_the_values_range():
    """First relevant ranks of 1, 1, 1 and 40: the t band would reach below rank 1."""
    from leakeval_core.analysis.compare import condition_means

    table = pd.DataFrame(
        {"model": "m", "qid": ["1", "2", "3", "4"], "value": [1.0, 1.0, 1.0, 40.0]}
    )
    means = condition_means(PerQuery(table, ("model",), "none", pd.DataFrame()), ["model"])
    row = means.iloc[0]
    half = sps.t.ppf(0.975, 3) * np.std([1, 1, 1, 40], ddof=1) / 2
    assert row["mean"] == 10.75 and half > 29.25  # the t band: about -20 to 42
    assert (row.ci_low, row.ci_high) == (1.0, 40.0)
