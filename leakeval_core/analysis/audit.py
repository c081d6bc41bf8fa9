"""The leakage audit of a model without a clean-trained twin: its gain over a baseline per
topic, split by whether the topic has a near-duplicate in the training data.

The baseline (BM25, or the first stage the model re-ranks) cannot have memorised training
queries, so it stands in for each topic's difficulty: the estimate is the difference between
the mean gain on leaked topics and on the others (a difference in differences), answered by
`split.leaked_vs_other` like every leaked-minus-other question (a permutation of the flags
may keep each topic within its stratum of the baseline's score, so that hard and easy topics
are compared with their own kind). This is observational: leaked topics may differ from the
others in ways the baseline does not measure, and the pages and the report say so.

The same per-topic view serves an experiment with twins: there the gain is the leaked
condition's over the clean one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from leakeval_core.analysis.compare import mean_band
from leakeval_core.analysis.paired import TIE_TOLERANCE
from leakeval_core.analysis.procedures import MANY_SYSTEMS
from leakeval_core.analysis.rank_agreement import kendall_tau_b
from leakeval_core.analysis.split import MIN_TOPICS, RESAMPLES, Split, at_level
from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.direction import Direction

__all__ = [
    "TOPIC_SETS",
    "dose_response",
    "gain_share",
    "gains",
    "leaderboard",
    "sensitivity",
    "similarity_trend",
    "strata_of",
]


def gains(model: pd.Series, baseline: pd.Series, direction: Direction) -> pd.Series:
    """Per topic (the index), how much better the model scores than the baseline, in the
    measure's own direction: positive is better, also for a lower-is-better measure."""
    joined = pd.concat([model.rename("m"), baseline.rename("b")], axis=1, join="inner").dropna()
    return direction.orient(joined.m - joined.b).rename("gain")


def strata_of(baseline: pd.Series, groups: int) -> pd.Series:
    """Each topic's stratum: the quantile group of its baseline score (1 = one stratum)."""
    if groups <= 1 or len(baseline) < 2 * groups:
        return pd.Series(0, index=baseline.index)
    ranks = baseline.rank(method="first")
    return pd.Series(
        np.minimum((ranks.to_numpy() - 1) * groups // len(ranks), groups - 1).astype(int),
        index=baseline.index,
    )


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
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Does the gain grow as the nearest training query gets closer to the topic?

    `nearest` (indexed by topic) holds each topic's nearest training query: `similarity`
    (0 without any candidate) and its `category`. Returns the gain per similarity bin (bin 0:
    topics without a candidate pair; then up to `bins` quantile bins of the similarity, with
    t intervals), per category of the nearest query (topics whose nearest query is below the
    threshold form "no near-duplicate"). The trend over topics is `similarity_trend`'s.
    """
    table = _with_nearest(gain, nearest)
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
    return pd.DataFrame(rows), pd.DataFrame(categories)


def _with_nearest(gain: pd.Series, nearest: pd.DataFrame) -> pd.DataFrame:
    """Each topic's gain beside its nearest training query (similarity 0 without one)."""
    table = pd.DataFrame({"gain": gain}).join(nearest, how="left")
    table["similarity"] = table.similarity.fillna(0.0)
    return table


def similarity_trend(
    gain: pd.Series, nearest: pd.DataFrame, resamples: int = RESAMPLES, seed: int = 0
) -> dict:
    """Spearman's rho between each topic's nearest similarity and its gain, with its
    permutation p (`nearest` as for `dose_response`). Apart from the bins: the Story shows
    the categories, and this test is the one thing of an audit that needs scipy.stats, whose
    import a cold start would otherwise wait for."""
    from scipy import stats as sps

    table = _with_nearest(gain, nearest)
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
    return trend


def sensitivity(
    gain: pd.Series,
    similarity: pd.Series,
    thresholds: Sequence[float],
    statistics: Statistics,
    level: float,
    resamples: int = 2_000,
) -> pd.DataFrame:
    """The leaked-minus-other answer at each detection threshold, with the same test and at
    the same level as the row it belongs to: does the conclusion hold whichever cut-off says
    leaked? (`similarity`: each topic's nearest, 0 without one.) Thresholds that leave too
    few topics on a side to test are left out."""
    near = similarity.reindex(gain.index).fillna(0.0)
    rows = []
    for threshold in thresholds:
        flags = (near >= threshold).to_numpy()
        if min(flags.sum(), (~flags).sum()) < MIN_TOPICS:
            continue
        answer = at_level(Split(gain.to_numpy(), flags), statistics, level, resamples)
        rows.append({"threshold": float(threshold), "confidence": 1 - level, **answer})
    return pd.DataFrame(rows)


TOPIC_SETS = ("all", "clean")
"""The leaderboard's two sets of topics: every topic all systems scored, and those of them
without a near-duplicate (not leaked under the one leaked rule)."""


def leaderboard(
    scores: Mapping[str, pd.Series],
    clean: pd.Index,
    direction: Direction,
    confidence: float = 0.95,
    resamples: int = 1_000,
    seed: int = 0,
    alpha: float = 0.05,
    permutations: int = MANY_SYSTEMS.resamples,
) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """Each system's mean on all topics and on the topics without a near-duplicate, with
    t intervals (raw values), its rank on each (by the measure's direction: rank 1 is the
    best), and Kendall's tau between the two rankings with a
    percentile bootstrap interval over topics (the topics every system scored).

    On each set of topics the randomised Tukey HSD test (`tukey.standings`, `permutations`
    of them, at `alpha`) gives each system its group letters and rank interval (`group`,
    `rank_low`, `rank_high`; `clean_` before each for the clean topics), and the pairs: per
    topic set (`topics`: all or clean, over `n_topics`), a and b (the better-ranked first),
    their difference in the better direction and its p."""
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
    best_first = {"ascending": False, "method": "min"}
    table["rank"] = direction.orient(table["mean"]).rank(**best_first).astype(int)
    # whole ranks, absent where a system has no clean topic
    table["clean_rank"] = direction.orient(table.clean_mean).rank(**best_first).astype("Int64")
    table["rank_change"] = table["rank"] - table.clean_rank
    pairs = []
    standings = MANY_SYSTEMS.implementation()
    for topics, part in zip(TOPIC_SETS, (wide, wide[on_clean]), strict=True):
        prefix = "" if topics == "all" else f"{topics}_"
        if part.empty:  # no clean topic: no group, no rank interval
            for column in ("group", "rank_low", "rank_high"):
                table[f"{prefix}{column}"] = None
            continue
        standing = standings(part, direction.orient, alpha, permutations, seed)
        placed = standing.systems.set_index("system")
        for column in ("group", "rank_low", "rank_high"):
            table[f"{prefix}{column}"] = table.system.astype(str).map(placed[column])
        pairs.append(standing.pairs.assign(topics=topics, n_topics=len(part)))
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
    first = ["topics", "n_topics"]
    pairs = pd.concat(pairs, ignore_index=True)
    return table, tau, pairs[[*first, *(c for c in pairs.columns if c not in first)]]
