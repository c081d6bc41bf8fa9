"""The leakage story in one screen: a headline with its numbers, the gain along the size
factor, and the topics that inflate it with the training query that leaked them.

Built from the same `inflation` result as the Condition comparison's Inflation tab and the
report, so the story's numbers are those tables' numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from leakeval_core.analysis.folds import levels_of
from leakeval_core.analysis.options import Statistics
from leakeval_core.evaluation.measures import Measure
from leakeval_core.experiment.design import Design

__all__ = ["Story", "default_pair", "tell"]


@dataclass(frozen=True)
class Story:
    pair: dict
    """The levels of every factor but the leakage factor that fix the pair of conditions."""
    headline: str
    evidence: str
    """The test of the difference between leaked and other topics, in words."""
    trend: pd.DataFrame = field(repr=False)
    """The inflation summary rows along the x factor, the pair's other levels fixed."""
    x: str | None
    """The factor the trend runs along: the design's size factor where it has one."""
    top: pd.DataFrame = field(repr=False)
    """The pair's most inflating topics: qid, title, A, B, gain, and the training query
    (with its similarity and category) that makes each one leaked."""


def default_pair(summary: pd.DataFrame, factors: list[str], better: str = "higher") -> dict:
    """The pair whose leaked topics gain most over the others, by the measure's own
    direction (for a lower-is-better measure the gain is a drop): the clearest case of the
    effect, which is what a first look should show (every other pair is one choice away)."""
    gain = summary.difference if better == "higher" else -summary.difference
    ranked = summary.assign(_gain=gain).dropna(subset=["_gain"])
    ranked = ranked.sort_values(["_gain", *factors], ascending=[False, *[True] * len(factors)])
    row = (ranked if not ranked.empty else summary).iloc[0]
    return {f: row[f] for f in factors}


def tell(
    result: Any,
    pair: dict,
    design: Design,
    measure: Measure,
    statistics: Statistics,
    leakage: pd.DataFrame,
    titles: pd.DataFrame,
) -> Story:
    """The story of one pair of conditions.

    `result` is the inflation of every pair (its threshold says when a topic counts as
    leaked), `leakage` the LEAKAGE table, `titles` holds collection, qid, title of every topic.
    """
    summary = result.table
    row = levels_of(summary, pair).iloc[0]
    x = design.size if design.size in pair else next(iter(pair), None)
    trend = levels_of(summary, {k: v for k, v in pair.items() if k != x})
    if x is not None:
        trend = trend.sort_values(x)
    where = ", ".join(f"{factor} {level}" for factor, level in pair.items())
    return Story(
        pair,
        _headline(row, design, measure, where),
        _evidence(row, measure, statistics),
        trend.reset_index(drop=True),
        x,
        _top(result.top, pair, design, leakage, titles, result.threshold),
    )


def _headline(row: pd.Series, design: Design, measure: Measure, where: str) -> str:
    on, off = row.delta_leaked, row.delta_other
    n_on, n_off = int(row.leaked_topics), int(row.other_topics)
    label = measure.label
    gains = measure.better == "higher" and on >= 0 and off >= 0
    verb = f"adds {on:+.2f} {label}" if gains else f"changes {label} by {on:+.2f}"
    other = f"{off:+.2f}" if gains else f"by {off:+.2f}"
    return (
        f"Leaked training ({design.leakage} {design.leaked} vs {design.clean}) {verb} on the "
        f"{n_on} topics with a near-duplicate among the training queries, and {other} on the "
        f"{n_off} without ({where})."
    )


def _evidence(row: pd.Series, measure: Measure, statistics: Statistics) -> str:
    difference, p = row.difference, row.p_difference_adjusted
    if pd.isna(p):
        return (
            f"Leaked minus other: {difference:+.2f} {measure.label}; too few topics on one "
            "side to test it."
        )
    verdict = "significant" if p < statistics.alpha else "not significant"
    within = f" of {row.collection}" if "collection" in row.index else ""
    adjusted = (
        ""
        if statistics.correction == "none"
        else f" after {statistics.correction_label} over the {int(row.family_size)} pairs of "
        f"conditions{within}"
    )
    return (
        f"Leaked minus other: {difference:+.2f} {measure.label}, {verdict} at α = "
        f"{statistics.alpha:g} (Welch's t-test over topics, p = {p:.2g}{adjusted})."
    )


def _top(
    top: pd.DataFrame,
    pair: dict,
    design: Design,
    leakage: pd.DataFrame,
    titles: pd.DataFrame,
    threshold: float,
) -> pd.DataFrame:
    rows = levels_of(top, pair).copy()
    if "collection" not in rows.columns:
        rows["collection"] = pair.get("collection", titles.collection.iloc[0])
    best = (
        leakage[leakage.similarity >= threshold]
        .sort_values(["similarity", "train_qid"], ascending=[False, True], kind="stable")
        .drop_duplicates(["collection", "test_qid"])
        .rename(columns={"test_qid": "qid", "train_text": "leaked training query"})
    )
    rows = rows.merge(titles, on=["collection", "qid"], how="left").merge(
        best[["collection", "qid", "leaked training query", "similarity", "category"]],
        on=["collection", "qid"],
        how="left",
    )
    leaked, clean = str(design.leaked), str(design.clean)
    return rows[
        [
            "collection",
            "qid",
            "title",
            leaked,
            clean,
            "inflation",
            "leaked training query",
            "similarity",
            "category",
        ]
    ].reset_index(drop=True)
