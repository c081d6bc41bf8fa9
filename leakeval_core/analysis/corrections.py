"""Multiple-comparison correction over a declared family of tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leakeval_core.analysis.options import Correction
from leakeval_core.errors import LeakevalError

__all__ = ["Correction", "correct", "per_comparison_alpha"]


def _check(method: str) -> None:
    if method not in ("bonferroni", "holm", "none"):
        raise LeakevalError(f"unknown correction {method!r}; use bonferroni, holm or none")


def correct(pvalues: Sequence[float], method: Correction = "bonferroni") -> np.ndarray:
    """Adjust a family of p-values (statsmodels multipletests); `none` returns them as is."""
    _check(method)
    p = np.asarray(pvalues, float)
    if method == "none" or len(p) == 0:
        return p
    from statsmodels.stats.multitest import multipletests

    return multipletests(p, method=method)[1]


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
    order = np.argsort(p, kind="stable")
    steps = np.arange(m, 0, -1)  # m, m − 1, …, 1
    unclipped = np.maximum.accumulate(steps * p[order])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(unclipped > 0, p[order] / unclipped, 1.0 / steps)
    levels = np.empty(m)
    levels[order] = alpha * ratio
    return levels
