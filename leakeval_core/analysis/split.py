"""Leaked minus other: do the topics that leaked gain more than the others?

One question, asked by inflation (a leaked-trained condition against its clean twin), the
audit (a model against a baseline that never saw the training queries), the Story and the
report, so one function answers it (`leaked_vs_other`). Per topic, the gain is in the
measure's better direction (positive is better, for a lower-is-better measure too); the
estimate is the leaked topics' mean gain minus the other topics'. The two sides are
different topics, so the test is a two-sample one:

- `ttest` (the default): Welch's t-test, which needs no equal variances. Leaked topics tend
  to gain more *and* vary more, and few topics may have leaked, which is where a pooled or
  permutation test is miscalibrated (`bench/audit_bench.py` measures both on real gains);
- `randomization`: permutation of the leaked flags over topics (within strata of the
  baseline's score where asked), exact where the assignments are few.

Each row gets an interval at the level the family's correction tests it at (the test's own,
so it excludes 0 exactly when the row is significant, or a bootstrap), the minimum
detectable difference at that level, and a verdict a reader can stand behind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product
from math import comb, prod

import numpy as np
import pandas as pd

from leakeval_core.analysis.corrections import adjust_families
from leakeval_core.analysis.distributions import t_quantile, t_two_sided_p
from leakeval_core.analysis.inversion import shift_interval
from leakeval_core.analysis.paired import TIE_TOLERANCE
from leakeval_core.analysis.procedures import POWER, TOPIC_SET_SIZE
from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.analysis.topic_set_size import topics_needed_split

__all__ = [
    "MIN_TOPICS",
    "POWER",
    "RESAMPLES",
    "VERDICTS",
    "ShiftTest",
    "Split",
    "WelchTest",
    "at_level",
    "bootstrap_interval",
    "describe",
    "leaked_vs_other",
    "minimum_detectable",
]

MIN_TOPICS = 6
"""Fewest topics on each side (leaked, other) for the test to mean anything. Below it the
answer is `cannot tell`: on real per-topic gains, Welch's test with fewer leaked topics
rejects a true null far more often than its level says (`bench/audit_bench.py`, whose
results in bench/results/audit_bench.md justify the number)."""
RESAMPLES = 10_000
"""Permutations and bootstrap draws per test: MC error of a p near 0.05 is about 0.002."""
VERDICTS = ("inflated", "reversed", "no evidence", "cannot tell")
"""`inflated`: significant after correction, leaked topics gaining more; `reversed`:
significant, leaked topics gaining less; `no evidence`: not significant (with `mde`);
`cannot tell`: too few leaked or other topics to test."""


@dataclass(frozen=True)
class Split:
    """One row's topics: each one's gain (better direction) and whether it leaked, and
    optionally the stratum a permutation keeps each topic in."""

    gain: np.ndarray
    flags: np.ndarray
    strata: np.ndarray | None = None

    @property
    def on(self) -> np.ndarray:
        return self.gain[self.flags]

    @property
    def off(self) -> np.ndarray:
        return self.gain[~self.flags]


class WelchTest:
    """Welch's two-sample t-test of mean(on) − mean(off), and the interval dual to it."""

    def __init__(self, on: np.ndarray, off: np.ndarray) -> None:
        self.on, self.off = np.asarray(on, float), np.asarray(off, float)
        self.observed = float(self.on.mean() - self.off.mean())
        self.se, self.df = _welch_se(self.on, self.off)

    @classmethod
    def of(cls, split: Split, resamples: int, seed: int) -> WelchTest:
        return cls(split.on, split.off)

    def p(self) -> float:
        if self.se <= TIE_TOLERANCE:  # no spread within either side
            return 1.0 if abs(self.observed) <= TIE_TOLERANCE else 0.0
        return float(t_two_sided_p(self.observed / self.se, self.df))

    def interval(self, level: float) -> tuple[float, float]:
        if self.se <= TIE_TOLERANCE:
            return self.observed, self.observed
        half = t_quantile(1 - level / 2, self.df) * self.se
        return self.observed - half, self.observed + half


def _welch_se(on: np.ndarray, off: np.ndarray) -> tuple[float, float]:
    """The standard error of the difference in means and Welch–Satterthwaite's df."""
    a, b = on.var(ddof=1) / len(on), off.var(ddof=1) / len(off)
    se = float(np.sqrt(a + b))
    if se <= TIE_TOLERANCE:
        return 0.0, float(len(on) + len(off) - 2)
    df = (a + b) ** 2 / (a * a / (len(on) - 1) + b * b / (len(off) - 1))
    return se, float(df)


def minimum_detectable(on: np.ndarray, off: np.ndarray, level: float) -> float:
    """The smallest true difference the test would find significant at `level` with
    probability `POWER`: (t_{1−level/2} + t_{POWER}) · SE on Welch's df, SE from the data.

    The same formula serves the permutation test, whose null distribution approaches that
    t; the calibration bench reports how often a planted difference of this size is found.
    """
    se, df = _welch_se(np.asarray(on, float), np.asarray(off, float))
    return float((t_quantile(1 - level / 2, df) + t_quantile(POWER, df)) * se)


@lru_cache(maxsize=16)
def _draws(n: int, k: int, resamples: int, seed: int) -> np.ndarray:
    """`resamples` random choices of k of n positions, seeded: the same for every model
    audited on one set of topics, so they are drawn once."""
    rng = np.random.default_rng(seed)
    picks = np.argpartition(rng.random((resamples, n)), k, axis=1)[:, :k] if k < n else None
    if picks is None:
        picks = np.tile(np.arange(n), (resamples, 1))
    picks.setflags(write=False)
    return picks


def _assignments(
    values: np.ndarray, flags: np.ndarray, strata: np.ndarray, resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per permutation of the flags within the strata: the sum of the values and the number
    of truly flagged topics among the permuted flagged ones. Every assignment when they
    number at most `resamples` (exact), else `resamples` seeded draws."""
    both = np.c_[values, flags.astype(float)]
    groups = [(both[strata == s], int(flags[strata == s].sum())) for s in np.unique(strata)]
    exact = prod(comb(len(rows), k) for rows, k in groups) <= resamples
    parts = []
    for layer, (rows, k) in enumerate(groups):
        if exact:
            picks = np.array(list(combinations(range(len(rows)), k)), dtype=int).reshape(-1, k)
        else:
            picks = _draws(len(rows), k, resamples, seed + layer)
        parts.append(rows[picks].sum(axis=1))  # (assignments, 2)
    if exact:
        totals = np.array([np.sum(chosen, axis=0) for chosen in product(*parts)])
    else:
        totals = np.sum(parts, axis=0)
    return totals[:, 0], totals[:, 1], exact


class ShiftTest:
    """The permutation test of "flagged topics gain `shift` more than the others", for every
    shift at once: p at shift 0 is the test's p, and the shifts it does not reject form the
    interval dual to it (so the interval excludes 0 exactly when p is below its level).

    Under a shift s the flagged values become v − s; for a permuted assignment its
    difference in means is then a − s·b, where a is its difference at shift 0 and b the
    share of truly flagged topics it puts on the flagged side minus the share it puts on
    the other side. One set of permutations therefore serves every shift.
    """

    def __init__(
        self,
        values: np.ndarray,
        flags: np.ndarray,
        strata: np.ndarray | None = None,
        resamples: int = RESAMPLES,
        seed: int = 0,
    ) -> None:
        values = np.asarray(values, dtype=float)
        flags = np.asarray(flags, dtype=bool)
        strata = np.zeros(len(values), int) if strata is None else np.asarray(strata)
        self.n1, self.n0 = int(flags.sum()), int((~flags).sum())
        self.observed = (
            values[flags].mean() - values[~flags].mean() if self.n1 and self.n0 else np.nan
        )
        self.spread = float(np.ptp(values)) if len(values) else 0.0
        self.exact = False
        if self.n1 and self.n0:
            sums, hits, self.exact = _assignments(values, flags, strata, resamples, seed)
            total = values.sum()
            self.a = sums / self.n1 - (total - sums) / self.n0
            self.b = hits / self.n1 - (self.n1 - hits) / self.n0

    @classmethod
    def of(cls, split: Split, resamples: int, seed: int) -> ShiftTest:
        return cls(split.gain, split.flags, split.strata, resamples, seed)

    def p(self, shift: float = 0.0) -> float:
        if not (self.n1 and self.n0):
            return float("nan")
        extreme = np.abs(self.a - shift * self.b) >= abs(self.observed - shift) - TIE_TOLERANCE
        if self.exact:
            return float(extreme.mean())
        return float((1 + extreme.sum()) / (1 + len(self.a)))

    def interval(self, level: float) -> tuple[float, float]:
        """The shifts not rejected at `level`, found exactly (`inversion.shift_interval`)."""
        if not (self.n1 and self.n0) or not np.isfinite(self.observed):
            return float("nan"), float("nan")
        if self.spread <= TIE_TOLERANCE:
            return float(self.observed), float(self.observed)
        return shift_interval(self.a, self.b, float(self.observed), self.exact, level)


def bootstrap_interval(
    on: np.ndarray, off: np.ndarray, confidence: float, resamples: int, seed: int
) -> tuple[float, float]:
    """BCa bootstrap interval of mean(on) − mean(off), each group resampled on its own."""
    from scipy import stats as sps

    if np.ptp(np.r_[on, off]) <= TIE_TOLERANCE:
        value = float(on.mean() - off.mean())
        return value, value
    result = sps.bootstrap(
        (on, off),
        lambda a, b, axis: a.mean(axis=axis) - b.mean(axis=axis),
        vectorized=True,
        n_resamples=resamples,
        confidence_level=confidence,
        method="BCa",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _test(split: Split, statistics: Statistics, resamples: int):
    """The chosen test's two-sample form (`procedures.TESTS`), on one split's topics."""
    return statistics.procedure.two_sample.implementation().of(split, resamples, statistics.seed)


def leaked_vs_other(
    rows: Sequence[Mapping[str, object]],
    splits: Sequence[Split],
    statistics: Statistics = Statistics(),
    family: Sequence[str] = ("collection",),
    resamples: int = RESAMPLES,
) -> pd.DataFrame:
    """Answer "do leaked topics gain more than the others?" once per row.

    `rows` place each answer (collection, the other factors, the model); `splits` hold its
    topics. Returns the rows with leaked_topics, other_topics, gain_leaked, gain_other,
    difference, p, p_adjusted (over the rows sharing the `family` columns, untestable rows
    left out), family_size, significant, confidence, ci_low, ci_high, mde (the smallest
    difference detected with 80% power at that level), topics_needed (per δ of
    `statistics.delta`, the leaked and other topics that would detect it at that level:
    `topic_set_size`), verdict and test.
    """
    records = []
    tests = []
    for placed, split in zip(rows, splits, strict=True):
        on, off = split.on, split.off
        testable = min(len(on), len(off)) >= MIN_TOPICS
        test = _test(split, statistics, resamples) if testable else None
        tests.append(test)
        records.append(
            {
                **placed,
                "leaked_topics": len(on),
                "other_topics": len(off),
                "gain_leaked": float(on.mean()) if len(on) else np.nan,
                "gain_other": float(off.mean()) if len(off) else np.nan,
                "difference": float(on.mean() - off.mean()) if len(on) and len(off) else np.nan,
                "p": test.p() if test is not None else np.nan,
            }
        )
    table = pd.DataFrame(records)
    if table.empty:
        return table
    present = [f for f in family if f in table.columns]
    table = pd.concat([table, adjust_families(table, present, statistics)], axis=1)
    bounds, mdes, needed = [], [], []
    for split, test, level in zip(splits, tests, table.level, strict=True):
        low, high, mde = _bounds(split, test, level, statistics, resamples)
        bounds.append((low, high))
        mdes.append(mde)
        # an untested row says nothing of what more topics would find, as its mde
        tested = level if test is not None else np.nan
        needed.append(topics_needed_split(split.on, split.off, tested, statistics.delta))
    table["confidence"] = 1 - table.level
    table["ci_low"] = [low for low, _ in bounds]
    table["ci_high"] = [high for _, high in bounds]
    table["mde"] = mdes
    table["topics_needed"] = needed
    table["verdict"] = [
        _verdict(significant, difference, p)
        for significant, difference, p in zip(
            table.significant, table.difference, table.p, strict=True
        )
    ]
    table["test"] = statistics.split_test
    return table.drop(columns="level")


def _bounds(
    split: Split, test, level: float, statistics: Statistics, resamples: int
) -> tuple[float, float, float]:
    """The interval at confidence 1 − `level` (the chosen interval's two-sample form: the
    test's own, or the bootstrap) and the minimum detectable difference at `level`; NaN for a
    row that was not tested."""
    if test is None:
        return np.nan, np.nan, np.nan
    drawn = statistics.interval_method.two_sample
    if drawn.inverts_test:
        low, high = test.interval(level)
    else:
        draw = drawn.implementation()
        low, high = draw(split.on, split.off, 1 - level, resamples, statistics.seed)
    return low, high, minimum_detectable(split.on, split.off, level)


def at_level(
    split: Split, statistics: Statistics, level: float, resamples: int = RESAMPLES
) -> dict[str, float]:
    """One split's answer at a given level, uncorrected: what the sensitivity curve draws
    at each threshold, at the level its table row is tested at."""
    on, off = split.on, split.off
    testable = min(len(on), len(off)) >= MIN_TOPICS
    test = _test(split, statistics, resamples) if testable else None
    low, high, mde = _bounds(split, test, level, statistics, resamples)
    return {
        "leaked_topics": len(on),
        "other_topics": len(off),
        "difference": float(on.mean() - off.mean()) if len(on) and len(off) else np.nan,
        "ci_low": low,
        "ci_high": high,
        "p": test.p() if test is not None else np.nan,
        "mde": mde,
    }


def describe(statistics: Statistics, family: str, strata: int = 1) -> str:
    """How every leaked-minus-other row was answered, in words, for a caption: the test, the
    correction and its family, the interval, the mde and when the answer is `cannot tell`."""
    layered = f", within {strata} strata of the baseline's score" if strata > 1 else ""
    name = statistics.interval_name("split")
    interval = (
        f"the test's own interval, the {name} (it excludes 0 exactly when the row is significant)"
        if statistics.interval_method.two_sample.inverts_test
        else f"a {name}"
    )
    return (
        f"p: {statistics.split_test}{layered}, adjusted ({statistics.correction_label}, "
        f"α = {statistics.alpha:g}) over {family}; {interval} and mde (the smallest difference "
        f"the test detects with {POWER:.0%} power) at the level the correction tests each row "
        f"at. Verdict: inflated or reversed when significant, no evidence when not, cannot "
        f"tell with fewer than {MIN_TOPICS} leaked or other topics. "
        + TOPIC_SET_SIZE.caption(statistics.delta, "split")
    )


def _verdict(significant: bool, difference: float, p: float) -> str:
    if np.isnan(p):
        return "cannot tell"
    if not significant:
        return "no evidence"
    return "inflated" if difference > 0 else "reversed"
