"""Paired tests over queries: one comparison of two conditions' per-query values.

Pure functions of two aligned vectors; the callers pair by query id (a join) first, and the
correction over a family of comparisons is a separate step (`corrections`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leakeval_core.analysis.options import Test
from leakeval_core.errors import LeakevalError

__all__ = [
    "TIE_TOLERANCE",
    "PairedResult",
    "Test",
    "bootstrap_ci",
    "compare_pair",
    "paired_ttest",
    "randomization_test",
]

TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PairedResult:
    n: int
    mean_a: float
    mean_b: float
    delta: float
    statistic: float
    p: float
    ci_low: float
    ci_high: float
    effect_size: float
    """Cohen's d_z: mean difference over the standard deviation of differences."""
    wins: int
    ties: int
    losses: int


def paired_ttest(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Student's paired t-test (scipy.stats.ttest_rel), defined where scipy gives NaN.

    Identical vectors have no evidence of a difference: t = 0, p = 1. A constant non-zero
    difference has zero variance: t = ±inf, p = 0.
    """
    from scipy import stats as sps

    delta = np.asarray(a, float) - np.asarray(b, float)
    if len(delta) < 2 or np.all(np.abs(delta) <= TIE_TOLERANCE):
        return 0.0, 1.0
    if np.ptp(delta) <= TIE_TOLERANCE:
        return float(np.sign(delta.mean()) * np.inf), 0.0
    result = sps.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


EXACT_UP_TO = 16
"""Up to this many queries the randomization test enumerates all 2^n sign flips."""


def randomization_test(
    a: np.ndarray, b: np.ndarray, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Paired (sign-flip) randomization test of the mean difference, two-sided.

    Exact for n ≤ 16; otherwise `resamples` seeded random flips with the +1 correction,
    p = (1 + #{|mean*| ≥ |mean|}) / (1 + resamples), so p is never 0.
    """
    delta = np.asarray(a, float) - np.asarray(b, float)
    n = len(delta)
    observed = abs(delta.mean()) if n else 0.0
    if n == 0 or np.all(np.abs(delta) <= TIE_TOLERANCE):
        return float(delta.mean()) if n else 0.0, 1.0
    tolerance = 1e-12 * max(1.0, observed)
    if n <= EXACT_UP_TO:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        means = np.abs(signs @ delta) / n
        return float(delta.mean()), float(np.mean(means >= observed - tolerance))
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, resamples, 2_000):
        size = min(2_000, resamples - start)
        signs = rng.choice((-1.0, 1.0), size=(size, n))
        hits += int(np.sum(np.abs(signs @ delta) / n >= observed - tolerance))
    return float(delta.mean()), (1 + hits) / (1 + resamples)


def bootstrap_ci(
    delta: np.ndarray, confidence: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean difference (scipy.stats.bootstrap), seeded."""
    from scipy import stats as sps

    delta = np.asarray(delta, float)
    if len(delta) < 2 or np.ptp(delta) <= TIE_TOLERANCE:
        mean = float(delta.mean()) if len(delta) else float("nan")
        return mean, mean
    result = sps.bootstrap(
        (delta,),
        np.mean,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def compare_pair(
    a: np.ndarray, b: np.ndarray, test: Test = "ttest", seed: int = 0, confidence: float = 0.95
) -> PairedResult:
    """Everything a paper's significance table needs for one paired comparison."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    delta = a - b
    if test == "ttest":
        statistic, p = paired_ttest(a, b)
    elif test == "randomization":
        statistic, p = randomization_test(a, b, seed=seed)
    else:
        raise LeakevalError(f"unknown test {test!r}; use ttest or randomization")
    low, high = bootstrap_ci(delta, confidence, seed=seed)
    sd = delta.std(ddof=1) if len(delta) > 1 else 0.0
    effect = (
        0.0
        if sd <= TIE_TOLERANCE and abs(delta.mean()) <= TIE_TOLERANCE
        else (
            float(delta.mean() / sd)
            if sd > TIE_TOLERANCE
            else float(np.sign(delta.mean()) * np.inf)
        )
    )
    return PairedResult(
        n=len(delta),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        delta=float(delta.mean()),
        statistic=statistic,
        p=p,
        ci_low=low,
        ci_high=high,
        effect_size=effect,
        wins=int((delta > TIE_TOLERANCE).sum()),
        ties=int((np.abs(delta) <= TIE_TOLERANCE).sum()),
        losses=int((delta < -TIE_TOLERANCE).sum()),
    )
