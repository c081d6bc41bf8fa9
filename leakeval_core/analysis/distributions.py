"""Student's t and the normal distribution, as the tests and intervals ask for them.

These are scipy.special's ufuncs, the functions scipy.stats' `t` and `norm` call themselves,
without scipy.stats: importing it takes longer than everything else the dashboard's first
page imports beyond Streamlit and pandas, and a served app pays it on every cold start, yet
the Story asks only for a t quantile and a t tail. The tests hold each function to
scipy.stats' on a grid of arguments; the tests that need more of scipy.stats (a bootstrap, a
permutation test) import it where they run.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["normal_quantile", "normal_tail", "t_quantile", "t_two_sided_p"]


def t_quantile(q, df):
    """The q-quantile of Student's t with `df` degrees of freedom (scipy.stats.t.ppf). At
    q = 0 and 1 it is ∓∞ (nan where df is not positive), as scipy.stats says, on every scipy
    release: the ufunc alone gives +∞ at 0, and at 1 nan on scipy 1.15, +∞ on 1.17."""
    q, df = np.asarray(q, float), np.asarray(df, float)
    end = np.where(df > 0, np.inf, np.nan)
    return np.where(q == 0, -end, np.where(q == 1, end, special.stdtrit(df, q)))[()]


def t_two_sided_p(statistic, df):
    """P(|T| ≥ |statistic|) under Student's t with `df` degrees of freedom: the two-sided p
    of a t-test (scipy.stats.ttest_ind's and ttest_rel's)."""
    return 2.0 * special.stdtr(df, -np.abs(statistic))


def normal_quantile(q):
    """The standard normal's q-quantile (scipy.stats.norm.ppf)."""
    return special.ndtri(q)


def normal_tail(x):
    """P(Z ≥ x) for a standard normal Z (scipy.stats.norm.sf)."""
    return special.ndtr(-np.asarray(x, float))
