"""The leakage audit of a model without a clean-trained twin: its gain over a baseline per
topic, split by whether the topic has a near-duplicate in the training data.

The baseline (BM25, or the first stage the model re-ranks) cannot have memorised training
queries, so it stands in for each topic's difficulty: the estimate is the difference between
the mean gain on leaked topics and on the others (a difference in differences). It is tested
by permuting the leaked flags over topics, optionally within strata of the baseline's score,
so that hard and easy topics are compared with their own kind, and given a bootstrap
interval. This is observational: leaked topics may differ from the others in ways the
baseline does not measure, and the pages and the report say so.

The same per-topic view serves an experiment with twins: there the gain is the leaked
condition's over the clean one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import combinations, product
from math import comb, prod

import numpy as np
import pandas as pd
from scipy import stats as sps

from leakeval_core.analysis.compare import mean_band
from leakeval_core.analysis.corrections import Correction, correct
from leakeval_core.analysis.paired import TIE_TOLERANCE
from leakeval_core.analysis.ranking import kendall_tau_b
from leakeval_core.errors import LeakevalError

__all__ = [
    "RESAMPLES",
    "ShiftTest",
    "adjust",
    "bootstrap_interval",
    "did",
    "dose_response",
    "gain_share",
    "gains",
    "leaderboard",
    "permutation_p",
    "sensitivity",
    "strata_of",
]

RESAMPLES = 10_000
"""Permutations and bootstrap draws per test: MC error of a p near 0.05 is about 0.002."""


def gains(model: pd.Series, baseline: pd.Series, better: str) -> pd.Series:
    """Per topic (the index), how much better the model scores than the baseline, in the
    measure's own direction: positive is better, also for a lower-is-better measure."""
    joined = pd.concat([model.rename("m"), baseline.rename("b")], axis=1, join="inner").dropna()
    delta = joined.m - joined.b
    return (delta if better == "higher" else -delta).rename("gain")


def strata_of(baseline: pd.Series, groups: int) -> pd.Series:
    """Each topic's stratum: the quantile group of its baseline score (1 = one stratum)."""
    if groups <= 1 or len(baseline) < 2 * groups:
        return pd.Series(0, index=baseline.index)
    ranks = baseline.rank(method="first")
    return pd.Series(
        np.minimum((ranks.to_numpy() - 1) * groups // len(ranks), groups - 1).astype(int),
        index=baseline.index,
    )


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

    def p(self, shift: float = 0.0) -> float:
        if not (self.n1 and self.n0):
            return float("nan")
        extreme = np.abs(self.a - shift * self.b) >= abs(self.observed - shift) - TIE_TOLERANCE
        if self.exact:
            return float(extreme.mean())
        return float((1 + extreme.sum()) / (1 + len(self.a)))

    def interval(self, level: float) -> tuple[float, float]:
        """The hull of the shifts not rejected at `level` (p > level), found exactly.

        A permutation is at least as extreme as the data at shift s when
        (a − s·b)² ≥ (d − s)², a quadratic inequality in s: its solutions are an interval
        or the outside of one. Counting, along s, how many permutations are extreme gives p
        at every shift at once.
        """
        if not (self.n1 and self.n0) or not np.isfinite(self.observed):
            return float("nan"), float("nan")
        if self.spread <= TIE_TOLERANCE:
            return float(self.observed), float(self.observed)
        d, a, b = self.observed, self.a, self.b
        quad, lin, const = b * b - 1.0, -2.0 * (a * b - d), a * a - d * d
        starts, ends = [], []  # each extreme set as closed intervals, ±inf allowed
        with np.errstate(invalid="ignore", divide="ignore"):
            disc = lin * lin - 4.0 * quad * const
            root = np.sqrt(np.maximum(disc, 0.0))
            r1 = (-lin - root) / (2.0 * quad)
            r2 = (-lin + root) / (2.0 * quad)
            low, high = np.minimum(r1, r2), np.maximum(r1, r2)
            flat = np.abs(quad) <= 1e-12
            down, up = (quad < 0) & ~flat, (quad > 0) & ~flat
            # opening downwards: extreme between the roots (nowhere without them)
            inside = down & (disc >= 0)
            starts.append(low[inside])
            ends.append(high[inside])
            # opening upwards: extreme outside the roots (everywhere without them)
            everywhere = up & (disc < 0)
            outside = up & (disc >= 0)
            starts += [np.full(everywhere.sum(), -np.inf), np.full(outside.sum(), -np.inf)]
            ends += [np.full(everywhere.sum(), np.inf), low[outside]]
            starts.append(high[outside])
            ends.append(np.full(outside.sum(), np.inf))
            # linear (|b| = 1): lin·s + const ≥ 0, a half-line, or all or nothing
            line = flat & (np.abs(lin) > 1e-12)
            cut = -const[line] / lin[line]
            rising = lin[line] > 0
            starts += [cut[rising], np.full((~rising).sum(), -np.inf)]
            ends += [np.full(rising.sum(), np.inf), cut[~rising]]
            always = flat & (np.abs(lin) <= 1e-12) & (const >= -1e-12)
            starts.append(np.full(always.sum(), -np.inf))
            ends.append(np.full(always.sum(), np.inf))
        starts, ends = np.concatenate(starts), np.concatenate(ends)
        points = np.unique(np.r_[starts, ends, d][np.isfinite(np.r_[starts, ends, d])])
        # the count at each point and on each open stretch between neighbours and beyond
        probes = np.r_[points, points[0] - 1.0, (points[:-1] + points[1:]) / 2, points[-1] + 1.0]
        lefts = np.r_[points, -np.inf, points]
        rights = np.r_[points, points, np.inf]
        count = np.searchsorted(np.sort(starts), probes, side="right") - np.searchsorted(
            np.sort(ends), probes, side="left"
        )
        share = count / len(a) if self.exact else (1 + count) / (1 + len(a))
        accepted = share > level
        return float(lefts[accepted].min()), float(rights[accepted].max())


def permutation_p(
    values: np.ndarray,
    flags: np.ndarray,
    strata: np.ndarray | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> float:
    """Two-sided p of mean(values[flags]) − mean(values[~flags]) under permutations of the
    flags over topics, within each stratum (their flagged counts kept).

    Exact when all distinct assignments number at most `resamples` (then p is the share at
    least as extreme); otherwise `resamples` seeded draws, p = (1 + hits) / (1 + draws).
    """
    return ShiftTest(values, flags, strata, resamples, seed).p()


def bootstrap_interval(
    on: np.ndarray, off: np.ndarray, confidence: float, resamples: int, seed: int
) -> tuple[float, float]:
    """BCa bootstrap interval of mean(on) − mean(off), each group resampled on its own."""
    if len(on) < 2 or len(off) < 2:
        return float("nan"), float("nan")
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


def did(
    gain: pd.Series,
    flags: pd.Series,
    strata: pd.Series | None = None,
    level: float = 0.05,
    interval: str = "test",
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> dict:
    """The difference in differences for one model: its mean gain on flagged topics minus
    its mean gain on the others, its permutation p, and its interval at confidence
    1 − `level`: the shifts the permutation test does not reject (`test`, dual to p) or a
    BCa bootstrap with each group resampled (`bootstrap`)."""
    flags = flags.reindex(gain.index, fill_value=False).astype(bool)
    on, off = gain[flags].to_numpy(), gain[~flags].to_numpy()
    layers = None if strata is None else strata.reindex(gain.index).to_numpy()
    test = ShiftTest(gain.to_numpy(), flags.to_numpy(), layers, resamples, seed)
    if interval == "bootstrap":
        low, high = bootstrap_interval(on, off, 1 - level, resamples, seed)
    else:
        low, high = test.interval(level)
    return {
        "leaked_topics": len(on),
        "other_topics": len(off),
        "gain_leaked": float(on.mean()) if len(on) else float("nan"),
        "gain_other": float(off.mean()) if len(off) else float("nan"),
        "difference": float(test.observed),
        "ci_low": low,
        "ci_high": high,
        "p": test.p(),
    }


def gain_share(
    values: np.ndarray,
    flags: np.ndarray,
    confidence: float = 0.95,
    resamples: int = 2_000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """The share of a total gain that the flagged topics contribute (their summed gain over
    everyone's), with a percentile bootstrap interval over topics. NaN where there is no
    total gain to share (it is not positive)."""
    values = np.asarray(values, dtype=float)
    flags = np.asarray(flags, dtype=bool)
    total = values.sum()
    if len(values) < 2 or total <= TIE_TOLERANCE:
        return float("nan"), float("nan"), float("nan")
    share = float(values[flags].sum() / total)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(values), size=(resamples, len(values)))
    totals = values[draws].sum(axis=1)
    flagged = (values * flags)[draws].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.where(totals > TIE_TOLERANCE, flagged / totals, np.nan)
    if np.isnan(shares).mean() > 1 - confidence:
        return share, float("nan"), float("nan")  # the total gain itself is not clear
    low, high = np.nanquantile(shares, [(1 - confidence) / 2, (1 + confidence) / 2])
    return share, float(low), float(high)


def adjust(table: pd.DataFrame, family: Sequence[str], correction: Correction, alpha: float):
    """Adjust `p` within each family of rows (one collection's models, say)."""
    groups = table.groupby(list(family), sort=False) if family else [(None, table)]
    for _, rows in groups:
        table.loc[rows.index, "p_adjusted"] = correct(rows.p.fillna(1.0).to_numpy(), correction)
        table.loc[rows.index, "family_size"] = len(rows)
    table["family_size"] = table.family_size.astype(int)
    table["significant"] = table.p_adjusted < alpha
    return table


def _mean_interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """The mean and its band, as a condition's mean gets it (`compare.mean_band`)."""
    n = len(values)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if n > 1 else float("nan")
    low, high = mean_band(mean, sd, n, values.min(), values.max(), confidence)
    return mean, float(low), float(high)


def _pearson(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Pearson's r along `axis`; on ranks, Spearman's rho (vectorised for the permutations)."""
    x = x - x.mean(axis=axis, keepdims=True)
    y = y - y.mean(axis=axis, keepdims=True)
    return (x * y).sum(axis=axis) / np.sqrt((x * x).sum(axis=axis) * (y * y).sum(axis=axis))


def dose_response(
    gain: pd.Series,
    nearest: pd.DataFrame,
    threshold: float,
    bins: int = 4,
    confidence: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Does the gain grow as the nearest training query gets closer to the topic?

    `nearest` (indexed by topic) holds each topic's nearest training query: `similarity`
    (0 without any candidate) and its `category`. Returns the gain per similarity bin (bin 0:
    topics without a candidate pair; then up to `bins` quantile bins of the similarity, with
    t intervals), per category of the nearest query (topics whose nearest query is below the
    threshold form "no near-duplicate"), and the trend: Spearman's rho between similarity
    and gain over topics, with its permutation p.
    """
    table = pd.DataFrame({"gain": gain}).join(nearest, how="left")
    table["similarity"] = table.similarity.fillna(0.0)
    table["category"] = table.category.where(table.similarity >= threshold, "no near-duplicate")
    table["category"] = table.category.fillna("no near-duplicate").replace("", "no near-duplicate")
    paired = table.similarity > 0
    values = table.similarity[paired].round(6)  # equal scores in equal bins
    table["bin"] = 0
    if values.nunique() > 1:
        quantiles = pd.qcut(values, bins, labels=False, duplicates="drop")
        table.loc[paired, "bin"] = quantiles.to_numpy() + 1
    elif paired.any():  # one similarity (judged pairs given as 1.0): one bin, never none
        table.loc[paired, "bin"] = 1
    rows = []
    for position, part in table.groupby("bin", sort=True):
        mean, low, high = _mean_interval(part.gain.to_numpy(), confidence)
        rows.append(
            {
                "bin": int(position),
                "similarity_low": float(part.similarity.min()),
                "similarity_high": float(part.similarity.max()),
                "topics": len(part),
                "gain": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    categories = []
    order = ["identical", "reformulation", "specialization", "generalization"]
    for category in [*order, "no near-duplicate"]:
        part = table[table.category == category]
        if part.empty:
            continue
        mean, low, high = _mean_interval(part.gain.to_numpy(), confidence)
        categories.append(
            {
                "category": category,
                "topics": len(part),
                "gain": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    trend = {"rho": float("nan"), "p": float("nan"), "topics": len(table)}
    if len(table) >= 3 and table.similarity.nunique() > 1 and table.gain.nunique() > 1:
        result = sps.permutation_test(
            (sps.rankdata(table.similarity), sps.rankdata(table.gain)),
            _pearson,
            permutation_type="pairings",
            vectorized=True,
            n_resamples=resamples,
            rng=np.random.default_rng(seed),
        )
        trend = {"rho": float(result.statistic), "p": float(result.pvalue), "topics": len(table)}
    return pd.DataFrame(rows), pd.DataFrame(categories), trend


def sensitivity(
    gain: pd.Series,
    similarity: pd.Series,
    thresholds: Sequence[float],
    confidence: float = 0.95,
    resamples: int = 2_000,
    seed: int = 0,
) -> pd.DataFrame:
    """The difference in differences at each detection threshold: does the conclusion hold
    whichever cut-off says leaked? (`similarity`: each topic's nearest, 0 without one.)"""
    near = similarity.reindex(gain.index).fillna(0.0)
    rows = []
    for threshold in thresholds:
        flags = near >= threshold
        if flags.sum() < 2 or (~flags).sum() < 2:
            continue
        rows.append(
            {
                "threshold": float(threshold),
                **did(gain, flags, None, 1 - confidence, "test", resamples, seed),
            }
        )
    return pd.DataFrame(rows)


def leaderboard(
    scores: Mapping[str, pd.Series],
    clean: pd.Index,
    better: str,
    confidence: float = 0.95,
    resamples: int = 1_000,
    seed: int = 0,
) -> tuple[pd.DataFrame, dict]:
    """Each system's mean on all topics and on the topics without a near-duplicate, with
    t intervals, its rank on each, and Kendall's tau between the two rankings with a
    percentile bootstrap interval over topics (the topics every system scored)."""
    wide = pd.DataFrame(dict(scores)).dropna()
    if wide.empty:
        raise LeakevalError("the systems share no scored topic")
    on_clean = wide.index.isin(clean)
    rows = []
    for name in wide.columns:
        mean, low, high = _mean_interval(wide[name].to_numpy(), confidence)
        c_mean, c_low, c_high = _mean_interval(wide.loc[on_clean, name].to_numpy(), confidence)
        rows.append(
            {
                "system": name,
                "topics": len(wide),
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
                "clean_topics": int(on_clean.sum()),
                "clean_mean": c_mean,
                "clean_ci_low": c_low,
                "clean_ci_high": c_high,
            }
        )
    table = pd.DataFrame(rows)
    ascending = better == "lower"
    table["rank"] = table["mean"].rank(ascending=ascending, method="min").astype(int)
    # whole ranks, absent where a system has no clean topic
    table["clean_rank"] = table.clean_mean.rank(ascending=ascending, method="min").astype("Int64")
    table["rank_change"] = table["rank"] - table.clean_rank
    tau = {"tau": float("nan"), "tau_low": float("nan"), "tau_high": float("nan")}
    if len(wide.columns) >= 2 and on_clean.sum() >= 2:
        values = wide.to_numpy()
        tau["tau"] = float(kendall_tau_b(values.mean(0), values[on_clean].mean(0)))
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, len(values), size=(resamples, len(values)))
        drawn = values[draws]  # (draws, topics, systems)
        mask = on_clean[draws][..., None]
        all_means = drawn.mean(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            clean_means = (drawn * mask).sum(axis=1) / mask.sum(axis=1)
        taus = kendall_tau_b(all_means, clean_means)
        if np.isfinite(taus).any():
            low, high = np.nanquantile(taus, [(1 - confidence) / 2, (1 + confidence) / 2])
            tau.update(tau_low=float(low), tau_high=float(high))
    return table, tau
