"""Views on the per-query table that the pages share: condition means, A-vs-B pairs.

Pairing is always a join on (collection, qid); queries only one side has are reported, never
silently aligned by position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as sps

from leakeval_core.analysis.stats import PerQuery
from leakeval_core.errors import LeakevalError

__all__ = [
    "Paired",
    "condition_label",
    "condition_means",
    "paired",
    "paired_wide",
    "rank_changes",
    "select",
    "significance_marks",
    "top_inflating",
]

Levels = Mapping[str, object]


def select(table: pd.DataFrame, levels: Levels) -> pd.DataFrame:
    """Rows whose factor columns equal the given levels."""
    mask = np.ones(len(table), dtype=bool)
    for factor, level in levels.items():
        if factor not in table.columns:
            raise LeakevalError(f"unknown factor {factor!r}")
        mask &= (table[factor] == level).to_numpy()
    return table[mask]


def condition_label(levels: Levels) -> str:
    return ", ".join(f"{k}={v}" for k, v in levels.items())


def condition_means(
    per_query: PerQuery, by: Sequence[str], fixed: Levels | None = None, confidence: float = 0.95
) -> pd.DataFrame:
    """Mean per condition with a t confidence interval over queries.

    Each query contributes one value per condition (folds were combined in `per_query`), so
    the interval reflects topic variance, not fold × query pseudo-replicates.
    """
    table = select(per_query.table, fixed or {}).dropna(subset=["value"])
    grouped = table.groupby(list(by), observed=True, sort=True).value
    out = grouped.agg(n="count", mean="mean", sd="std").reset_index()
    sem = out.sd / np.sqrt(out.n)
    half = sps.t.ppf(0.5 + confidence / 2, np.maximum(out.n - 1, 1)) * sem
    out["ci_low"] = out["mean"] - half.fillna(0.0)
    out["ci_high"] = out["mean"] + half.fillna(0.0)
    return out


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


def top_inflating(pairs: Paired, n: int = 10, better: str = "higher") -> pd.DataFrame:
    """Leaked topics where A beats B most: the queries that inflate A's score.

    For a lower-is-better measure (first relevant rank), inflation is B − A.
    """
    table = pairs.table[pairs.table.leaked].copy()
    table["inflation"] = table.delta if better == "higher" else -table.delta
    return table.sort_values(["inflation", "qid"], ascending=[False, True]).head(n)


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


def significance_marks(comparisons: pd.DataFrame, x: str, facet: str | None) -> pd.DataFrame:
    """One mark per (x, facet) position where any compared pair is significant.

    `comparisons` comes from stats.compare_levels; the label lists the significant pairs with
    their adjusted p-values, for the hover text.
    """
    keys = [x] if facet is None else [x, facet]
    hits = comparisons[comparisons.significant.astype(bool)]
    if hits.empty:
        return pd.DataFrame(columns=[*keys, "label"])
    labels = hits.assign(
        label=[
            f"{a} vs {b}: Δ {d:+.4f}, adjusted p = {p:.2g}"
            for a, b, d, p in zip(hits.a, hits.b, hits.delta, hits.p_adjusted, strict=True)
        ]
    )
    return labels.groupby(keys, sort=True).label.agg("<br>".join).reset_index()
