"""Statistics held against scipy / statsmodels directly, on random data and on the demo."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from leakeval_core.analysis.compare import compare_levels
from leakeval_core.analysis.corrections import correct, per_comparison_alpha
from leakeval_core.analysis.folds import PerQuery
from leakeval_core.analysis.inflation import inflation
from leakeval_core.analysis.paired import (
    bootstrap_ci,
    compare_pair,
    paired_ttest,
    randomization_interval,
    randomization_test,
    t_interval,
)
from leakeval_core.analysis.rank_agreement import ranking_change
from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.direction import Direction
from leakeval_core.experiment.design import Design


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
    assert (result.p, result.effect_size, result.ties) == (1.0, 0.0, 30)
    assert t_interval(a - a, 0.05) == (0.0, 0.0)
    assert paired_ttest(a, a + 0.1)[1] == 0.0


@pytest.mark.parametrize("n", [5, 12, 16])
def test_exact_randomization_matches_scipy_permutation_test(n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n)
    expected = sps.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), n_resamples=np.inf, permutation_type="samples"
    ).pvalue
    assert randomization_test(a, b)[1] == pytest.approx(expected, rel=1e-12)


@pytest.mark.slow
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


def test_t_interval_by_hand():
    """mean ± t(1 − α/2, n − 1) · sd / √n, at the 99.9% level Bonferroni gives 50 tests."""
    delta = np.array([0.1, 0.3, -0.05, 0.2, 0.15, 0.0])
    half = sps.t.ppf(1 - 0.001 / 2, 5) * delta.std(ddof=1) / np.sqrt(6)
    assert t_interval(delta, 0.001) == pytest.approx((delta.mean() - half, delta.mean() + half))


@pytest.mark.parametrize("n", [8, 40])
def test_randomization_interval_is_the_set_the_test_does_not_reject(n):
    """Brute force: shift the differences by θ on a fine grid and rerun the test itself."""
    rng = np.random.default_rng(n)
    delta = rng.normal(0.05, 0.2, n)
    alpha = 0.05
    low, high = randomization_interval(delta, alpha, resamples=2_000, seed=3)
    assert low < delta.mean() < high
    for theta in np.linspace(low - 0.1, high + 0.1, 161):
        p = randomization_test(delta - theta, np.zeros(n), resamples=2_000, seed=3)[1]
        inside = low + 1e-9 < theta < high - 1e-9
        outside = theta < low - 1e-9 or theta > high + 1e-9
        assert (p >= alpha) if inside else (p < alpha) if outside else True, theta


def test_randomization_interval_is_unbounded_below_the_smallest_p():
    """Five queries have 32 sign flips: the data and its mirror always count as extreme, so
    no p falls below 2/32 and no shift is rejected at α ≤ 2/32."""
    delta = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    for alpha in (0.01, 2 / 32):
        assert randomization_interval(delta, alpha) == (-np.inf, np.inf)
    low, high = randomization_interval(delta, 0.07)
    assert np.isfinite([low, high]).all() and low < 0.2 < high
    assert randomization_test(delta - high - 1e-9, np.zeros(5))[1] == 2 / 32


def test_per_comparison_alpha_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert per_comparison_alpha(p, "bonferroni", 0.05) == pytest.approx([0.0125] * 4)
    assert per_comparison_alpha(p, "none", 0.05) == pytest.approx([0.05] * 4)
    # Holm's steps: 0.005 at α/4, 0.01 at α/3, 0.03 at α/2; 0.04 at α·0.04/0.06, since the
    # third step's 2 × 0.03 = 0.06 exceeds the fourth's 0.04 and sets its adjusted p
    assert per_comparison_alpha(p, "holm", 0.05) == pytest.approx(
        [0.05 / 3, 0.05 * 0.04 / 0.06, 0.025, 0.0125]
    )


@pytest.mark.parametrize("method", ["bonferroni", "holm", "none"])
@pytest.mark.parametrize("seed", range(20))
def test_per_comparison_alpha_agree_with_the_adjusted_p(method, seed):
    p = np.random.default_rng(seed).random(12) ** 3
    for alpha in (0.01, 0.05, 0.1):
        assert ((p < per_comparison_alpha(p, method, alpha)) == (correct(p, method) < alpha)).all()


@pytest.mark.parametrize("test", ["ttest", "randomization"])
@pytest.mark.parametrize("correction", ["bonferroni", "holm", "none"])
def test_interval_excludes_zero_exactly_when_significant(test, correction):
    """The defect: a row whose interval excluded 0 read "not significant"."""
    rng = np.random.default_rng(11)
    rows = []
    for model in range(6):
        for qid in range(40):
            base = rng.random()
            for leakage, lift in (("none", 0.0), ("some", 0.02 * model), ("all", 0.04 * model)):
                value = base + lift + rng.normal(0, 0.1)
                rows.append(("c", f"m{model}", leakage, str(qid), value))
    table = pd.DataFrame(rows, columns=["collection", "model", "leakage", "qid", "value"])
    per = PerQuery(table, ("collection", "model", "leakage"), "none", pd.DataFrame())
    out = compare_levels(per, "leakage", statistics=Statistics(test, correction, 0.05))
    assert out.family_size.tolist() == [18] * 18
    excludes = (out.ci_low > 0) | (out.ci_high < 0)
    assert out.significant.any() and not out.significant.all()
    assert (excludes == out.significant).all()
    expected = per_comparison_alpha(out.p.to_numpy(float), correction, 0.05)
    assert out.confidence.to_numpy(float) == pytest.approx(1 - expected)


def test_effect_size_and_win_tie_loss_by_hand():
    a = np.array([0.5, 0.6, 0.7, 0.4])
    b = np.array([0.4, 0.6, 0.5, 0.5])
    result = compare_pair(a, b)
    delta = a - b
    assert result.effect_size == pytest.approx(delta.mean() / delta.std(ddof=1))
    assert (result.wins, result.ties, result.losses) == (2, 1, 1)


@settings(deadline=None)
@given(
    st.lists(
        st.sampled_from([0.0, 1e-4, 0.01, 0.02, 0.2, 0.5, 1.0]) | st.floats(0, 1), max_size=12
    ),
    st.sampled_from(["bonferroni", "holm"]),
)
def test_corrections_are_statsmodels_values_with_ties_zeros_and_ones(pvalues, method):
    """The corrections are computed here, not by statsmodels (`corrections.correct`): held
    to its values on any family, ties and p of 0 and 1 included."""
    if pvalues:
        expected = multipletests(pvalues, method=method)[1]
        np.testing.assert_allclose(correct(pvalues, method), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("method", ["bonferroni", "holm"])
def test_corrections_match_statsmodels(method):
    p = np.array([0.001, 0.02, 0.03, 0.5, 0.04])
    np.testing.assert_allclose(correct(p, method), multipletests(p, method=method)[1])
    assert correct(p, "bonferroni").tolist() == pytest.approx(np.minimum(1, p * 5).tolist())
    with pytest.raises(LeakevalError):
        correct(p, "sidak")


@pytest.mark.parametrize("better", ["higher", "lower"])
def test_inflation_by_hand(better):
    leaked = [0.9, 0.8, 0.5, 0.5, 0.7, 0.6, 0.6, 0.6, 0.5, 0.4, 0.3, 0.5]
    clean = [0.5, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.5, 0.3, 0.4, 0.5]
    qids = [str(q) for q in range(12)]
    rows = [
        ("c", level, q, v)
        for level, values in (("leaked", leaked), ("none", clean))
        for q, v in zip(qids, values, strict=True)
    ]
    table = pd.DataFrame(rows, columns=["collection", "leakage", "qid", "value"])
    pq = PerQuery(table, ("collection", "leakage"), "none", pd.DataFrame())
    design = Design(leakage="leakage", leaked="leaked", clean="none")
    flags = pd.DataFrame({"collection": "c", "qid": qids[:6]})
    result = inflation(pq, flags, design, Direction(better))
    row = result.table.iloc[0]
    sign = 1 if better == "higher" else -1
    delta = sign * (np.array(leaked) - np.array(clean))  # the gain, in the better direction
    assert row.gain_leaked == pytest.approx(delta[:6].mean())
    assert row.gain_other == pytest.approx(delta[6:].mean())
    assert row.p == pytest.approx(sps.ttest_ind(delta[:6], delta[6:], equal_var=False).pvalue)
    assert row.test == "Welch's t-test over topics"
    if better == "higher":
        assert result.top.qid.tolist() == ["0", "4", "1", "3", "5"]  # 2 gains nothing


@pytest.mark.parametrize("seed", range(10))
def test_kendall_tau_b_is_scipys(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 4, size=(2, 6)).astype(float)  # with ties
    expected = sps.kendalltau(x, y).statistic
    from leakeval_core.analysis.rank_agreement import kendall_tau_b

    assert kendall_tau_b(x, y) == pytest.approx(expected, nan_ok=True)


def test_ranking_interval_by_an_independent_bootstrap():
    """Three systems on 30 queries; two close ones swap under resampling. The interval and
    p_same are recomputed here with a plain loop: draw queries, mean, scipy's tau."""
    rng = np.random.default_rng(5)
    base = rng.random(30)
    lift = {"s1": 0.0, "s2": 0.01, "s3": 0.2}
    rows = [
        ("c", level, system, str(q), base[q] + lift[system] + rng.normal(0, 0.05))
        for level in ("clean", "leaked")
        for system in lift
        for q in range(30)
    ]
    table = pd.DataFrame(rows, columns=["collection", "leakage", "model", "qid", "value"])
    per = PerQuery(table, ("collection", "leakage", "model"), "none", pd.DataFrame())
    row = ranking_change(
        per, "model", "leakage", ["collection"], Direction("higher"), resamples=400, seed=2
    ).iloc[0]
    wide = table.pivot_table(index="qid", columns=["leakage", "model"], values="value")
    draws = np.random.default_rng(2).integers(0, 30, size=(400, 30))
    taus = []
    for draw in draws:
        means = wide.iloc[draw].mean()
        taus.append(sps.kendalltau(means["clean"], means["leaked"]).statistic)
    assert (row.tau_low, row.tau_high) == pytest.approx(tuple(np.quantile(taus, [0.025, 0.975])))
    assert row.p_same == pytest.approx(np.mean(np.array(taus) == 1.0))
    assert 0.0 < row.p_same < 1.0 and row.queries == 30


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


@pytest.mark.parametrize(
    "measure, expected",
    [
        ("map", (0.5 + 0.0 + 0.25) / 3),
        ("num_rel_ret", 0.5 + 0.0 + 0.25),
        ("gm_map", float(np.exp(np.mean(np.log([0.5, 1e-5, 0.25]))))),  # trec_eval's floor
    ],
)
def test_condition_means_combine_as_the_measure_does(measure, expected):
    from leakeval_core.analysis.compare import condition_means

    table = pd.DataFrame({"model": "m", "qid": ["1", "2", "3"], "value": [0.5, 0.0, 0.25]})
    per = PerQuery(table, ("model",), "none", pd.DataFrame())
    row = condition_means(per, ["model"], measure=measure).iloc[0]
    assert row["mean"] == pytest.approx(expected, rel=1e-12)
    assert np.isnan(row.ci_low) == (measure != "map")


def test_coverage_words_add_up():
    from leakeval_core.evaluation.scoring import ScoreDiagnostics

    zero = ScoreDiagnostics(250, tuple(map(str, range(200))), 0, 0, 3, 0)
    assert zero.coverage("zero") == (
        "250 queries in the means: 50 retrieved by the run, 200 absent from it, scored 0"
    )
    dropped = ScoreDiagnostics(50, tuple(map(str, range(200))), 0, 0, 3, 0)
    assert dropped.coverage("drop") == (
        "50 queries in the means, all retrieved by the run; 200 judged queries absent from it, "
        "dropped"
    )
    assert ScoreDiagnostics(50, (), 0, 0, 0, 0).coverage("zero") == (
        "50 queries in the means, all retrieved by the run"
    )


def test_an_effect_size_without_spread_is_undefined_not_infinite():
    """The defect: an upload's near-duplicate row with one topic showed effect size -Infinity."""
    from leakeval_core.analysis.paired import compare_pair

    assert np.isnan(compare_pair(np.array([0.2]), np.array([0.5])).effect_size)
    assert np.isnan(compare_pair(np.array([0.2, 0.3]), np.array([0.5, 0.6])).effect_size)
    assert compare_pair(np.array([0.2, 0.3]), np.array([0.2, 0.3])).effect_size == 0.0
