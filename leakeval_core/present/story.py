"""The leakage story in one screen: a headline with its numbers, the evidence, a chart, and
the topics that carry the gain with the training query that leaked each.

Two kinds, one wording. Twins: a model trained with the leaked queries against its clean
twin (the Inflation tab's numbers). Audit: a model against a baseline that never saw the
training queries (the Audit page's numbers). The API computes every number (`api.story`);
this module only words them, in the measure's own direction: "improves MFR" when the first
relevant rank falls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from leakeval_core.analysis.split import MIN_TOPICS
from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.evaluation.measures import Measure
from leakeval_core.present.tables import needed_header, needed_text, topics_text

__all__ = [
    "Facts",
    "Story",
    "amount",
    "answer_line",
    "answers_table",
    "default_pair",
    "interval_text",
    "leaked_sentence",
    "needed_clause",
    "numbers",
    "signed",
    "size",
    "tell",
    "test_line",
    "verdict_sentence",
]


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
    """Both sides' means over the pair's topics, as scored: the numbers a results table
    would show."""
    gain: float
    """The mean gain of a over b over those topics, in the measure's better direction."""
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
    interval: str
    """Which interval stands beside it, in words (`Statistics.interval_name`): the test's
    own, or the bootstrap drawn instead."""
    verdict: str
    """`analysis.split.VERDICTS`: inflated, reversed, no evidence or cannot tell."""
    mde: float
    """The smallest difference the test would detect with 80% power at its level."""
    confidence: float
    """The interval's confidence: 1 − the level the correction tests the row at."""
    share: float
    share_low: float
    share_high: float
    """The share of the whole gain that the leaked topics contribute, with its interval."""
    subject_factor: str | None = None
    """The factor of `pair` whose level the headline's subject names (an audit's system),
    so the place after it leaves that factor out."""
    left_out: int = 0
    """Topics one side scored that have no value on the other (a first relevant rank
    beyond depth, a query a run lacks): in neither count, and said so."""
    topics_needed: tuple[dict, ...] = ()
    """The row's `topics_needed`: per δ asked, the leaked and other topics that would
    detect it at the row's level (`analysis.topic_set_size`)."""

    @property
    def shared(self) -> bool:
        """Whether the leaked share of the gain means something: a clearly positive total
        gain (its interval exists) and topics on both sides."""
        clear = not (np.isnan(self.share) or np.isnan(self.share_low))
        return clear and self.leaked_topics > 0 and self.other_topics > 0

    @property
    def share_reference(self) -> float:
        """The share of the gain the leaked topics would carry if they gained like the
        others: their share of the topics. A share near it is what no inflation looks like."""
        return self.leaked_topics / max(self.leaked_topics + self.other_topics, 1)


@dataclass(frozen=True)
class Story:
    kind: Literal["twins", "audit"]
    pair: dict
    headline: str
    detail: str
    """Where the gain lands, in one sentence: leaked topics, the others, the leaked share."""
    evidence: str
    """The test of the difference between leaked and other topics, in words."""
    answer: str
    """The leakage answer in one sentence: the verdict, the difference and its interval,
    and for `no evidence` the smallest inflation the test would have detected."""
    chart: pd.DataFrame = field(repr=False)
    """Twins: the inflation rows along `x`, the pair's other levels fixed. Audit: the gain
    by the nearest training query's category."""
    x: str | None
    """Twins: the factor the chart runs along (the design's size factor where it has one)."""
    top: pd.DataFrame = field(repr=False)
    """The topics that carry the gain: qid, title, both sides' values, the gain, and the
    training query (with its similarity and category) that makes each one leaked."""
    facts: Facts = field(repr=False)
    statistics: Statistics = field(repr=False)
    """How its answers were tested: what its captions name."""
    answers: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    """Audit: every audited model's answer on the pair's collection, in the design's order
    (verdict, difference, interval, mde). Twins: the pair's row."""
    opening: str = "chosen"
    """How the pair was picked: `chosen` (by the reader or the link), `clearest` (twins:
    where leaked topics gain most, picked after looking) or `first` (audit: the design's
    first model, picked before looking)."""
    leaked: str = ""
    """Which topics count as leaked, in one sentence (`leaked_sentence`)."""
    warnings: tuple[str, ...] = ()
    """What the reader must be told beside the answer: a sampled log, a flagged share far
    below the study's."""
    incomplete: tuple[str, ...] = ()
    """The experiment's incomplete and broken conditions, in a sentence each: left out of
    every figure (so never this story's pair), or computed anyway with the queries each
    lacks."""
    scoring_warnings: tuple[str, ...] = ()
    """What the reader must be told about the runs scored (`PerQuery.scoring_warnings`)."""
    notes: tuple[str, ...] = ()
    """The pair's collection's conventions of its own and the Judged@10 of the systems
    it compares, where under 90% (`PerQuery.conventions_notes`, `PerQuery.judged_note`):
    said in a caption beside the answer."""

    @property
    def top_title(self) -> str:
        """The topics table's title: it says "inflate" only when the test says inflated."""
        if self.facts.verdict == "inflated":
            return "Topics that inflate it most"
        return "Leaked topics with the largest gains"


def default_pair(summary: pd.DataFrame, factors: list[str]) -> dict:
    """The pair whose leaked topics gain most over the others: the clearest case of the
    effect, which is what a first look should show (every other pair is one choice away).
    `difference` is oriented (positive: leaked topics gain more in the better direction),
    so the largest is the clearest for every measure."""
    ranked = summary.dropna(subset=["difference"])
    ranked = ranked.sort_values(["difference", *factors], ascending=[False, *[True] * len(factors)])
    row = (ranked if not ranked.empty else summary).iloc[0]
    return {f: row[f].item() if hasattr(row[f], "item") else row[f] for f in factors}


def tell(
    facts: Facts,
    measure: Measure,
    statistics: Statistics,
    chart: pd.DataFrame,
    x: str | None,
    top: pd.DataFrame,
    answers: pd.DataFrame | None = None,
    opening: str = "chosen",
    leaked: str = "",
    warnings: tuple[str, ...] = (),
    incomplete: tuple[str, ...] = (),
    scoring_warnings: tuple[str, ...] = (),
    notes: tuple[str, ...] = (),
) -> Story:
    answer = verdict_sentence(facts, measure)
    return Story(
        facts.kind,
        facts.pair,
        answer if facts.kind == "audit" else _headline(facts, measure),
        _detail(facts, measure),
        _evidence(facts, measure, statistics),
        answer,
        chart,
        x,
        top,
        facts,
        statistics,
        pd.DataFrame() if answers is None else answers,
        opening,
        leaked,
        warnings,
        incomplete,
        scoring_warnings,
        notes,
    )


def signed(value: float, digits: int = 2) -> str:
    """A signed number that never reads "-0.00": a value that rounds to zero at `digits`
    gets up to two more digits until one shows, and is "0" when none does."""
    for places in range(digits, digits + 3):
        if round(value, places) != 0:
            return f"{value:+.{places}f}"
    return "0"


def amount(value: float, measure: Measure, digits: int = 2) -> str:
    """A gain in the measure's better direction, as a reader says it: +0.19 (higher is
    better), or "1.29 better" / "0.40 worse" for a lower-is-better measure. "–" for none."""
    if value is None or np.isnan(value):
        return "–"
    return measure.direction.gain_text(signed(value, digits), value)


def size(value: float, digits: int = 2) -> str:
    """A positive amount without a sign or a direction's word: "0.34" (an mde)."""
    if value is None or np.isnan(value):
        return "–"
    return signed(value, digits).lstrip("+-")


def interval_text(low: float, high: float, measure: Measure, digits: int = 2) -> str:
    """ "[−0.07, +0.07]", or "" where there is no interval."""
    if np.isnan(low) or np.isnan(high):
        return ""
    return f"[{amount(low, measure, digits)}, {amount(high, measure, digits)}]"


def _untested(facts: Facts) -> str:
    """Why a row was not tested, in words."""
    if facts.leaked_topics == 0:
        return "no topic is leaked at this threshold"
    if facts.other_topics == 0:
        return "every topic is leaked at this threshold, so none is left to compare with"
    fewer = min(facts.leaked_topics, facts.other_topics)
    side = "leaked" if facts.leaked_topics <= facts.other_topics else "other"
    topics = "topic is" if fewer == 1 else "topics are"
    return (
        f"only {fewer} {side} {topics} there, and the test needs at least {MIN_TOPICS} on each side"
    )


def verdict_sentence(facts: Facts, measure: Measure) -> str:
    """The leakage answer in one sentence, which is what a reader walks away with."""
    who = facts.a if facts.kind == "audit" else "the leaked-trained model"
    where = _where({f: v for f, v in facts.pair.items() if f != facts.subject_factor})
    difference = amount(facts.difference, measure)
    interval = interval_text(facts.ci_low, facts.ci_high, measure)
    shown = f"{difference} {interval}".strip()
    label = measure.label
    if facts.verdict == "cannot tell":
        why = _untested(facts)
        return f"Cannot tell whether leaked topics inflate {who}'s {label} {where}: {why}."
    if facts.verdict == "inflated":
        return f"Leaked topics inflate {who}'s {label} {where}: leaked − other {shown}."
    if facts.verdict == "reversed":
        return (
            f"Leaked topics gain less than the others under {who} {where}: {label} "
            f"leaked − other {shown}, no sign of inflation."
        )
    needed = needed_clause(
        facts.leaked_topics, facts.other_topics, facts.topics_needed, facts.pair.get("collection")
    )
    return (
        f"No sign that leaked topics inflate {who}'s {label} {where}: leaked − other "
        f"{shown}; an inflation of {size(facts.mde)} or more would have been detected"
        + (f"; {needed}." if needed else ".")
    )


def needed_clause(
    leaked: int, other: int, needed: Sequence[dict], collection: object = None
) -> str:
    """Whether a row's topics could detect the differences asked at all, from its
    `topics_needed` (δs ascending): "core17's 21 leaked and 29 other topics detect 0.05 but
    not 0.01 or 0.02: 0.01 would need about 460 leaked and 630 other topics"; "" where it
    cannot say.

    Where some δ is detected, the clause names the δs that are not rather than saying
    "0.05 or more": the sentence it ends has just said the smaller inflation the test
    detects (its mde), and "0.05 or more" beside "0.03 or more" reads as a contradiction."""
    known = [entry for entry in needed if entry.get("leaked") is not None]
    if not known:
        return ""
    whose = f"{collection}'s" if collection else "its"
    have = f"{whose} {topics_text(leaked)} leaked and {topics_text(other)} other topics"
    detected = [e for e in known if e["leaked"] <= leaked and e["other"] <= other]
    smallest, largest = known[0], known[-1]

    def need(entry: dict, named: bool = True) -> str:
        a, b = topics_text(entry["leaked"]), topics_text(entry["other"])
        return f"about {a} leaked and {b} other topics" if named else f"about {a} and {b}"

    if detected and detected[0] is smallest:
        return f"{have} detect {smallest['delta']:g} or more"
    if detected:
        missed = [f"{e['delta']:g}" for e in known if e not in detected]
        them = ", ".join(missed[:-1]) + f" or {missed[-1]}" if len(missed) > 1 else missed[0]
        which = "it" if len(missed) == 1 else f"{smallest['delta']:g}"
        return (
            f"{have} detect {detected[0]['delta']:g} but not {them}: {which} would need "
            f"{need(smallest)}"
        )
    if len(known) == 1:
        return f"{have} do not detect {smallest['delta']:g}: it would need {need(smallest)}"
    listed = ", ".join(f"{e['delta']:g}" for e in known)
    return (
        f"{have} detect none of {listed}: even {largest['delta']:g} would need "
        f"{need(largest)}, and {smallest['delta']:g} {need(smallest, named=False)}"
    )


def answer_line(row: dict, measure: Measure, system: str | None = None) -> str:
    """One leaked-minus-other row in a line: who, verdict, difference with its interval, and
    the mde where nothing was found ("monot5: no evidence, -0.0005 [-0.07, +0.07]; an
    inflation of 0.07 would have been detected")."""
    who = str(row[system]) if system else ""
    difference = amount(row["difference"], measure)
    interval = interval_text(row["ci_low"], row["ci_high"], measure)
    text = f"{row['verdict']}, leaked minus other {difference} {interval}".strip()
    if row["verdict"] == "no evidence":
        text += f"; an inflation of {size(row['mde'])} would have been detected"
        needed = needed_clause(
            row["leaked_topics"], row["other_topics"], row.get("topics_needed") or ()
        )
        text += f"; {needed}" if needed else ""
    elif row["verdict"] == "cannot tell":
        text += (
            f" ({row['leaked_topics']} leaked, {row['other_topics']} other topics; the test "
            f"needs {MIN_TOPICS} on each side)"
        )
    return f"{who}: {text}" if who else text


def top_gains_note(row: dict, measure: Measure, test: str) -> str:
    """What the drill-down's list of leaked topics with A's largest gains means, following
    the pair's own leaked-minus-other verdict (`comparison.pair_answer`): the topics that
    carry an inflation only where one is found, else large gains and no more."""
    said = f"{answer_line(row, measure)} ({test}, on this pair alone, uncorrected)"
    if row["verdict"] == "inflated":
        return (
            f"Leaked topics where A gains most over B. Between A and B, leaked topics gain "
            f"more than the others: {said}. These topics carry that inflation of A's mean."
        )
    return (
        f"Leaked topics where A gains most over B. Between A and B: {said}. These are the "
        "largest gains among leaked topics, not evidence that leakage inflates A's mean."
    )


def answers_table(
    answers: pd.DataFrame, measure: Measure, system: str | None, places: Sequence[str] = ()
) -> pd.DataFrame:
    """Leaked-minus-other rows as a page shows them (the Story's list of models, the Leakage
    audit's table, the inflation of each pair of conditions): readable headers, every figure
    as text in the measure's better direction, "–" where a row was not tested, never "nan"
    or "-0.000". Of `places` (the factors that place a row), only those that vary are kept,
    so the table fits 1280 px; `system` (an audit's models) is kept unless it has one level
    and another column places the rows (a twins audit's leaked level)."""
    levels = answers.confidence.dropna().unique()
    interval = f"Interval ({levels[0]:.1%})" if len(levels) == 1 else "Interval"
    out = pd.DataFrame(index=answers.index)
    for place in places:
        if place in answers and place != system and answers[place].nunique() > 1:
            out[place] = answers[place].astype(str)
    if system is not None and (answers[system].nunique() > 1 or out.columns.empty):
        out[system] = answers[system].astype(str)
    if "baseline" in answers and answers.baseline.nunique() > 1:  # against several: which
        out["baseline"] = answers.baseline.astype(str)
    # split by answers ("answer-leaked vs clean", …): each row's groups are its split's
    by_answers = "split" in answers and answers.split.str.contains(" vs ").any()
    first, second = ("first", "second") if by_answers else ("leaked", "other")
    if by_answers:
        out["Split"] = answers.split.astype(str)
    out["Verdict"] = answers.verdict
    out[f"Gain, {first}"] = [amount(v, measure, 3) for v in answers.gain_leaked]
    out[f"Gain, {second}"] = [amount(v, measure, 3) for v in answers.gain_other]
    out[f"{first.capitalize()} − {second}"] = [amount(v, measure, 3) for v in answers.difference]
    out[interval] = [
        interval_text(low, high, measure, 3) or "–"
        for low, high in zip(answers.ci_low, answers.ci_high, strict=True)
    ]
    if len(levels) > 1:
        out["Confidence"] = [f"{c:.1%}" if not np.isnan(c) else "–" for c in answers.confidence]
    out["Adjusted p"] = [f"{p:.2g}" if not np.isnan(p) else "–" for p in answers.p_adjusted]
    out["mde"] = [size(v, 3) for v in answers.mde]
    if "topics_needed" in answers and len(answers):
        out[needed_header(answers.topics_needed)] = [
            needed_text(entries) for entries in answers.topics_needed
        ]
    out[f"Topics ({first} / {second})"] = [
        f"{a} / {b}" for a, b in zip(answers.leaked_topics, answers.other_topics, strict=True)
    ]
    return out.reset_index(drop=True)


def leaked_sentence(rules: dict[str, str], source: str = "", collection: str | None = None) -> str:
    """Which topics count as leaked, in one sentence: "Leaked topics (from pairs.csv): 9
    leaked of 250: lexical similarity ≥ 0.691.", per collection where there are several
    (`Study.leaked_rule`), or only `collection`'s."""
    if collection is not None and collection in rules:
        rules = {collection: rules[collection]}
    where = f" (from {source})" if source else ""
    if len(rules) == 1:
        return f"Leaked topics{where}: {next(iter(rules.values()))}."
    joined = "; ".join(f"{name}, {text}" for name, text in rules.items())
    return f"Leaked topics{where}: {joined}."


def _where(pair: dict) -> str:
    """ "on robust04 (model colbert, train_size 2000)": the collection first, in words."""
    rest = ", ".join(
        f"{factor} {level}" for factor, level in pair.items() if factor != "collection"
    )
    on = f"on {pair['collection']}" if "collection" in pair else ""
    return " ".join(part for part in (on, f"({rest})" if rest else "") if part)


def _headline(facts: Facts, measure: Measure) -> str:
    """One sentence: who does what to the measure, from what to what, where."""
    subject = "Leaked training" if facts.kind == "twins" else f"Against {facts.b}, {facts.a}"
    lower = measure.direction.note
    if abs(facts.gain) <= 1e-12:
        change = f"leaves {measure.label}{lower} unchanged at {facts.mean_a:.3f}"
    else:
        verb = "improves" if facts.gain > 0 else "worsens"
        change = f"{verb} {measure.label}{lower} from {facts.mean_b:.3f} to {facts.mean_a:.3f}"
    # its subject names the baseline already
    where = {f: v for f, v in facts.pair.items() if f not in (facts.subject_factor, "baseline")}
    return f"{subject} {change} {_where(where)}.".replace("  ", " ")


def _detail(facts: Facts, measure: Measure) -> str:
    """Where the gain lands: on the leaked topics and the others, and the leaked share
    beside what no inflation would give. An audit's overall change opens it (its headline
    is the leakage answer)."""
    split = (
        f"{amount(facts.gain_leaked, measure)} on the {facts.leaked_topics} topics with a "
        "near-duplicate among the training queries, "
        f"{amount(facts.gain_other, measure)} on the {facts.other_topics} without"
    )
    split = split[0].upper() + split[1:]
    opening = _headline(facts, measure) + " " if facts.kind == "audit" else ""
    missing = _left_out(facts, measure)
    if not facts.shared:
        return f"{opening}{split}.{missing}"
    others = " (the other topics lose)" if facts.share > 1 else ""
    return (
        f"{opening}{split}: {facts.share:.0%} [{facts.share_low:.0%}, "
        f"{facts.share_high:.0%}] of the gain comes from the leaked topics{others}, against "
        f"{facts.share_reference:.0%} if they gained like the others (their share of the "
        f"topics).{missing}"
    )


def _left_out(facts: Facts, measure: Measure) -> str:
    """The topics in neither count, in a sentence ("" for none): why the counts fall short
    of the leaked rule's."""
    n = facts.left_out
    if not n:
        return ""
    have, are = ("topic has", "is") if n == 1 else ("topics have", "are")
    return f" {n} more {have} no {measure.label} on at least one side and {are} left out."


def numbers(facts: Facts, measure: Measure) -> list[tuple[str, str, str | None, str]]:
    """The story's figures as (label, value, its interval or None, what it is), for a row
    of metric cards."""
    shared = facts.shared
    reference = f"{facts.share_reference:.0%}"
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
            interval_text(facts.ci_low, facts.ci_high, measure) or None,
            f"The difference, with its {facts.interval} at the corrected level "
            f"({facts.confidence:.1%})."
            if not np.isnan(facts.confidence)
            else "The difference; too few topics on a side to test it.",
        ),
        (
            "Leaked share of the gain",
            f"{facts.share:.0%}" if shared else "–",
            f"[{facts.share_low:.0%}, {facts.share_high:.0%}], no inflation: {reference}"
            if shared
            else f"no inflation: {reference}",
            "The leaked topics' summed gain over everyone's, with a 95% bootstrap interval "
            f"over topics. Without inflation it would be about {reference}, the leaked "
            "topics' share of all topics; '–' where the total gain is not clearly positive.",
        ),
    ]


def test_line(facts: Facts, statistics: Statistics) -> str:
    """How the answers were tested, in a line a slide has room for."""
    adjusted = (
        ""
        if statistics.correction == "none" or facts.family_size <= 1
        else f", {statistics.correction_label} over the {facts.family_size} {facts.family}"
    )
    level = f"; {facts.confidence:.1%} {facts.interval}s" if not np.isnan(facts.confidence) else ""
    return f"{facts.test[0].upper()}{facts.test[1:]}{adjusted}{level}; α = {statistics.alpha:g}."


def _evidence(facts: Facts, measure: Measure, statistics: Statistics) -> str:
    difference = amount(facts.difference, measure)
    if np.isnan(facts.p_adjusted):
        shown = "" if np.isnan(facts.difference) else f" {measure.label} {difference};"
        return f"Leaked minus other:{shown} not tested: {_untested(facts)}. Verdict: cannot tell."
    significant = "significant" if facts.p_adjusted < statistics.alpha else "not significant"
    interval = interval_text(facts.ci_low, facts.ci_high, measure)
    interval = f" {interval}" if interval else ""
    adjusted = (
        ""
        if statistics.correction == "none" or facts.family_size <= 1
        else f", adjusted {facts.p_adjusted:.2g} by {statistics.correction_label} over the "
        f"{facts.family_size} {facts.family}"
    )
    power = f"; mde {size(facts.mde)}" if facts.verdict == "no evidence" else ""
    return (
        f"Leaked minus other: {measure.label} {difference}{interval} "
        f"({facts.confidence:.1%} {facts.interval}), {significant} at α = {statistics.alpha:g} "
        f"({facts.test}, p = {facts.p:.2g}{adjusted}{power}). Verdict: {facts.verdict}."
    )
