"""Commands on an experiment folder: validate, compare, inflation, report.

Leakage factor and levels default to the experiment's `[design]`; the flags override them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from leakeval_core.cli.common import (
    EXIT_BAD_INPUT,
    add_statistics_options,
    progress,
    report_incomplete,
    report_scoring,
    view_from,
    write,
)
from leakeval_core.cli.leakage import add_answer_options

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
        action="append",
        help="compare each level with this one (default: the clean level when varying the "
        "leakage factor, else every pair); repeat for several: each other level against "
        "each, never one baseline against another, all in one family",
    )
    add_statistics_options(compare, "paired")
    compare.add_argument(
        "--family",
        choices=("collection", "all"),
        default="collection",
        help="correct within each collection's comparisons (the app's and the report's "
        "family) or over every row at once",
    )
    compare.add_argument(
        "--format",
        choices=(*FORMATS, "json"),
        default="csv",
        help="json: every comparison with its test, adjusted p, interval and the topics it "
        "needs per δ",
    )
    compare.add_argument("--out", help="write here instead of stdout")
    compare.set_defaults(handler=_cmd_compare)

    inflation = sub.add_parser("inflation", help="how much of a gain comes from leaked topics")
    inflation.add_argument("experiment")
    _add_leakage_options(inflation)
    add_answer_options(inflation)
    add_statistics_options(inflation, "split")
    inflation.add_argument("--top", type=int, default=10, help="topics that inflate most")
    inflation.add_argument(
        "--format",
        choices=(*FORMATS, "json"),
        default="markdown",
        help="json: every row with its verdict and mde, the leaked rule and the warnings",
    )
    inflation.add_argument("--out", help="write the summary here instead of stdout")
    inflation.set_defaults(handler=_cmd_inflation)

    story = sub.add_parser("story", help="the leakage effect in one headline, as the app's Story")
    story.add_argument("experiment")
    story.add_argument(
        "--level",
        nargs=2,
        action="append",
        metavar=("FACTOR", "LEVEL"),
        help="fix the pair of conditions (repeatable; `baseline NAME` picks among several "
        "baselines; default: the pair whose leaked topics gain most, as the app opens on)",
    )
    story.add_argument("--threshold", type=float, default=None, help="as for inflation")
    add_answer_options(story)
    add_statistics_options(story, "split")
    story.add_argument("--json", action="store_true", help="headline, evidence and pair as JSON")
    story.set_defaults(handler=_cmd_story)

    report = sub.add_parser("report", help="one self-contained HTML report for a meeting")
    report.add_argument("experiment")
    _add_leakage_options(report)
    add_statistics_options(report, "both")
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
        help="similarity at which a topic counts as leaked, in [0, 1] (default: the detection "
        "method's own)",
    )


def _cmd_validate(args: argparse.Namespace) -> int:
    from leakeval_core import api

    experiment, problems = api.validate(args.experiment, progress("validating"))
    for problem in problems:
        print(f"leakeval: {problem}", file=sys.stderr)
    factors = ", ".join(
        f"{f} ({experiment.conditions[f].nunique()} levels)" for f in experiment.factors
    )
    print(
        f"{experiment.name}: {len(experiment.runs)} runs, {len(experiment.collections)} "
        f"collections; factors: {factors}; design: {experiment.design.describe()}; "
        f"{len(problems)} problem(s)"
    )
    return EXIT_BAD_INPUT if problems else 0


def _study(args: argparse.Namespace):
    """The experiment, with `--train-qrels` in place of its own, and the View."""
    from leakeval_core.api.arguments import source_of

    return source_of(args.experiment, train_qrels=getattr(args, "train_qrels", None)), view_from(
        args
    )


def _cmd_compare(args: argparse.Namespace) -> int:
    from leakeval_core import api
    from leakeval_core.present.tables import format_table

    study, view = _study(args)
    result = api.compare(
        study,
        view=view,
        vary=args.vary,
        baseline=args.baseline,
        family=args.family,
        progress=progress("scoring"),
    )
    report_incomplete(result.incomplete)
    report_scoring(result.scoring_warnings)
    if args.format == "json":
        write(json.dumps(result.as_dict(), indent=2) + "\n", args.out)
        return 0
    caption = result.caption + " † significant."
    write(format_table(result.table, args.format, caption, result.conventions_notes), args.out)
    return 0


def _cmd_inflation(args: argparse.Namespace) -> int:
    from leakeval_core import api
    from leakeval_core.present.tables import format_table

    study, view = _study(args)
    result = api.inflation(
        study,
        view=view,
        factor=args.factor,
        leaked=args.leaked,
        clean=args.clean,
        top=args.top,
        progress=progress("scoring"),
    )
    report_incomplete(result.incomplete)
    report_scoring(result.scoring_warnings)
    for warning in result.warnings:
        print(f"leakeval: warning: {warning}", file=sys.stderr)
    if args.format == "json":
        write(json.dumps(result.as_dict(), indent=2) + "\n", args.out)
        return 0
    write(
        format_table(result.table, args.format, result.caption, result.conventions_notes),
        args.out,
    )
    if not args.out:
        print(f"\nTop {args.top} inflating topics per condition:")
        sys.stdout.write(format_table(result.top, args.format))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from leakeval_core import api
    from leakeval_core.api import doors

    study, view = _study(args)
    study.scores(view.conventions, (view.measure,), progress("scoring"))
    report_incomplete(doors.incomplete_conditions(study, view))
    report_scoring(doors.scoring_warnings(study, view))
    text = api.report(study, view=view, factor=args.factor, leaked=args.leaked, clean=args.clean)
    Path(args.out).write_text(text, encoding="utf-8")
    print(
        f"report written to {args.out} ({len(text) / 1e6:.1f} MB, self-contained)", file=sys.stderr
    )
    return 0


def _cmd_story(args: argparse.Namespace) -> int:
    import json

    from leakeval_core import api
    from leakeval_core.api import doors

    study, view = _study(args)
    # `baseline` picks among several baselines: the story says if it is not one of them
    pair = {f: text if f == "baseline" else study.level(f, text) for f, text in args.level or []}
    told = api.story(study, view=view, pair=pair or None)
    report_incomplete(told.incomplete)
    report_scoring(told.scoring_warnings)
    if args.json:
        print(json.dumps(doors.story_record(told), indent=2))
    else:
        print(told.headline)
        if told.answer != told.headline:
            print(told.answer)
        print(told.detail)
        print(told.evidence)
        print(told.leaked)
        for warning in told.warnings:
            print(f"Warning: {warning}")
        for note in told.notes:
            print(f"Note: {note}")
        if told.kind == "audit":
            print()
            for line in doors.story_answers(told, view.parsed_measure):
                print(f"- {line}")
    return 0
