"""Multiple-comparison correction over a declared family of tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from leakeval_core.analysis.statistics_options import Correction, Statistics
from leakeval_core.errors import LeakevalError

__all__ = ["Correction", "adjust_families", "correct", "per_comparison_alpha"]


def _check(method: str) -> None:
    if method not in ("bonferroni", "holm", "none"):
        raise LeakevalError(f"unknown correction {method!r}; use bonferroni, holm or none")


def correct(pvalues: Sequence[float], method: Correction = "bonferroni") -> np.ndarray:
    """Adjust a family of p-values; `none` returns them as is.

    Bonferroni's m·p and Holm's step-down running maximum, both capped at 1: the values
    statsmodels' `multipletests` gives (the tests hold them together), from the same steps
    `per_comparison_alpha` tests each row at. Not statsmodels itself: its module imports
    statsmodels' regression stack and scipy.stats, which every cold start of the dashboard
    would pay for two lines of arithmetic."""
    _check(method)
    p = np.asarray(pvalues, float)
    if method == "none" or len(p) == 0:
        return p
    if method == "bonferroni":
        return np.minimum(p * len(p), 1.0)
    order, _, unclipped = _holm_steps(p)
    adjusted = np.empty(len(p))
    adjusted[order] = np.minimum(unclipped, 1.0)
    return adjusted


def _holm_steps(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Holm's order of the p-values (smallest first), each step's multiplier m − i + 1, and
    each step's unclipped adjusted p: the running maximum of (m − i + 1)·p₍ᵢ₎."""
    order = np.argsort(p, kind="stable")
    steps = np.arange(len(p), 0, -1)  # m, m − 1, …, 1
    return order, steps, np.maximum.accumulate(steps * p[order])


def per_comparison_alpha(
    pvalues: Sequence[float], method: Correction = "bonferroni", alpha: float = 0.05
) -> np.ndarray:
    """The level each comparison is tested at: p < level exactly when the adjusted p < alpha.

    An interval at confidence 1 − level therefore excludes 0 exactly when the mark beside it
    says significant. Bonferroni tests every row at α/m. Holm tests the i-th smallest p at
    α/(m − i + 1) once every smaller p has passed; a row whose adjusted p is set by an earlier
    step gets α·p/p̃, with p̃ that step's unclipped value, which keeps the equivalence.
    """
    _check(method)
    p = np.asarray(pvalues, float)
    m = len(p)
    if method == "none" or m == 0:
        return np.full(m, alpha)
    if method == "bonferroni":
        return np.full(m, alpha / m)
    order, steps, unclipped = _holm_steps(p)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(unclipped > 0, p[order] / unclipped, 1.0 / steps)
    levels = np.empty(m)
    levels[order] = alpha * ratio
    return levels


def adjust_families(
    table: pd.DataFrame, family: Sequence[str], statistics: Statistics
) -> pd.DataFrame:
    """The one family correction every table of tests uses (comparisons, inflation, the
    audit): `table.p` adjusted within each family (rows sharing the `family` columns; all
    rows when empty), with each row's family size m and the level it is tested at.

    A row without a p (too few topics to test) is no test: it is left out of its family,
    so m counts the tests that were run, and its p_adjusted and level stay NaN.
    Returns p_adjusted, family_size, significant and level, aligned with `table`.
    """
    out = pd.DataFrame(
        {"p_adjusted": np.nan, "family_size": 0, "significant": False, "level": np.nan},
        index=table.index,
    )
    tested = table[table.p.notna()]
    groups = tested.groupby(list(family), sort=False).p if family else [(None, tested.p)]
    for _, p in groups:
        values = p.to_numpy(float)
        out.loc[p.index, "p_adjusted"] = correct(values, statistics.correction)
        out.loc[p.index, "family_size"] = len(values)
        out.loc[p.index, "level"] = per_comparison_alpha(
            values, statistics.correction, statistics.alpha
        )
    out["family_size"] = out.family_size.astype(int)
    out["significant"] = (out.p_adjusted < statistics.alpha).astype(bool)
    return out
