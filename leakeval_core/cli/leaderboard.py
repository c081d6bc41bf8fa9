"""`leakeval leaderboard`: who is ahead on all topics and on the clean ones, and which
systems are statistically tied (the randomised Tukey HSD test over topics)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from leakeval_core.api.terms import MANY_SYSTEMS
from leakeval_core.cli.audit import (
    ROLES,
    add_covers_option,
    add_detection_options,
    add_files_collection_option,
    add_leakage_inputs,
    files_given,
    files_view,
    named_runs,
    pairs_of,
)
from leakeval_core.cli.common import (
    add_format_option,
    add_many_systems_options,
    formatted,
    progress,
    report_incomplete,
    report_scoring,
    write,
)
from leakeval_core.errors import LeakevalError

__all__ = ["FORMATS", "register"]

FORMATS = ("markdown", "csv", "latex")


def register(sub) -> None:
    board = sub.add_parser(
        "leaderboard",
        help="systems ranked on all and on clean topics, with statistically tied groups",
        description="Either an experiment folder whose [design] names the system factor, or "
        "run files: --qrels and --run (repeatable), with the leakage as --pairs or detected "
        f"from --topics and --train-queries. Groups and rank intervals: the {MANY_SYSTEMS.name} "
        f"({MANY_SYSTEMS.reference}).",
    )
    board.add_argument("experiment", nargs="?", help="an experiment folder (or give --qrels)")
    board.add_argument("--qrels", help="qrels (TREC, BEIR, ranx JSON, ...), with --run")
    board.add_argument("--run", action="append", help="a system's run (repeatable; any format)")
    add_leakage_inputs(board)
    add_covers_option(board)
    add_files_collection_option(board)
    add_format_option(board, ROLES, flag="--input-format")
    add_many_systems_options(board)
    add_detection_options(board)
    board.add_argument(
        "--resamples",
        type=int,
        default=None,
        help=f"permutations of the Tukey HSD test (default: {MANY_SYSTEMS.resamples:,})",
    )
    board.add_argument(
        "--format",
        dest="output_format",
        choices=FORMATS,
        default="markdown",
        help="the table printed (or written to --out): markdown, csv (one row per system "
        "and topic set) or latex (booktabs, the groups as superscripts)",
    )
    board.add_argument("--out", help="write the table here instead of stdout")
    board.add_argument("--json", help="write every group, rank interval and pair here")
    board.set_defaults(handler=_cmd_leaderboard)


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from leakeval_core import api

    view = files_view(args)
    if (args.experiment is None) == (not files_given(args)):
        raise LeakevalError(
            "give an experiment folder, or --run files (with --qrels unless they are "
            "per-query evaluations)"
        )
    if args.experiment is not None:
        result = api.leaderboard(
            api.Study.open(args.experiment),
            view=view,
            covers=args.covers,
            resamples=args.resamples,
            progress=progress("scoring"),
            train_qrels=args.train_qrels,
        )
    else:
        if not args.run or len(args.run) < 2:
            raise LeakevalError("give two or more --run files to rank")
        result = api.leaderboard(
            formatted(args, "qrels", args.qrels, ROLES),
            named_runs(args, args.run),
            view=view,
            leakage=pairs_of(args),
            covers=args.covers,
            resamples=args.resamples,
            train_qrels=args.train_qrels,
        )
    report_incomplete(result.incomplete)
    report_scoring(result.scoring_warnings)
    write(_table(result, args.output_format), args.out)
    if args.json:
        Path(args.json).write_text(json.dumps(result.as_dict(), indent=2) + "\n")
    return 0


def _table(result, fmt: str) -> str:
    """The leaderboard in `fmt`: a paper's side-by-side table (LaTeX, Markdown, with the
    pairs whose verdict or order changes on clean topics below it), or one CSV row per
    system and topic set."""
    from leakeval_core.present.display import CHANGES_TITLE, NO_CHANGES, moved_pairs
    from leakeval_core.present.tables import format_table, leaderboard_frame, leaderboard_latex

    if fmt == "csv":
        return format_table(result.systems, "csv", notes=result.conventions_notes)
    if fmt == "latex":
        return leaderboard_latex(result.table, result.keys, result.caption)
    text = format_table(leaderboard_frame(result.table, result.keys), "markdown", result.caption)
    changed = result.changes
    if len(changed):
        changed = moved_pairs(changed)
        shown = NO_CHANGES if changed.empty else "\n" + format_table(changed, "markdown")
        text += f"\n{CHANGES_TITLE}: {shown}\n"
    for warning in result.warnings:
        text += f"\nWarning: {warning}\n"
    return text
