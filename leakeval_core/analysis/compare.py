"""Views on the per-query table that the pages share: condition means, A-vs-B pairs.

Pairing is always a join on (collection, qid); queries only one side has are reported, never
silently aligned by position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.analysis.corrections import adjust_families
from leakeval_core.analysis.distributions import t_quantile
from leakeval_core.analysis.folds import Levels, PerQuery, select
from leakeval_core.analysis.paired import TIE_TOLERANCE, compare_pair, difference_interval
from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.analysis.topic_set_size import topics_needed_paired
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.direction import Direction

__all__ = [
    "Paired",
    "compare_levels",
    "condition_label",
    "condition_means",
    "mean_band",
    "paired",
    "paired_wide",
    "query_along",
    "rank_changes",
    "top_inflating",
    "versus_condition",
]


def condition_label(levels: Levels) -> str:
    return ", ".join(f"{k}={v}" for k, v in levels.items())


def condition_means(
    per_query: PerQuery,
    by: Sequence[str],
    fixed: Levels | None = None,
    confidence: float = 0.95,
    measure: str | None = None,
) -> pd.DataFrame:
    """Each condition's value over queries (`mean`), with a t confidence interval.

    Each query contributes one value per condition (folds were combined in `per_query`), so
    the interval reflects topic variance, not fold × query pseudo-replicates. The interval is
    kept within the values' own range (a mean cannot leave it): a skewed measure such as the
    first relevant rank otherwise gets a band below rank 1. A measure that trec_eval combines
    otherwise (`measure`: a sum for the num_* counts, a floored geometric mean for gm_*) is
    combined its way, and has no t interval.
    """
    from leakeval_core.evaluation.scoring import aggregate, aggregation

    table = select(per_query.table, fixed or {}).dropna(subset=["value"])
    grouped = table.groupby(list(by), observed=True, sort=True).value
    out = grouped.agg(n="count", mean="mean", sd="std", low="min", high="max").reset_index()
    if measure is not None and aggregation(measure) != "mean":
        combined = grouped.agg(lambda values: aggregate(measure, values.to_numpy()))
        out["mean"] = combined.to_numpy()
        out["ci_low"] = out["ci_high"] = np.nan
        return out.drop(columns=["low", "high"])
    out["ci_low"], out["ci_high"] = mean_band(
        out["mean"], out.sd, out.n, out.low, out.high, confidence
    )
    return out.drop(columns=["low", "high"])


def mean_band(mean, sd, n, lowest, highest, confidence: float = 0.95):
    """The t interval of a mean of n values (sd their standard deviation), kept within the
    values' own range [lowest, highest]: a mean cannot leave it, and a skewed measure such as
    the first relevant rank would otherwise get a band below rank 1. One value has no spread:
    its band is the value. Scalars or arrays; every mean with a band (a condition's, a
    system's on the leaderboard, a gain per bin) is drawn with this one."""
    mean, sd, n = np.asarray(mean, float), np.asarray(sd, float), np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = t_quantile(0.5 + confidence / 2, np.maximum(n - 1, 1)) * sd / np.sqrt(n)
    half = np.where(np.isfinite(half), half, 0.0)
    return np.maximum(mean - half, lowest), np.minimum(mean + half, highest)


@dataclass(frozen=True)
class Paired:
    table: pd.DataFrame = field(repr=False)
    """qid, a, b, delta (a − b), leaked."""
    only_a: int
    only_b: int


def paired(per_query: PerQuery, a: Levels, b: Levels, leaked: pd.DataFrame | None = None) -> Paired:
    """Join conditions A and B on query id; `leaked` (collection, qid) flags topics."""
    if a.get("collection") != b.get("collection"):
        raise LeakevalError("conditions A and B must be on the same collection to be paired")
    side_a = select(per_query.table, a)[["collection", "qid", "value"]]
    side_b = select(per_query.table, b)[["collection", "qid", "value"]]
    joined = side_a.merge(
        side_b, on=["collection", "qid"], how="outer", suffixes=("_a", "_b"), indicator=True
    )
    only_a = int((joined._merge == "left_only").sum())
    only_b = int((joined._merge == "right_only").sum())
    both = joined[joined._merge == "both"].rename(columns={"value_a": "a", "value_b": "b"})
    both = both.drop(columns="_merge").reset_index(drop=True)
    both["delta"] = both.a - both.b
    flags = set() if leaked is None else set(zip(leaked.collection, leaked.qid, strict=True))
    both["leaked"] = [(c, q) in flags for c, q in zip(both.collection, both.qid, strict=True)]
    return Paired(both, only_a, only_b)


def query_along(per_query: PerQuery, a: Levels, b: Levels, qid: str, factor: str) -> pd.DataFrame:
    """One query's A, B and A − B at every level of `factor` (A's and B's other levels kept):
    does its gain from leakage shrink as the training data grows?"""
    rows = per_query.table[per_query.table.qid == qid]
    sides = [
        select(rows, {k: v for k, v in levels.items() if k != factor})
        .set_index(factor)
        .value.rename(name)
        for levels, name in ((a, "A"), (b, "B"))
    ]
    out = pd.concat(sides, axis=1, join="inner").sort_index()
    out["A − B"] = out.A - out.B
    return out.rename_axis(factor).reset_index()


def paired_wide(
    per_queries: Mapping[str, PerQuery], a: Levels, b: Levels, leaked: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Every measure for A and B side by side, one row per query both conditions scored."""
    wide = None
    for label, table in per_queries.items():
        part = paired(table, a, b, leaked).table.rename(
            columns={"a": f"{label} A", "b": f"{label} B", "delta": f"{label} A−B"}
        )
        if wide is None:
            wide = part
        else:
            wide = wide.merge(part.drop(columns="leaked"), on=["collection", "qid"], how="outer")
    if wide is None:
        raise LeakevalError("no measure to pair")
    return wide


def top_inflating(
    pairs: Paired, direction: Direction, n: int = 10, by: Sequence[str] = ()
) -> pd.DataFrame:
    """Leaked topics where A beats B most: the queries that inflate A's score; with `by`,
    the top `n` within each combination of those columns (in their sorted order).

    `delta` stays A − B as scored; `inflation` is A's gain in the measure's better
    direction (B − A for the first relevant rank), and the order is by it.
    """
    table = pairs.table[pairs.table.leaked].copy()
    table["inflation"] = direction.orient(table.delta)
    table = table[table.inflation > TIE_TOLERANCE]  # a tie or a loss inflates nothing
    order = [*by, "inflation", "qid"]
    table = table.sort_values(order, ascending=[*(True for _ in by), False, True])
    return table.groupby(list(by), sort=False).head(n) if by else table.head(n)


def rank_changes(list_a: pd.DataFrame, list_b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each list with `other rank` and `moved` (positions gained vs the other list).

    `moved` is positive when a document sits higher here than in the other list; documents
    the other list does not retrieve (within depth) have no other rank.
    """

    def annotate(mine: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
        out = mine.merge(
            other[["docid", "rank"]].rename(columns={"rank": "other rank"}), on="docid", how="left"
        )
        out["moved"] = out["other rank"] - out["rank"]
        return out

    return annotate(list_a, list_b), annotate(list_b, list_a)


def compare_levels(
    per_query: PerQuery,
    vary: str,
    baseline: object | None = None,
    statistics: Statistics = Statistics(),
    family: Sequence[str] = ("collection",),
) -> pd.DataFrame:
    """Compare the levels of one factor within every combination of the others.

    Rows pair queries by id (inner join); each row's `n` says how many were shared. The
    correction runs over one family of tests: every comparison of this factor's levels within
    one level of the `family` factors (by default one collection, as in DESIGN.md). The app,
    the report and the CLI all correct this way, so a comparison has one adjusted p wherever
    it is shown; `family_size` is the m it was corrected over. An empty `family` makes the
    whole output one family. Each row's interval is at `confidence`, the level the correction
    tests that row at (`per_comparison_alpha`), so it excludes 0 exactly when `significant` says so.
    `baseline` (one level or a list): each other level against each, in one family; without
    it, every pair of levels.
    """
    if vary not in per_query.factors:
        raise LeakevalError(f"unknown factor {vary!r}; factors: {', '.join(per_query.factors)}")
    others = [f for f in per_query.factors if f != vary]
    table = per_query.table.dropna(subset=["value"])
    levels = sorted(table[vary].unique().tolist())
    if not levels:  # first relevant rank where no document reaches the relevance level
        raise LeakevalError("no query has a value of this measure here: nothing to compare")
    if len(levels) < 2:
        raise LeakevalError(
            f"{vary} has one level ({', '.join(map(str, levels))}): nothing to compare"
        )
    bases = list(baseline) if isinstance(baseline, list | tuple) else [baseline]
    bases = [base for base in bases if base is not None]
    for base in bases:
        if base not in levels:
            raise LeakevalError(f"baseline {base!r} is not a level of {vary}: {levels}")
    # each level against each baseline, baseline by baseline; never a baseline against another
    pairs = (
        [(lv, base) for base in bases for lv in levels if lv not in bases]
        if bases
        else [(x, y) for i, x in enumerate(levels) for y in levels[i + 1 :]]
    )
    rows, deltas = [], []
    for keys, group in table.groupby(others, observed=True, sort=True) if others else [((), table)]:
        keys = keys if isinstance(keys, tuple) else (keys,)
        wide = group.pivot_table(index="qid", columns=vary, values="value", observed=True)
        for level_a, level_b in pairs:
            if level_a not in wide or level_b not in wide:
                continue
            both = wide[[level_a, level_b]].dropna()
            a, b = both[level_a].to_numpy(), both[level_b].to_numpy()
            result = compare_pair(a, b, statistics.test, statistics.seed)
            deltas.append(a - b)
            rows.append(
                {
                    **dict(zip(others, keys, strict=True)),
                    "a": level_a,
                    "b": level_b,
                    **result.__dict__,
                }
            )
    columns = [
        *others,
        "a",
        "b",
        "n",
        "mean_a",
        "mean_b",
        "delta",
        "statistic",
        "p",
        "p_adjusted",
        "family_size",
        "significant",
        "confidence",
        "ci_low",
        "ci_high",
        "effect_size",
        "wins",
        "ties",
        "losses",
        "topics_needed",
    ]
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=columns)
    return _finish_family(out, deltas, statistics, [f for f in family if f in out.columns])[columns]


def _finish_family(
    out: pd.DataFrame, deltas: list[np.ndarray], statistics: Statistics, family: list[str]
) -> pd.DataFrame:
    """Adjust `out`'s p within each family (`adjust_families`) and add each row's interval
    at the level the correction tests it at, and the topics its paired design needs to
    detect each δ there (`topic_set_size`): one definition for every table of comparisons."""
    out = pd.concat([out, adjust_families(out, family, statistics)], axis=1)
    out["confidence"] = 1.0 - out.level
    bounds = [
        difference_interval(delta, level, statistics)
        for delta, level in zip(deltas, out.level, strict=True)
    ]
    out["ci_low"] = [low for low, _ in bounds]
    out["ci_high"] = [high for _, high in bounds]
    out["topics_needed"] = [
        topics_needed_paired(delta, level, statistics.delta)
        for delta, level in zip(deltas, out.level, strict=True)
    ]
    return out.drop(columns="level")


def versus_condition(
    values: pd.Series,
    per_query: PerQuery,
    levels: Levels,
    leaked: pd.DataFrame | None = None,
    statistics: Statistics = Statistics(),
) -> tuple[pd.DataFrame, int, int]:
    """An outside run (an upload) against one condition of the experiment, query by query.

    `values` is the run's per-query score indexed by qid, on the collection `levels` names.
    Rows: all paired topics, then (with `leaked`) the topics with a near-duplicate and the
    others; one family, so each row is adjusted over the rows of this table. Returns the
    table and how many topics only the run, and only the condition, scored.
    """
    condition = select(per_query.table, levels).dropna(subset=["value"])
    joined = pd.merge(
        values.rename("a").rename_axis("qid").reset_index(),
        condition[["qid", "value"]].rename(columns={"value": "b"}),
        on="qid",
        how="outer",
        indicator=True,
    )
    only_run = int((joined._merge == "left_only").sum())
    only_condition = int((joined._merge == "right_only").sum())
    both = joined[joined._merge == "both"]
    flags = (
        set() if leaked is None else set(leaked.qid[leaked.collection == levels.get("collection")])
    )
    is_leaked = both.qid.isin(flags).to_numpy()
    groups = {"all topics": np.ones(len(both), bool)}
    if leaked is not None:
        groups |= {"topics with a near-duplicate": is_leaked, "other topics": ~is_leaked}
    rows, deltas = [], []
    for group, mask in groups.items():
        a, b = both.a.to_numpy(float)[mask], both.b.to_numpy(float)[mask]
        if len(a) == 0:
            continue
        result = compare_pair(a, b, statistics.test, statistics.seed)
        rows.append({"topics": group, **result.__dict__})
        deltas.append(a - b)
    if not rows:
        raise LeakevalError(
            f"the run and the condition {condition_label(levels)} share no scored topic"
        )
    return _finish_family(pd.DataFrame(rows), deltas, statistics, []), only_run, only_condition
