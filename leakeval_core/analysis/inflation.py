"""Inflation: how much of a leaked condition's gain comes from the leaked topics.

For every pair of conditions that differ only in the leakage factor, the per-query delta
(leaked − clean) is split by whether the topic has a near-duplicate in the training data.
If leakage inflates scores, the gain concentrates on leaked topics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from leakeval_core.analysis.compare import Paired, top_inflating
from leakeval_core.analysis.folds import PerQuery
from leakeval_core.analysis.split import Split, leaked_vs_other
from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.direction import Direction
from leakeval_core.experiment.design import Design

__all__ = ["InflationTables", "inflation"]


@dataclass(frozen=True)
class InflationTables:
    """What `inflation` computes; the API's `Inflation` result adds the measure, the leakage
    threshold and source, and the caption."""

    table: pd.DataFrame = field(repr=False)
    """Per combination of the other factors: the leaked-minus-other answer
    (`split.leaked_vs_other`) for the leaked condition's per-topic gain over its clean twin,
    adjusted within each collection (`family_size` rows)."""
    top: pd.DataFrame = field(repr=False)
    """The N topics with the largest inflation per combination."""
    gains: pd.DataFrame = field(repr=False)
    """Every topic both sides of a pair scored: the other factors, qid, a (leaked level)
    and b (clean level) as scored, delta (a − b, raw), gain (delta in the measure's better
    direction) and leaked: what `table` and `top` were computed from, for the Story."""


def inflation(
    per_query: PerQuery,
    leaked: pd.DataFrame,
    design: Design,
    direction: Direction,
    top: int = 10,
    statistics: Statistics = Statistics(),
    comparisons: Sequence[tuple[str, str]] = (),
    other: str = "other",
) -> InflationTables:
    """Split each leaked-vs-clean pair's per-query gain by leaked and other topics.

    `leaked` holds (collection, qid) of topics with a near-duplicate; `design` names the
    leakage factor and its leaked and clean levels. Pairs are joined by query id
    (`compare.paired`), one pair per combination of the other factors; the gain is
    leaked − clean in the measure's better direction. With `comparisons` (pairs of kinds of
    topic), `leaked` has a `leak` column naming each topic's kind (`other` for the topics it
    lacks), and each pair of conditions gets a row per comparison, named in a `split`
    column: the first kind's topics against the second's, all in the collection's family.
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
    both = _pairs(per_query.table, factor, leaked_level, clean_level, others, leaked)
    both.insert(both.columns.get_loc("delta") + 1, "gain", direction.orient(both.delta))
    rows, splits = [], []
    if comparisons:
        kinds = leaked.set_index(["collection", "qid"]).leak
        index = pd.MultiIndex.from_frame(both[["collection", "qid"]])
        both["leak"] = kinds.reindex(index).fillna(other).to_numpy()
    for keys, pairs in both.groupby(others, sort=True, observed=True):
        keys = keys if isinstance(keys, tuple) else (keys,)
        placed = dict(zip(others, keys, strict=True))
        if not comparisons:
            rows.append(placed)
            splits.append(Split(pairs.gain.to_numpy(), pairs.leaked.to_numpy()))
        for first, second in comparisons:
            kept = pairs[pairs.leak.isin([first, second])]
            rows.append({**placed, "split": f"{first} vs {second}"})
            splits.append(Split(kept.gain.to_numpy(), (kept.leak == first).to_numpy()))
    if not rows:
        raise LeakevalError(
            f"no pair of conditions differs only in {factor} ({leaked_level} vs {clean_level})"
        )
    # one family per collection, as for every comparison (compare_levels): the app, the
    # report and the CLI adjust a row over the same m whichever rows they show
    summary = leaked_vs_other(rows, splits, statistics, ("collection",))
    top_table = top_inflating(Paired(both, 0, 0), direction, top, by=others).reset_index(drop=True)
    order = [*others, "qid", "a", "b", "delta", "inflation"]
    top_table = top_table[[c for c in order if c in top_table.columns]].rename(
        columns={"a": str(leaked_level), "b": str(clean_level)}
    )
    return InflationTables(summary, top_table, both)


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
