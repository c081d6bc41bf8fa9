"""The meeting report: condition plots, significance, inflation and ranking change in one file.

The CLI (`leakeval report`) and the app's download button both call `build_report`, so the
file a user downloads is the one a script would produce. Every section asks the experiment's
design for the roles it needs; a section that cannot apply says why instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass

from leakeval_core.analysis.compare import compare_levels, condition_means
from leakeval_core.analysis.folds import per_query
from leakeval_core.analysis.inflation import inflation
from leakeval_core.analysis.options import Statistics
from leakeval_core.analysis.ranking import ranking_change
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.measures import Measure
from leakeval_core.experiment.design import Design
from leakeval_core.experiment.manifest import Experiment
from leakeval_core.experiment.scores import ExperimentScores
from leakeval_core.leakage.table import LeakageTable, leaked_qids
from leakeval_core.present.condition_plots import condition_figure, difference_figure
from leakeval_core.present.html import html_report
from leakeval_core.present.style import Palette

__all__ = [
    "ReportOptions",
    "build_report",
    "chart_roles",
    "interval_caption",
    "significance_caption",
]


@dataclass(frozen=True)
class ReportOptions:
    design: Design | None = None
    """Overrides the experiment's design (other leaked/clean levels, say); None keeps it."""
    threshold: float | None = None
    """The near-duplicate threshold; None: the detection method's own."""
    statistics: Statistics = Statistics()
    top: int = 10


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


def build_report(
    experiment: Experiment,
    results: ExperimentScores,
    measure: Measure,
    leakage: LeakageTable,
    options: ReportOptions = ReportOptions(),
) -> str:
    design = options.design or experiment.design
    table = per_query(results, measure.name)
    factors = [f for f in table.factors if f != "collection"]
    sections: list[tuple[str, str, object]] = []
    x, colour, facet = chart_roles(design, factors)
    palette = Palette.of_experiment(experiment)
    for collection in experiment.levels("collection"):
        by = [f for f in (x, colour, facet) if f]
        means = condition_means(table, by, {"collection": collection})
        sections.append(
            (
                f"{collection}: {measure.label} by condition",
                "Mean over queries with a 95% t interval; folds combined per query.",
                condition_figure(means, measure, x, colour, facet, palette=palette),
            )
        )
    sections += _significance(table, design, measure, options, (x, facet), palette)
    sections += _inflation(table, design, leakage, measure, options)
    sections.append(_ranking(table, design, x))
    notes = (
        f"{'SIMULATED DATA. ' if experiment.simulated else ''}{experiment.name}. "
        f"Measure: {measure.label} ({measure.better} is better). Conventions: "
        f"{results.conventions.describe()}. Fold rule: {table.fold_rule}. "
        f"Design: {design.describe()}."
    )
    return html_report(f"leakeval report: {experiment.name}", sections, notes)


def _significance(
    table,
    design: Design,
    measure: Measure,
    options: ReportOptions,
    placed: tuple,
    palette: Palette,
) -> list[tuple[str, str, object]]:
    """The significance table, then each collection's paired differences where the chart's
    x and facet account for every other factor (otherwise points would overlap)."""
    vary, baseline = (design.leakage, design.clean) if design.leakage else (design.system, None)
    if vary is None or vary not in table.factors:
        return [("Significance", design.why_not("Not applicable: this section", "leakage"), "")]
    stats = options.statistics
    try:
        rows = compare_levels(table, vary, baseline, stats)
    except LeakevalError as exc:
        return [("Significance", f"Not applicable: {exc}", "")]
    what = f"{design.leaked} vs {design.clean}" if design.leakage else "every pair of levels"
    caption = significance_caption(vary, what, rows, stats) + " " + interval_caption(rows, stats)
    sections: list[tuple[str, str, object]] = [("Significance", caption, rows)]
    x, facet = [*(f for f in placed if f and f != vary), None, None][:2]
    if x and set(table.factors) - {vary, "collection"} == {f for f in (x, facet) if f}:
        for collection, part in rows.groupby("collection", sort=False):
            sections.append(
                (
                    f"{collection}: paired differences in {measure.label}",
                    interval_caption(part, stats),
                    difference_figure(part, measure, x, facet, vary, palette),
                )
            )
    return sections


def significance_caption(vary: str, what: str, rows, statistics: Statistics) -> str:
    """How a significance table was computed, with the size of its correction family: the
    report, the app and `leakeval compare` all caption their tables with this."""
    sizes = sorted(set(rows.family_size.tolist())) if len(rows) else [0]
    m = " or ".join(map(str, sizes))
    return (
        f"{statistics.describe()}; {vary}: {what}. Corrected within each collection over "
        f"its m = {m} comparisons."
    )


def interval_caption(rows, statistics: Statistics) -> str:
    """What the intervals beside a significance table are, at which confidence."""
    levels = sorted({round(100 * c, 2) for c in rows.confidence}) if len(rows) else []
    shown = (
        (f"{levels[0]:g}%" if len(levels) == 1 else f"{levels[0]:g}% to {levels[-1]:g}%")
        if levels
        else "no"
    )
    if statistics.interval == "bootstrap":
        how = "percentile bootstrap interval (it can disagree with the mark near 0)"
    elif statistics.test == "randomization":
        how = "set of shifts the randomization test does not reject"
    else:
        how = "paired t interval"
    dual = ", so it excludes 0 exactly when the comparison is significant"
    return (
        f"Each interval is the {how} at {shown} confidence, the level at which the correction "
        f"tests its comparison{dual if statistics.interval == 'test' else ''}."
    )


def _inflation(
    table, design: Design, leakage: LeakageTable, measure: Measure, options: ReportOptions
) -> list[tuple[str, str, object]]:
    if not design.has("leakage"):
        return [("Inflation", design.why_not("Not applicable: this section", "leakage"), "")]
    if leakage.empty:
        return [
            (
                "Inflation",
                "Not applicable: the experiment has no leakage pairs; add [training_queries] "
                "or [leakage] table to experiment.toml.",
                "",
            )
        ]
    threshold = leakage.threshold if options.threshold is None else options.threshold
    result = inflation(
        table,
        leaked_qids(leakage, threshold),
        design,
        measure.better,
        options.top,
        options.statistics.correction,
    )
    return [
        (
            "Inflation",
            f"Mean per-query delta ({design.leaked} − {design.clean}) on topics with a "
            f"near-duplicate (similarity ≥ {threshold:.3f}, {leakage.source}) and on the "
            "others; p_difference is Welch's t-test between the two groups.",
            result.summary,
        ),
        (
            "Top inflating topics",
            "Leaked topics where the leaked condition gains most.",
            result.top.groupby("collection").head(options.top),
        ),
    ]


def _ranking(table, design: Design, x: str) -> tuple[str, str, object]:
    if not design.has("system", "leakage"):
        why = design.why_not("Not applicable: the ranking change", "system", "leakage")
        return ("System ranking change", why, "")
    within = [f for f in ("collection", x) if f not in (design.system, design.leakage)]
    return (
        "System ranking change",
        f"Kendall's tau between the {design.system} rankings under each {design.leakage} "
        "level (1 = same order).",
        ranking_change(table, design.system, design.leakage, list(dict.fromkeys(within))),
    )
