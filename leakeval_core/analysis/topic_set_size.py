"""The topics a verdict needs: topic set size design (Sakai, Information Retrieval Journal
2016; Cohen 1988).

A `no evidence` row says what its test could have found (`mde`); a researcher then asks the
converse: how many topics would it take to detect a difference δ? The answer is the sample
size of the row's own design at the row's own level (the level the family's correction
tests it at), two-sided, with power `procedures.POWER` (the mde's), from the row's own variance:

- leaked vs other topics: Student's two-sample t design, with the pooled standard deviation
  of the row's per-topic gains, keeping the row's ratio of other to leaked topics;
- a paired comparison of two systems or conditions: the paired t design, with the standard
  deviation of the per-topic differences.

Power is the noncentral t's: with effect size d = δ / sd and n the effective number of
topics (n for the paired design, n₁n₂/(n₁+n₂) for two samples), the statistic follows
t(df, d·√n), and power is its mass beyond ±t_{1−level/2, df}. The n that reaches `POWER` is
solved for as a real number, then rounded up (each group's, for two samples), which is what
statsmodels' `TTestIndPower` and `TTestPower` solve; the tests hold it to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import ceil

import numpy as np
from scipy import optimize, special

from leakeval_core.analysis.distributions import normal_quantile, normal_tail
from leakeval_core.analysis.paired import TIE_TOLERANCE
from leakeval_core.analysis.procedures import POWER

__all__ = [
    "MIN_GROUP",
    "needed_paired",
    "needed_two_sample",
    "power",
    "solve",
    "topics_needed_paired",
    "topics_needed_split",
]

MIN_GROUP = 2.0
"""The smallest (first) group the solver considers: one topic has no spread to test."""
LARGE_DF = 1e6
"""Degrees of freedom beyond which power is the normal's: t's quantiles differ from the
normal's by under 1e-6 there, far below a topic's worth, and scipy's noncentral t fails."""


def power(delta: float, sd: float, level: float, n: float, ratio: float | None = None) -> float:
    """The two-sided power of the t-test at `level` to detect a true difference `delta`
    when the values' standard deviation is `sd`: paired over `n` topics (`ratio` None), or
    two samples of `n` and `ratio`·n topics (a pooled sd)."""
    if ratio is None:
        effective, df = n, n - 1.0
    else:
        effective, df = n * ratio / (1.0 + ratio), n * (1.0 + ratio) - 2.0
    shift = abs(delta) / sd * np.sqrt(effective)
    if df <= LARGE_DF:
        # scipy.special's ufuncs: scipy.stats' nct and t, without their per-call checks,
        # which the root search would pay some thirty times a row
        critical = -special.stdtrit(df, level / 2)
        value = float(
            1.0 - special.nctdtr(df, shift, critical) + special.nctdtr(df, shift, -critical)
        )
        if np.isfinite(value):
            return value
    # the t is the normal at a huge df; scipy's noncentral t gives NaN there, and where the
    # power is 1 to many digits (a huge shift), where the normal's is 1 too
    critical = -normal_quantile(level / 2)
    return float(normal_tail(critical - shift) + normal_tail(critical + shift))


@lru_cache(maxsize=4096)
def solve(delta: float, sd: float, level: float, ratio: float | None = None) -> float | None:
    """The (real) number of topics, the first group's for two samples, at which `power`
    reaches `POWER`; None where no finite answer exists (no spread, or a δ of 0 or NaN).
    Remembered: every door asks for the same rows' topics, each a root search over the
    noncentral t."""
    if not (np.isfinite(delta) and np.isfinite(sd) and np.isfinite(level)):
        return None
    if sd <= TIE_TOLERANCE or abs(delta) <= TIE_TOLERANCE:
        return None
    if ratio is not None and not (np.isfinite(ratio) and ratio > 0):
        return None

    def short(n: float) -> float:
        return power(delta, sd, level, n, ratio) - POWER

    if short(MIN_GROUP) >= 0:
        return MIN_GROUP
    # the normal approximation undercounts a little; bracket it and widen until it holds
    z = normal_quantile(POWER) - normal_quantile(level / 2)
    guess = (z * sd / abs(delta)) ** 2 * (1.0 if ratio is None else 1.0 + 1.0 / ratio)
    high = max(2.0 * guess, 2.0 * MIN_GROUP)
    while short(high) < 0:
        high *= 2.0
    return float(optimize.brentq(short, MIN_GROUP, high, xtol=1e-9, rtol=1e-12))


def _up(n: float) -> int:
    """Rounded up, without a solver's last digit turning 40.0000000001 into 41."""
    return ceil(n - 1e-7)


def needed_two_sample(
    delta: float, sd: float, level: float, ratio: float
) -> tuple[int | None, int | None]:
    """Topics needed in each group (leaked, other), the second `ratio` times the first."""
    n = solve(delta, sd, level, ratio)
    if n is None:
        return None, None
    return _up(n), _up(n * ratio)


def needed_paired(delta: float, sd: float, level: float) -> int | None:
    """Topics needed by a paired comparison whose per-topic differences vary by `sd`."""
    n = solve(delta, sd, level)
    return None if n is None else _up(n)


def _pooled_sd(on: np.ndarray, off: np.ndarray) -> float:
    if len(on) < 2 or len(off) < 2:
        return float("nan")
    pooled = ((len(on) - 1) * on.var(ddof=1) + (len(off) - 1) * off.var(ddof=1)) / (
        len(on) + len(off) - 2
    )
    return float(np.sqrt(pooled))


def topics_needed_split(
    on: np.ndarray, off: np.ndarray, level: float, deltas: Sequence[float]
) -> list[dict]:
    """A leaked-vs-other row's `topics_needed`: per δ, the leaked and other topics its
    two-sample design needs, at the row's ratio of other to leaked topics and the pooled sd
    of its gains; None where the row cannot say (too few topics, no spread, no level)."""
    on, off = np.asarray(on, float), np.asarray(off, float)
    sd = _pooled_sd(on, off)
    ratio = len(off) / len(on) if len(on) else float("nan")
    out = []
    for delta in deltas:
        leaked, other = needed_two_sample(delta, sd, level, ratio)
        out.append({"delta": float(delta), "leaked": leaked, "other": other})
    return out


def topics_needed_paired(
    differences: np.ndarray, level: float, deltas: Sequence[float]
) -> list[dict]:
    """A paired comparison's `topics_needed`: per δ, the topics its paired design needs,
    from the sd of the per-topic differences; None where it cannot say."""
    differences = np.asarray(differences, float)
    sd = float(differences.std(ddof=1)) if len(differences) >= 2 else float("nan")
    return [{"delta": float(delta), "topics": needed_paired(delta, sd, level)} for delta in deltas]
