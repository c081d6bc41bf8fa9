"""Paired tests over queries: one comparison of two conditions' per-query values.

Pure functions of two aligned vectors; the callers pair by query id (a join) first, and the
correction over a family of comparisons is a separate step (`corrections`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leakeval_core.analysis.inversion import shift_interval
from leakeval_core.analysis.procedures import named_test
from leakeval_core.analysis.statistics_options import Statistics, Test

__all__ = [
    "TIE_TOLERANCE",
    "PairedResult",
    "SignFlip",
    "StudentPaired",
    "Test",
    "bootstrap_ci",
    "compare_pair",
    "difference_interval",
    "paired_ttest",
    "randomization_interval",
    "randomization_test",
    "t_interval",
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


@dataclass(frozen=True)
class _Flips:
    """The randomization distribution: each sign-flipped difference vector's mean and the
    mean of its signs (which says how the mean moves when the differences are shifted)."""

    means: np.ndarray
    sign_means: np.ndarray
    exact: bool

    def p(self, hits: int) -> float:
        return hits / len(self.means) if self.exact else (1 + hits) / (1 + len(self.means))


def _flips(delta: np.ndarray, resamples: int, seed: int) -> _Flips:
    n = len(delta)
    if n <= EXACT_UP_TO:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        return _Flips(signs @ delta / n, signs.mean(axis=1), True)
    rng = np.random.default_rng(seed)
    means, sign_means = [], []
    for start in range(0, resamples, 2_000):  # bounded memory: 2,000 × n signs at a time
        signs = rng.choice((-1.0, 1.0), size=(min(2_000, resamples - start), n))
        means.append(signs @ delta / n)
        sign_means.append(signs.mean(axis=1))
    return _Flips(np.concatenate(means), np.concatenate(sign_means), False)


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
    flips = _flips(delta, resamples, seed)
    tolerance = 1e-12 * max(1.0, observed)
    return float(delta.mean()), flips.p(int(np.sum(np.abs(flips.means) >= observed - tolerance)))


def _point_interval(delta: np.ndarray) -> tuple[float, float] | None:
    """Differences that do not vary leave no uncertainty: the interval is their mean (NaN
    for none); None when they vary."""
    if len(delta) < 2 or np.ptp(delta) <= TIE_TOLERANCE:
        mean = float(delta.mean()) if len(delta) else float("nan")
        return mean, mean
    return None


def randomization_interval(
    delta: np.ndarray, alpha: float, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Every shift θ the randomization test does not reject at `alpha` (same flips, same seed).

    Shifting the differences by θ turns a flip's mean into mean* − θ·s̄ (s̄: its signs' mean)
    against the observed mean − θ, which `inversion.shift_interval` inverts exactly.
    Unbounded when `alpha` is at or below the smallest p the flips can give (2/2^n for
    n ≤ 16, 1/(1 + resamples) otherwise).
    """
    delta = np.asarray(delta, float)
    if (point := _point_interval(delta)) is not None:
        return point
    flips = _flips(delta, resamples, seed)
    return shift_interval(flips.means, flips.sign_means, float(delta.mean()), flips.exact, alpha)


def t_interval(delta: np.ndarray, alpha: float) -> tuple[float, float]:
    """The paired t-test's own interval at confidence 1 − alpha: scipy's one-sample t on the
    differences, which is the test `ttest_rel` runs."""
    from scipy import stats as sps

    delta = np.asarray(delta, float)
    if (point := _point_interval(delta)) is not None:
        return point
    ci = sps.ttest_1samp(delta, 0.0).confidence_interval(1.0 - alpha)
    return float(ci.low), float(ci.high)


def bootstrap_ci(
    delta: np.ndarray, confidence: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean difference (scipy.stats.bootstrap), seeded."""
    from scipy import stats as sps

    delta = np.asarray(delta, float)
    if (point := _point_interval(delta)) is not None:
        return point
    result = sps.bootstrap(
        (delta,),
        np.mean,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


class StudentPaired:
    """Student's paired t-test over queries, and the t interval that inverts it. It draws
    nothing: `resamples` and `seed` are taken as every paired computation is built."""

    def __init__(self, a: np.ndarray, b: np.ndarray, resamples: int = 10_000, seed: int = 0):
        self.a, self.b = np.asarray(a, float), np.asarray(b, float)

    def test(self) -> tuple[float, float]:
        return paired_ttest(self.a, self.b)

    def interval(self, level: float) -> tuple[float, float]:
        return t_interval(self.a - self.b, level)


class SignFlip:
    """The paired sign-flip randomization test, and the shifts it does not reject."""

    def __init__(self, a: np.ndarray, b: np.ndarray, resamples: int = 10_000, seed: int = 0):
        self.a, self.b = np.asarray(a, float), np.asarray(b, float)
        self.resamples, self.seed = resamples, seed

    def test(self) -> tuple[float, float]:
        return randomization_test(self.a, self.b, self.resamples, self.seed)

    def interval(self, level: float) -> tuple[float, float]:
        return randomization_interval(self.a - self.b, level, self.resamples, self.seed)


def difference_interval(
    delta: np.ndarray, level: float, statistics: Statistics
) -> tuple[float, float]:
    """The interval drawn beside a comparison tested at `level` (from `per_comparison_alpha`).

    The chosen interval's paired form (`procedures.INTERVALS`): the comparison's own test
    inverted, so it excludes 0 exactly when the comparison is significant, or a bootstrap.
    """
    drawn = statistics.interval_method.paired
    if drawn.inverts_test:
        test = statistics.procedure.paired.implementation()(
            delta, np.zeros(len(delta)), seed=statistics.seed
        )
        return test.interval(level)
    return drawn.implementation()(delta, 1.0 - level, seed=statistics.seed)


def compare_pair(a: np.ndarray, b: np.ndarray, test: Test = "ttest", seed: int = 0) -> PairedResult:
    """Everything a paper's significance table needs for one paired comparison, but its
    interval: that depends on the level the family's correction tests it at. `test` is
    looked up in `procedures.TESTS` (its paired form)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    delta = a - b
    statistic, p = named_test(test).paired.implementation()(a, b, seed=seed).test()
    sd = delta.std(ddof=1) if len(delta) > 1 else float("nan")
    if len(delta) > 1 and sd <= TIE_TOLERANCE and abs(delta.mean()) <= TIE_TOLERANCE:
        effect = 0.0  # identical: no difference at all
    elif len(delta) > 1 and sd > TIE_TOLERANCE:
        effect = float(delta.mean() / sd)
    else:
        effect = float("nan")  # one query, or one difference throughout: no spread to scale by
    return PairedResult(
        n=len(delta),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        delta=float(delta.mean()),
        statistic=statistic,
        p=p,
        effect_size=effect,
        wins=int((delta > TIE_TOLERANCE).sum()),
        ties=int((np.abs(delta) <= TIE_TOLERANCE).sum()),
        losses=int((delta < -TIE_TOLERANCE).sum()),
    )
