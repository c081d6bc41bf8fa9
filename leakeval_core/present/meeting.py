"""The meeting report: condition plots, significance, inflation and ranking change in one file.

The CLI (`leakeval report`) and the app's download button both call `build_report`, so the
file a user downloads is the one a script would produce.
"""

from __future__ import annotations

from dataclasses import dataclass

from leakeval_core.analysis.compare import condition_means
from leakeval_core.analysis.inflation import inflation
from leakeval_core.analysis.stats import Correction, Test, compare_levels, per_query, ranking_change
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.measures import Measure
from leakeval_core.experiment.manifest import Experiment
from leakeval_core.experiment.scores import ExperimentScores
from leakeval_core.leakage.table import LeakageTable, leaked_qids
from leakeval_core.present.plots import condition_figure
from leakeval_core.present.tables import html_report

__all__ = ["ReportOptions", "build_report"]


@dataclass(frozen=True)
class ReportOptions:
    factor: str = "leakage"
    leaked_level: str = "leaked"
    clean_level: str = "none"
    threshold: float = 0.8
    test: Test = "ttest"
    correction: Correction = "bonferroni"
    alpha: float = 0.05
    top: int = 10


def build_report(
    experiment: Experiment,
    results: ExperimentScores,
    measure: Measure,
    leakage: LeakageTable,
    options: ReportOptions = ReportOptions(),
) -> str:
    table = per_query(results, measure.name)
    if options.factor not in table.factors:
        raise LeakevalError(f"the experiment has no {options.factor!r} factor to report on")
    others = [f for f in table.factors if f not in ("collection", options.factor)]
    x = "train_size" if "train_size" in others else (others[0] if others else options.factor)
    facet = next((f for f in others if f != x), None)
    sections: list[tuple[str, str, object]] = []
    for collection in experiment.levels("collection"):
        by = [f for f in (x, options.factor, facet) if f]
        means = condition_means(table, list(dict.fromkeys(by)), {"collection": collection})
        sections.append(
            (
                f"{collection}: {measure.label} by condition",
                "Mean over queries with a 95% t interval; folds combined per query.",
                condition_figure(means, measure, x, options.factor, facet),
            )
        )
    significance = compare_levels(
        table,
        options.factor,
        baseline=options.clean_level,
        test=options.test,
        correction=options.correction,
        alpha=options.alpha,
    )
    sections.append(
        (
            "Significance",
            f"Paired {options.test} over queries, {options.factor} = "
            f"{options.leaked_level} vs {options.clean_level}; {options.correction} "
            f"correction over all {len(significance)} rows, alpha {options.alpha}.",
            significance,
        )
    )
    flags = leaked_qids(leakage, options.threshold)
    result = inflation(
        table,
        flags,
        options.leaked_level,
        options.clean_level,
        options.factor,
        measure.better,
        options.top,
        options.correction,
    )
    sections.append(
        (
            "Inflation",
            f"Mean per-query delta ({options.leaked_level} − {options.clean_level}) on "
            f"topics with a near-duplicate (similarity ≥ {options.threshold}, "
            f"{leakage.source}) and on the others; p_difference is Welch's t-test between "
            "the two groups.",
            result.summary,
        )
    )
    sections.append(
        (
            "Top inflating topics",
            "Leaked topics where the leaked condition gains most.",
            result.top.groupby("collection").head(options.top),
        )
    )
    if "model" in table.factors:
        within = [f for f in ("collection", x) if f in table.factors and f != "model"]
        sections.append(
            (
                "System ranking change",
                "Kendall's tau between the model rankings "
                f"under each {options.factor} level (1 = same order).",
                ranking_change(table, "model", options.factor, within),
            )
        )
    notes = (
        f"{'SIMULATED DATA. ' if experiment.simulated else ''}{experiment.name}. "
        f"Measure: {measure.label} ({measure.better} is better). Conventions: "
        f"{results.conventions.describe()}. Fold rule: {table.fold_rule}."
    )
    return html_report(f"leakeval report: {experiment.name}", sections, notes)
