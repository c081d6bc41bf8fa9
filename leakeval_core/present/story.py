"""The leakage story in one screen: a headline with its numbers, the evidence, a chart, and
the topics that carry the gain with the training query that leaked each.

Two kinds, one wording. Twins: a model trained with the leaked queries against its clean
twin (the Inflation tab's numbers). Audit: a model against a baseline that never saw the
training queries (the Audit page's numbers). The API computes every number (`api.story`);
this module only words them, in the measure's own direction: "improves MFR" when the first
relevant rank falls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from leakeval_core.analysis.options import Statistics
from leakeval_core.evaluation.measures import Measure

__all__ = ["Facts", "Story", "amount", "default_pair", "numbers", "tell"]


@dataclass(frozen=True)
class Facts:
    """The numbers a story tells, every one computed by the API's verbs."""

    kind: Literal["twins", "audit"]
    pair: dict
    """The factor levels that fix the pair of conditions (or the audited model)."""
    a: str
    """What gains: "leaked training" for twins, the model's name for an audit."""
    b: str
    """What it gains over: "clean training", or the baseline's name."""
    mean_a: float
    mean_b: float
    """Both sides' means over the pair's topics: the numbers a results table would show."""
    leaked_topics: int
    other_topics: int
    gain_leaked: float
    gain_other: float
    """Mean gain of a over b on each side, in the measure's better direction (positive is
    better, for a lower-is-better measure too)."""
    difference: float
    ci_low: float
    ci_high: float
    p: float
    p_adjusted: float
    family_size: int
    family: str
    """What the correction ran over: "pairs of conditions of robust04"."""
    test: str
    """How the difference was tested, in words."""
    share: float
    share_low: float
    share_high: float
    """The share of the whole gain that the leaked topics contribute, with its interval."""
    subject_factor: str | None = None
    """The factor of `pair` whose level the headline's subject names (an audit's system),
    so the place after it leaves that factor out."""


@dataclass(frozen=True)
class Story:
    kind: Literal["twins", "audit"]
    pair: dict
    headline: str
    detail: str
    """Where the gain lands, in one sentence: leaked topics, the others, the leaked share."""
    evidence: str
    """The test of the difference between leaked and other topics, in words."""
    chart: pd.DataFrame = field(repr=False)
    """Twins: the inflation rows along `x`, the pair's other levels fixed. Audit: the gain
    by the nearest training query's category."""
    x: str | None
    """Twins: the factor the chart runs along (the design's size factor where it has one)."""
    top: pd.DataFrame = field(repr=False)
    """The topics that carry the gain: qid, title, both sides' values, the gain, and the
    training query (with its similarity and category) that makes each one leaked."""
    facts: Facts = field(repr=False)


def default_pair(summary: pd.DataFrame, factors: list[str], better: str = "higher") -> dict:
    """The pair whose leaked topics gain most over the others, by the measure's own
    direction (for a lower-is-better measure the gain is a drop): the clearest case of the
    effect, which is what a first look should show (every other pair is one choice away)."""
    gain = summary.difference if better == "higher" else -summary.difference
    ranked = summary.assign(_gain=gain).dropna(subset=["_gain"])
    ranked = ranked.sort_values(["_gain", *factors], ascending=[False, *[True] * len(factors)])
    row = (ranked if not ranked.empty else summary).iloc[0]
    return {f: row[f].item() if hasattr(row[f], "item") else row[f] for f in factors}


def tell(
    facts: Facts,
    measure: Measure,
    statistics: Statistics,
    chart: pd.DataFrame,
    x: str | None,
    top: pd.DataFrame,
) -> Story:
    return Story(
        facts.kind,
        facts.pair,
        _headline(facts, measure),
        _detail(facts, measure),
        _evidence(facts, measure, statistics),
        chart,
        x,
        top,
        facts,
    )


def amount(value: float, measure: Measure, digits: int = 2) -> str:
    """A gain in the measure's better direction, as a reader says it: +0.19 (higher is
    better), or "1.29 better" / "0.40 worse" for a lower-is-better measure."""
    if np.isnan(value):
        return "–"
    if measure.better == "higher":
        return f"{value:+.{digits}f}"
    return f"{abs(value):.{digits}f} {'better' if value >= 0 else 'worse'}"


def _where(pair: dict) -> str:
    """ "on robust04 (model colbert, train_size 2000)": the collection first, in words."""
    rest = ", ".join(
        f"{factor} {level}" for factor, level in pair.items() if factor != "collection"
    )
    on = f"on {pair['collection']}" if "collection" in pair else ""
    return " ".join(part for part in (on, f"({rest})" if rest else "") if part)


def _headline(facts: Facts, measure: Measure) -> str:
    """One sentence: who does what to the measure, from what to what, where."""
    gained = (facts.mean_a - facts.mean_b) * (1 if measure.better == "higher" else -1)
    subject = "Leaked training" if facts.kind == "twins" else f"Against {facts.b}, {facts.a}"
    lower = "" if measure.better == "higher" else " (lower is better)"
    if abs(gained) <= 1e-12:
        change = f"leaves {measure.label}{lower} unchanged at {facts.mean_a:.3f}"
    else:
        verb = "improves" if gained > 0 else "worsens"
        change = f"{verb} {measure.label}{lower} from {facts.mean_b:.3f} to {facts.mean_a:.3f}"
    where = {f: level for f, level in facts.pair.items() if f != facts.subject_factor}
    return f"{subject} {change} {_where(where)}.".replace("  ", " ")


def _detail(facts: Facts, measure: Measure) -> str:
    """Where the gain lands: on the leaked topics and the others, and the leaked share."""
    split = (
        f"{amount(facts.gain_leaked, measure)} on the {facts.leaked_topics} topics with a "
        "near-duplicate among the training queries, "
        f"{amount(facts.gain_other, measure)} on the {facts.other_topics} without"
    )
    if np.isnan(facts.share) or np.isnan(facts.share_low):
        return split[0].upper() + split[1:] + "."  # no clear total gain to share out
    others = " (the other topics lose)" if facts.share > 1 else ""
    return (
        f"{split[0].upper() + split[1:]}: {facts.share:.0%} [{facts.share_low:.0%}, "
        f"{facts.share_high:.0%}] of the gain comes from the leaked topics{others}."
    )


def numbers(facts: Facts, measure: Measure) -> list[tuple[str, str, str | None, str]]:
    """The story's figures as (label, value, its interval or None, what it is), for a row
    of metric cards."""
    shared = not (np.isnan(facts.share) or np.isnan(facts.share_low))
    return [
        (
            f"Gain on {facts.leaked_topics} leaked topics",
            amount(facts.gain_leaked, measure),
            None,
            f"Mean per-topic gain of {facts.a} over {facts.b} on the topics with a "
            "near-duplicate among the training queries (positive: better).",
        ),
        (
            f"Gain on {facts.other_topics} other topics",
            amount(facts.gain_other, measure),
            None,
            "The same on the topics without one: the gain leakage cannot explain.",
        ),
        (
            "Leaked minus other",
            amount(facts.difference, measure),
            None
            if np.isnan(facts.ci_low)
            else f"[{amount(facts.ci_low, measure)}, {amount(facts.ci_high, measure)}]",
            "The difference, with the interval its test gives at the corrected level.",
        ),
        (
            "Share from leaked topics",
            f"{facts.share:.0%}" if shared else "–",
            f"[{facts.share_low:.0%}, {facts.share_high:.0%}]" if shared else None,
            "The leaked topics' summed gain over everyone's, with a 95% bootstrap interval "
            "over topics; '–' where the total gain is not clearly positive.",
        ),
    ]


def _evidence(facts: Facts, measure: Measure, statistics: Statistics) -> str:
    difference = amount(facts.difference, measure)
    if np.isnan(facts.p_adjusted):
        return (
            f"Leaked minus other: {difference} {measure.label}; too few topics on one side "
            "to test it."
        )
    verdict = "significant" if facts.p_adjusted < statistics.alpha else "not significant"
    interval = (
        f" [{amount(facts.ci_low, measure)}, {amount(facts.ci_high, measure)}]"
        if not np.isnan(facts.ci_low)
        else ""
    )
    adjusted = (
        ""
        if statistics.correction == "none" or facts.family_size <= 1
        else f", adjusted {facts.p_adjusted:.2g} by {statistics.correction_label} over the "
        f"{facts.family_size} {facts.family}"
    )
    return (
        f"Leaked minus other: {difference} {measure.label}{interval}, {verdict} at α = "
        f"{statistics.alpha:g} ({facts.test}, p = {facts.p:.2g}{adjusted})."
    )
