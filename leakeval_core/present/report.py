"""The meeting report's layout: condition plots, significance, inflation and ranking change.

Formatting only: `api.report` computes every part through the verbs the app and the CLI
call, then hands them here. A section that cannot apply carries the text saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any

import pandas as pd

from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import Measure
from leakeval_core.experiment.design import Design
from leakeval_core.experiment.manifest import Experiment
from leakeval_core.leakage.rule import headline_rows
from leakeval_core.present.audit_plots import audit_figure, category_gain_figure
from leakeval_core.present.condition_plots import (
    condition_figure,
    difference_figure,
    inflation_figure,
)
from leakeval_core.present.display import (
    CHANGES_TITLE,
    NO_CHANGES,
    changes_table,
    tau_table,
)
from leakeval_core.present.html import html_report
from leakeval_core.present.leakage_plots import category_counts_figure, leak_share_figure
from leakeval_core.present.style import Palette
from leakeval_core.present.tables import leaderboard_frame

__all__ = [
    "ReportParts",
    "chart_roles",
    "family_sentence",
    "interval_caption",
    "render_report",
    "significance_caption",
]


def chart_roles(design: Design, factors: list[str]) -> tuple[str, str | None, str | None]:
    """x, colour and facet of a condition chart: size along x, leakage as colour, systems
    as panels, each where the design has it; the other factors fill the gaps in order."""
    preferred = [design.size, design.leakage, design.system]
    ordered = [f for f in preferred if f in factors] + [f for f in factors if f not in preferred]
    if not ordered:
        raise LeakevalError("the experiment has no factor besides the collection to chart")
    x = design.size if design.size in factors else ordered[0]
    rest = [f for f in ordered if f != x]
    colour = design.leakage if design.leakage in rest else (rest[0] if rest else None)
    facet = next((f for f in rest if f != colour), None)
    return x, colour, facet


@dataclass
class ReportParts:
    """What the report shows, computed by the API verbs; a section that cannot apply holds
    the text saying why instead of its result."""

    experiment: Experiment
    design: Design
    measure: Measure
    statistics: Statistics
    conventions: Conventions
    fold_rule: str
    factors: list[str]
    story: Any = None
    """The Story (`present.story.Story`), or why it does not apply."""
    overlap: Any = None
    """Which topics leaked (`api.LeakageOverview`), where the experiment has pairs."""
    pairs_source: str = ""
    means: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Per collection: each condition's mean with its interval."""
    significance: Any = None
    """A Comparison, or why the section does not apply."""
    inflation: Any = None
    """An Inflation, or why the section does not apply."""
    ranking: Any = None
    """Kendall's tau per pair of leakage levels, or why the section does not apply."""
    audit: Any = None
    """The audit against the design's baseline (an `api.Audit`), where it names one."""
    leaderboard: Any = None
    """The systems on all and on clean topics with their HSD groups (`api.Leaderboard`),
    or why the section does not apply; None where the design has no system factor."""
    leaked: str = ""
    """Which topics count as leaked, in one sentence (`story.leaked_sentence`)."""
    rule: str = ""
    """The rule alone, for a chart's title: "lexical similarity ≥ 0.691"."""
    conventions_notes: tuple[str, ...] = ()
    """The collections scored at a relevance level other than 1 or under conventions of
    their own (`PerQuery.conventions_notes`)."""
    warnings: tuple[str, ...] = ()
    """What the reader must know before any figure: incomplete conditions, the scoring
    warnings (`PerQuery.scoring_warnings`) and the leakage's (`Study.leakage_warnings`)."""

    @property
    def roles(self) -> tuple[str, str | None, str | None]:
        return chart_roles(self.design, self.factors)


def render_report(parts: ReportParts, top: int = 10) -> str:
    """The report's HTML from its computed parts."""
    x, colour, facet = parts.roles
    palette = Palette.of_experiment(parts.experiment)
    measure = parts.measure
    sections = _warnings(parts) + _story(parts) + _overlap(parts)
    sections += [
        (
            f"{collection}: {measure.label} by condition",
            "Mean over queries with a 95% t interval; folds combined per query.",
            (condition_figure(means, measure, x, colour, facet, palette=palette), means),
        )
        for collection, means in parts.means.items()
    ]
    sections += _significance(parts, (x, facet), palette)
    if isinstance(parts.inflation, str):
        sections.append(("Inflation", parts.inflation, ""))
    else:
        sections += [
            ("Inflation", parts.inflation.caption, parts.inflation.table),
            (
                "Top inflating topics",
                "Leaked topics where the leaked condition gains most.",
                parts.inflation.top.groupby("collection").head(top),
            ),
        ]
    sections += _audit(parts)
    sections += _leaderboard(parts)
    if isinstance(parts.ranking, str):
        sections.append(("System ranking change", parts.ranking, ""))
    else:
        sections.append(
            (
                "System ranking change",
                f"Kendall's tau between the {parts.design.system} rankings under each "
                f"{parts.design.leakage} level (1 = same order).",
                parts.ranking,
            )
        )
    experiment = parts.experiment
    notes = " ".join(
        [
            f"{'SIMULATED DATA. ' if experiment.simulated else ''}{experiment.name}. "
            f"Measure: {measure.label} ({measure.direction.words}). Conventions: "
            f"{parts.conventions.describe()}.",
            *parts.conventions_notes,
            f"Fold rule: {parts.fold_rule}. Design: {parts.design.describe()}.",
        ]
    )
    return html_report(f"leakeval report: {experiment.name}", sections, notes)


def _warnings(parts: ReportParts) -> list[tuple[str, str, object]]:
    """What every reader must know before any figure: incomplete conditions, runs the qrels
    hardly judge, a measure at 0 everywhere, a sampled log, a low flagged share."""
    if not parts.warnings:
        return []
    return [("Read this first", " ".join(parts.warnings), "")]


def _story(parts: ReportParts) -> list[tuple[str, str, object]]:
    """The Story first, as the meeting saw it: its answer, the test, the trend, the topics."""
    from leakeval_core.present.story import answers_table

    told = parts.story
    if isinstance(told, str) or told is None:
        return [("Story", told or "", "")]
    answer = "" if told.answer == told.headline else f"{told.answer} "
    text = f"{told.headline} {answer}{told.detail} {told.evidence} {told.leaked}"
    text = " ".join([text, *told.notes])
    sections: list[tuple[str, str, object]] = [("Story", text, "")]
    if told.kind == "audit":
        system = str(parts.design.system)
        sections.append(
            (
                f"Every model against {told.facts.b}",
                "Each audited model's answer on the Story's collection, in the design's order.",
                answers_table(told.answers, parts.measure, system),
            )
        )
        sections.append(
            (
                "Gain by the kind of near-duplicate",
                f"Mean per-topic gain of {told.facts.a} over {told.facts.b}, by the kind of "
                "each topic's nearest training query, with 95% t intervals.",
                category_gain_figure(told.chart, parts.measure, told.facts.b),
            )
        )
    elif told.x is not None:
        sections.append(
            (
                f"Gain along {told.x}",
                f"Mean per-topic gain of {parts.design.leaked} over {parts.design.clean} on "
                "topics with a near-duplicate and on the others, the pair's other levels fixed.",
                inflation_figure(told.chart, parts.measure, told.x, None, 360),
            )
        )
    sections.append((told.top_title, "With the training query that leaked each.", told.top))
    return sections


def _overlap(parts: ReportParts) -> list[tuple[str, str, object]]:
    """Which topics leaked: the share per collection beside the study's, and the kinds."""
    if parts.overlap is None:
        return [
            (
                "Leakage overlap",
                "Not applicable: the experiment has no leakage pairs (add [training_queries] "
                "or [leakage] table to experiment.toml).",
                "",
            )
        ]
    return [
        (
            "Leakage overlap",
            f"Topics with a near-duplicate among the training queries. {parts.leaked} The "
            "marks are the leakage study's shares over all of MS MARCO and ORCAS.",
            (leak_share_figure(parts.overlap.share, parts.rule), parts.overlap.share),
        ),
        (
            "Kinds of near-duplicate",
            "The pairs that make a topic leaked, by how the training query relates to it.",
            category_counts_figure(parts.overlap.categories),
        ),
    ]


def _audit(parts: ReportParts) -> list[tuple[str, str, object]]:
    """Each model against the baseline: the table and the per-model chart."""
    if parts.audit is None:
        return []
    if isinstance(parts.audit, str):
        return [("Leakage audit", parts.audit, "")]
    result = parts.audit
    leaked = headline_rows(result.table)
    sections: list[tuple[str, str, object]] = [
        (
            "Leakage audit",
            f"{result.caption} {result.caveat}",
            (
                audit_figure(
                    leaked,
                    parts.measure,
                    [*result.keys, result.factor, "baseline"],
                    result.baseline,
                ),
                result.summary(),
            )
            if len(leaked)
            else result.summary(),
        )
    ]
    return sections


def _leaderboard(parts: ReportParts) -> list[tuple[str, str, object]]:
    """The leaderboard the app's Leaderboard tabs show, every place of it at once: each
    system's groups and rank intervals on all and on clean topics, the pairs whose verdict
    or order changes without the leaked topics, and Kendall's tau between the two
    rankings."""
    title = "Leaderboard on all and on clean topics"
    board = parts.leaderboard
    if board is None:
        return []
    if isinstance(board, str):
        return [(title, board, "")]
    moved = changes_table(board.changes, places=board.keys)
    return [
        (
            title,
            f"{board.caption} The means are as scored, each with its group letters, and each "
            "rank interval's bounds.",
            leaderboard_frame(board.table, board.keys),
        ),
        (CHANGES_TITLE, NO_CHANGES, "")
        if moved.empty
        else (
            CHANGES_TITLE,
            "Each pair's difference in the better direction on each set of topics, with the "
            "test's verdict and p.",
            moved,
        ),
        (
            "Kendall's tau between the rankings on all and on clean topics",
            "1 means the clean topics rank the systems as all topics do; the interval is a "
            "95% bootstrap interval over topics.",
            tau_table(board.tau, board.keys),
        ),
    ]


def _significance(
    parts: ReportParts, placed: tuple, palette: Palette
) -> list[tuple[str, str, object]]:
    """The significance table, then each collection's paired differences where the chart's
    x and facet account for every other factor (otherwise points would overlap)."""
    if isinstance(parts.significance, str):
        return [("Significance", parts.significance, "")]
    rows = parts.significance.table
    sections: list[tuple[str, str, object]] = [("Significance", parts.significance.caption, rows)]
    vary = parts.design.leakage or parts.design.system
    x, facet = [*(f for f in placed if f and f != vary), None, None][:2]
    if x and set(parts.factors) - {vary} == {f for f in (x, facet) if f}:
        for collection, part in rows.groupby("collection", sort=False):
            sections.append(
                (
                    f"{collection}: paired differences in {parts.measure.label}",
                    interval_caption(part, parts.statistics),
                    difference_figure(
                        part, parts.measure, x, facet, vary, parts.statistics, palette
                    ),
                )
            )
    return sections


def significance_caption(
    vary: str, what: str, rows, statistics: Statistics, family: str = "collection"
) -> str:
    """How a significance table was computed, with the size of its correction family: the
    report, the app and `leakeval compare` all caption their tables with this."""
    sizes = sorted(set(rows.family_size.tolist())) if len(rows) else [0]
    m = " or ".join(map(str, sizes))
    over = "within each collection over its" if family == "collection" else "over all"
    return (
        f"{statistics.describe()}; {vary}: {what}. p is each test's own; p_adjusted is "
        f"corrected {over} m = {m} comparisons."
    )


def interval_caption(rows, statistics: Statistics) -> str:
    """What the intervals beside a significance table are, at which confidence."""
    levels = sorted({round(100 * c, 2) for c in rows.confidence}) if len(rows) else []
    shown = (
        (f"{levels[0]:g}%" if len(levels) == 1 else f"{levels[0]:g}% to {levels[-1]:g}%")
        if levels
        else "no"
    )
    drawn = statistics.interval_method.paired
    how = statistics.interval_name("paired")
    if not drawn.inverts_test:
        how += " (it can disagree with the mark near 0)"
    dual = ", so it excludes 0 exactly when the comparison is significant"
    return (
        f"Each interval is the {how} at {shown} confidence, the level at which the correction "
        f"tests its comparison{dual if drawn.inverts_test else ''}."
    )


def family_sentence(
    rows: pd.DataFrame,
    family: Sequence[str],
    parts: Sequence[tuple[str, str]],
    statistics: Statistics,
) -> str:
    """The correction family in one sentence, counted from the rows that were tested:
    "Bonferroni over 6 comparisons: 3 models × 2 baselines, within each collection."
    `parts` are (column, plural noun): the columns a family's rows differ in; those at one
    level are left out, and the count is broken down only where the parts multiply to m
    (a row too few topics to test is no comparison). Families of different sizes are each
    named: "Bonferroni within each collection: over 2 comparisons (2 baselines) on core18,
    over 1 comparison on robust04."."""
    tested = rows[rows.p.notna()]
    present = [f for f in family if f in rows.columns]
    # a split of the topics is named only where there are several (groups beside leaked)
    named = [f for f in present if f != "split" or rows[f].nunique() > 1]
    groups = tested.groupby(present, sort=False) if present else [((), tested)]
    said: dict[tuple[str, str], list[str]] = {}  # (m, its breakdown) -> the families' places
    for key, members in groups:
        m = len(members)
        counts = [(members[c].nunique(), noun) for c, noun in parts if c in members]
        counts = [(n, noun) for n, noun in counts if n > 1]
        breakdown = (
            " × ".join(f"{n} {noun}" for n, noun in counts)
            if counts and prod(n for n, _ in counts) == m
            else ""
        )
        levels = dict(zip(present, key if isinstance(key, tuple) else (key,), strict=True))
        place = ", ".join(str(levels[f]) for f in named)
        said.setdefault((f"{m} comparison{'s' if m != 1 else ''}", breakdown), []).append(place)
    within = " and ".join("split of the topics" if f == "split" else f for f in named)
    lead = "No correction" if statistics.correction == "none" else statistics.correction_label
    if len(said) > 1:
        each = ", ".join(
            f"over {m}{f' ({breakdown})' if breakdown else ''} on {'; '.join(places)}"
            for (m, breakdown), places in said.items()
        )
        return f"{lead} within each {within}: {each}."
    m, breakdown = next(iter(said), ("0 comparisons", ""))
    counted = f"{m}: {breakdown}" if breakdown else m
    where = f", within each {within}" if within else ""
    return f"{lead} over {counted}{where}."
