"""Multiple-comparison correction over a declared family of tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leakeval_core.analysis.options import Correction
from leakeval_core.errors import LeakevalError

__all__ = ["Correction", "correct"]


def correct(pvalues: Sequence[float], method: Correction = "bonferroni") -> np.ndarray:
    """Adjust a family of p-values (statsmodels multipletests); `none` returns them as is."""
    p = np.asarray(pvalues, float)
    if method == "none" or len(p) == 0:
        return p
    if method not in ("bonferroni", "holm"):
        raise LeakevalError(f"unknown correction {method!r}; use bonferroni, holm or none")
    from statsmodels.stats.multitest import multipletests

    return multipletests(p, method=method)[1]
