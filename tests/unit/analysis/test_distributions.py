"""Student's t and the normal through scipy.special are scipy.stats' own values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from leakeval_core.analysis.distributions import (
    normal_quantile,
    normal_tail,
    t_quantile,
    t_two_sided_p,
)

DFS = np.array([1.0, 2.0, 3.5, 9.0, 48.7, 250.0, 1e5])
QUANTILES = np.array([1e-6, 0.0005, 0.025, 0.2, 0.5, 0.8, 0.975, 0.9995])


def test_t_quantiles_are_scipy_stats_t_ppf():
    q, df = np.meshgrid(np.r_[0.0, QUANTILES, 1.0], np.r_[DFS, np.inf, np.nan])
    np.testing.assert_allclose(t_quantile(q, df), sps.t.ppf(q, df), rtol=1e-12, atol=1e-14)
    assert isinstance(t_quantile(0.975, 10), float)  # a scalar for scalars, as scipy gives


@pytest.mark.parametrize("df", DFS)
def test_two_sided_t_p_is_ttests_p(df):
    statistic = np.array([-40.0, -2.1, -0.3, 0.0, 0.3, 1.96, 7.5])
    np.testing.assert_allclose(
        t_two_sided_p(statistic, df), 2 * sps.t.sf(np.abs(statistic), df), rtol=1e-12
    )


def test_welch_p_through_the_t_tail_is_scipys_ttest_ind():
    rng = np.random.default_rng(3)
    on, off = rng.normal(0.1, 0.3, 9), rng.normal(0.0, 0.1, 31)
    a, b = on.var(ddof=1) / len(on), off.var(ddof=1) / len(off)
    df = (a + b) ** 2 / (a * a / (len(on) - 1) + b * b / (len(off) - 1))
    statistic = (on.mean() - off.mean()) / np.sqrt(a + b)
    expected = sps.ttest_ind(on, off, equal_var=False).pvalue
    assert t_two_sided_p(statistic, df) == pytest.approx(expected, rel=1e-12)


def test_normal_quantiles_and_tails_are_scipy_stats_norm():
    np.testing.assert_allclose(normal_quantile(QUANTILES), sps.norm.ppf(QUANTILES), rtol=1e-12)
    x = np.array([-8.0, -1.0, 0.0, 0.5, 1.96, 6.0, 12.0])
    np.testing.assert_allclose(normal_tail(x), sps.norm.sf(x), rtol=1e-12)
