"""Inflation: how much of a leaked condition's gain comes from the leaked topics.

For every pair of conditions that differ only in the leakage factor, the per-query delta
(leaked − clean) is split by whether the topic has a near-duplicate in the training data.
If leakage inflates scores, the gain concentrates on leaked topics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.analysis.compare import Paired, top_inflating
from leakeval_core.analysis.corrections import Correction, correct, per_comparison_alpha
from leakeval_core.analysis.folds import PerQuery
from leakeval_core.analysis.paired import TIE_TOLERANCE, paired_ttest
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.design import Design

__all__ = ["Inflation", "inflation"]


@dataclass(frozen=True)
class Inflation:
    table: pd.DataFrame = field(repr=False)
    """Per combination of the other factors: mean delta on leaked and other topics, the
    difference, Welch's t-test of it, and paired t-tests of each group's delta against 0;
    adjusted within each collection (`family_size` rows)."""
    top: pd.DataFrame = field(repr=False)
    """The N topics with the largest inflation per combination."""


def _welch_interval(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float]:
    """Welch's interval of mean(x) − mean(y) at confidence 1 − level: dual to `_welch`."""
    from scipy import stats as sps

    if len(x) < 2 or len(y) < 2:
        return float("nan"), float("nan")
    if np.ptp(np.r_[x, y]) <= TIE_TOLERANCE:
        value = float(x.mean() - y.mean())
        return value, value
    bounds = sps.ttest_ind(x, y, equal_var=False).confidence_interval(1.0 - level)
    return float(bounds.low), float(bounds.high)


def _welch(x: np.ndarray, y: np.ndarray) -> float:
    """Welch's t-test p-value between two independent groups of deltas (different topics)."""
    from scipy import stats as sps

    if len(x) < 2 or len(y) < 2:
        return float("nan")
    if np.ptp(np.r_[x, y]) <= TIE_TOLERANCE:
        return 1.0
    return float(sps.ttest_ind(x, y, equal_var=False).pvalue)


def inflation(
    per_query: PerQuery,
    leaked: pd.DataFrame,
    design: Design,
    better: str = "higher",
    top: int = 10,
    correction: Correction = "bonferroni",
    alpha: float = 0.05,
) -> Inflation:
    """Split each leaked-vs-clean pair's per-query delta by leaked and other topics.

    `leaked` holds (collection, qid) of topics with a near-duplicate; `design` names the
    leakage factor and its leaked and clean levels. Pairs are joined by query id
    (`compare.paired`), one pair per combination of the other factors.
    """
    design.require("Inflation", "leakage")
    factor, leaked_level, clean_level = design.leakage, design.leaked, design.clean
    if factor not in per_query.factors:
        raise LeakevalError(f"unknown factor {factor!r}; factors: {', '.join(per_query.factors)}")
    levels = per_query.table[factor].unique().tolist()
    for level in (leaked_level, clean_level):
        if level not in levels:
            raise LeakevalError(f"{level!r} is not a level of {factor}: {sorted(levels)}")
    if leaked_level == clean_level:
        raise LeakevalError(
            f"the leaked and the clean level are both {leaked_level!r}: choose two levels"
        )
    others = [f for f in per_query.factors if f != factor]
    rows, groups_of_deltas = [], []
    both = _pairs(per_query.table, factor, leaked_level, clean_level, others, leaked)
    for keys, pairs in both.groupby(others, sort=True, observed=True):
        keys = keys if isinstance(keys, tuple) else (keys,)
        fixed = dict(zip(others, keys, strict=True))
        on, off = pairs[pairs.leaked].delta.to_numpy(), pairs[~pairs.leaked].delta.to_numpy()
        rows.append(
            {
                **fixed,
                "leaked_topics": len(on),
                "other_topics": len(off),
                "delta_leaked": float(on.mean()) if len(on) else float("nan"),
                "delta_other": float(off.mean()) if len(off) else float("nan"),
                "p_leaked": paired_ttest(on, np.zeros_like(on))[1] if len(on) else float("nan"),
                "p_other": paired_ttest(off, np.zeros_like(off))[1] if len(off) else float("nan"),
                "p_difference": _welch(on, off),
            }
        )
        groups_of_deltas.append((on, off))
    summary = pd.DataFrame(rows)
    if summary.empty:
        raise LeakevalError(
            f"no pair of conditions differs only in {factor} ({leaked_level} vs {clean_level})"
        )
    summary["difference"] = summary.delta_leaked - summary.delta_other
    # one family per collection, as for every comparison (compare_levels): the app, the
    # report and the CLI adjust a row over the same m whichever rows they show
    groups = summary.groupby("collection", sort=False) if "collection" in summary else None
    families = [rows.index for _, rows in groups] if groups is not None else [summary.index]
    for column in ("p_leaked", "p_other", "p_difference"):
        adjusted = pd.Series(np.nan, index=summary.index)
        for index in families:
            values = summary.loc[index, column].fillna(1.0).to_numpy()
            adjusted.loc[index] = correct(values, correction)
        summary[f"{column}_adjusted"] = adjusted
    summary["family_size"] = 0
    levels = pd.Series(alpha, index=summary.index, dtype=float)
    for index in families:
        summary.loc[index, "family_size"] = len(index)
        p = summary.loc[index, "p_difference"].fillna(1.0).to_numpy()
        levels.loc[index] = per_comparison_alpha(p, correction, alpha)
    # the difference's interval, at the level the correction tests it at (dual to the mark)
    bounds = [
        _welch_interval(on, off, level)
        for (on, off), level in zip(groups_of_deltas, levels, strict=True)
    ]
    summary["confidence"] = 1.0 - levels.to_numpy()
    summary["ci_low"] = [low for low, _ in bounds]
    summary["ci_high"] = [high for _, high in bounds]
    top_table = top_inflating(Paired(both, 0, 0), top, better, by=others).reset_index(drop=True)
    order = [*others, "qid", "a", "b", "delta", "inflation"]
    top_table = top_table[[c for c in order if c in top_table.columns]].rename(
        columns={"a": str(leaked_level), "b": str(clean_level)}
    )
    return Inflation(summary, top_table)


def _pairs(
    table: pd.DataFrame,
    factor: str,
    leaked_level: object,
    clean_level: object,
    others: list[str],
    leaked: pd.DataFrame,
) -> pd.DataFrame:
    """The other factors, qid, a (leaked level), b (clean level), delta (a − b) and leaked
    for every query both sides scored, all pairs of conditions at once: the join
    `compare.paired` makes for one pair, so the Story's first draw does not pay a merge per
    pair."""
    sides = table[table[factor].isin([leaked_level, clean_level])]
    wide = sides.set_index([*others, "qid", factor]).value.unstack(factor)
    wide = wide.reindex(columns=[leaked_level, clean_level]).set_axis(["a", "b"], axis=1)
    wide = wide.dropna().reset_index()
    wide["delta"] = wide.a - wide.b
    flags = pd.MultiIndex.from_frame(leaked[["collection", "qid"]])
    wide["leaked"] = pd.MultiIndex.from_frame(wide[["collection", "qid"]]).isin(flags)
    return wide
