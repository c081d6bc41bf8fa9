"""Commands on an experiment folder: validate, compare, inflation, report.

Leakage factor and levels default to the experiment's `[design]`; the flags override them.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from leakeval_core.cli.common import (
    EXIT_BAD_INPUT,
    add_statistics_options,
    conventions_from,
    level,
    measures_from,
    progress,
    statistics_from,
    write,
)
from leakeval_core.errors import LeakevalError

__all__ = ["register"]

FORMATS = ("csv", "latex", "markdown")


def register(sub) -> None:
    validate = sub.add_parser("validate", help="check an experiment's manifest and every file")
    validate.add_argument("experiment")
    validate.set_defaults(handler=_cmd_validate)

    compare = sub.add_parser("compare", help="paired significance tests between factor levels")
    compare.add_argument("experiment")
    compare.add_argument(
        "--vary", help="the factor whose levels are compared (default: the design's leakage)"
    )
    compare.add_argument(
        "--baseline",
        help="compare each level with this one (default: the clean level when varying the "
        "leakage factor, else every pair)",
    )
    add_statistics_options(compare)
    compare.add_argument(
        "--family",
        choices=("collection", "all"),
        default="collection",
        help="correct within each collection's comparisons (the app's and the report's "
        "family) or over every row at once",
    )
    compare.add_argument("--format", choices=FORMATS, default="csv")
    compare.add_argument("--out", help="write here instead of stdout")
    compare.set_defaults(handler=_cmd_compare)

    inflation = sub.add_parser("inflation", help="how much of a gain comes from leaked topics")
    inflation.add_argument("experiment")
    _add_leakage_options(inflation)
    add_statistics_options(inflation)
    inflation.add_argument("--top", type=int, default=10, help="topics that inflate most")
    inflation.add_argument("--format", choices=FORMATS, default="markdown")
    inflation.add_argument("--out", help="write the summary here instead of stdout")
    inflation.set_defaults(handler=_cmd_inflation)

    report = sub.add_parser("report", help="one self-contained HTML report for a meeting")
    report.add_argument("experiment")
    _add_leakage_options(report)
    add_statistics_options(report)
    report.add_argument("--out", required=True, help="the .html file to write")
    report.set_defaults(handler=_cmd_report)


def _add_leakage_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--factor", help="the leakage factor (default: [design] leakage)")
    parser.add_argument("--leaked", help="its leaked level (default: [design] leaked)")
    parser.add_argument("--clean", help="its clean level (default: [design] clean)")
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="similarity at which a topic counts as leaked (default: calibrated)",
    )


def _cmd_validate(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.collections import load_collection
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.io import queries, trec
    from leakeval_core.leakage.table import experiment_method

    experiment = load_experiment(args.experiment)
    problems = 0
    try:
        experiment_method(experiment)
    except LeakevalError as exc:
        print(f"leakeval: {exc}", file=sys.stderr)
        problems += 1
    for spec in experiment.collections.values():
        try:
            load_collection(spec)
        except LeakevalError as exc:
            print(f"leakeval: {exc}", file=sys.stderr)
            problems += 1
    if isinstance(experiment.training_queries, Path):
        try:
            queries.read_queries(experiment.training_queries)
        except LeakevalError as exc:
            print(f"leakeval: {exc}", file=sys.stderr)
            problems += 1
    bar = progress("validating")
    paths = [run["path"] for run in experiment.runs]
    for i, path in enumerate(paths):
        bar(i, len(paths), str(path))
        try:
            trec.read_run_table(path)  # every check, without building a frame
        except LeakevalError as exc:
            print(f"leakeval: {exc}", file=sys.stderr)
            problems += 1
    bar(len(paths), len(paths), "done")
    factors = ", ".join(
        f"{f} ({experiment.conditions[f].nunique()} levels)" for f in experiment.factors
    )
    print(
        f"{experiment.name}: {len(paths)} runs, {len(experiment.collections)} collections; "
        f"factors: {factors}; design: {experiment.design.describe()}; {problems} problem(s)"
    )
    return EXIT_BAD_INPUT if problems else 0


def _scored(args: argparse.Namespace):
    """Load and score an experiment; broken runs are reported and left out."""
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.experiment.scores import score_experiment

    experiment = load_experiment(args.experiment)
    results = score_experiment(
        experiment, measures_from(args), conventions_from(args), progress=progress("scoring")
    )
    for failure in results.failures.itertuples():
        print(f"leakeval: {failure.error} (left out)", file=sys.stderr)
    return experiment, results


def _design(experiment, args: argparse.Namespace):
    """The experiment's design with the leakage role the flags name, if they name one."""
    from leakeval_core.experiment.design import infer_design

    flags = {"leakage": args.factor, "leaked": args.leaked, "clean": args.clean}
    declared = {role: value for role, value in flags.items() if value is not None}
    if not declared:
        return experiment.design
    declared.setdefault("leakage", experiment.design.leakage)
    levels = {f: experiment.levels(f) for f in experiment.factors if f != "collection"}
    chosen = infer_design(declared, levels)
    return replace(
        experiment.design, leakage=chosen.leakage, leaked=chosen.leaked, clean=chosen.clean
    )


def _cmd_compare(args: argparse.Namespace) -> int:
    from leakeval_core.analysis.compare import compare_levels
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.present.meeting import interval_caption, significance_caption
    from leakeval_core.present.tables import format_table

    experiment, results = _scored(args)
    design = experiment.design
    vary = args.vary or design.leakage
    if vary is None:
        raise LeakevalError(
            "give --vary FACTOR: " + design.why_not("compare without --vary", "leakage")
        )
    baseline = level(experiment, vary, args.baseline)
    if baseline is None and vary == design.leakage:
        baseline = design.clean
    stats = statistics_from(args)
    family = ("collection",) if args.family == "collection" else ()
    rows = compare_levels(
        per_query(results, args.measure),
        vary,
        baseline,
        stats,
        family,
    )
    what = f"each level vs {baseline}" if baseline is not None else "every pair of levels"
    caption = f"{args.measure}: {significance_caption(vary, what, rows, stats)}"
    if args.family == "all":
        caption = caption.replace("within each collection", "over every row")
    caption += " " + interval_caption(rows, stats)
    write(format_table(rows, args.format, caption + " † significant."), args.out)
    return 0


def _leakage(experiment, threshold: float | None):
    from leakeval_core.leakage.table import leaked_qids, load_leakage

    leakage = load_leakage(experiment)
    if leakage.empty:
        raise LeakevalError(
            f"{experiment.root}: no leakage table; add [leakage] or "
            "[training_queries] to experiment.toml"
        )
    threshold = leakage.threshold if threshold is None else threshold
    return leakage, threshold, leaked_qids(leakage, threshold)


def _cmd_inflation(args: argparse.Namespace) -> int:
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.analysis.inflation import inflation
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.present.tables import format_table

    experiment, results = _scored(args)
    design = _design(experiment, args)
    design.require("Inflation", "leakage")
    leakage, _, flags = _leakage(experiment, args.threshold)
    result = inflation(
        per_query(results, args.measure),
        flags,
        design,
        parse_measure(args.measure).better,
        args.top,
        statistics_from(args).correction,
    )
    caption = (
        f"{args.measure}: mean per-query delta ({design.leaked} − {design.clean}) on topics "
        f"with a near-duplicate ({leakage.source}) and on the others."
    )
    write(format_table(result.summary, args.format, caption), args.out)
    if not args.out:
        print(f"\nTop {args.top} inflating topics per condition:")
        sys.stdout.write(format_table(result.top, args.format))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.leakage.table import load_leakage
    from leakeval_core.present.meeting import ReportOptions, build_report

    experiment, results = _scored(args)
    options = ReportOptions(
        design=_design(experiment, args),
        threshold=args.threshold,
        statistics=statistics_from(args),
    )
    leakage = load_leakage(experiment)
    text = build_report(experiment, results, parse_measure(args.measure), leakage, options)
    Path(args.out).write_text(text, encoding="utf-8")
    print(
        f"report written to {args.out} ({len(text) / 1e6:.1f} MB, self-contained)", file=sys.stderr
    )
    return 0
