"""`leakeval audit`: a model's gain over a baseline on leaked topics, minus on the others."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from leakeval_core.api.terms import DetectionOptions
from leakeval_core.cli.common import (
    add_dataclass_options,
    add_format_option,
    add_statistics_options,
    formatted,
    from_options,
    progress,
    report_incomplete,
    report_scoring,
    view_from,
    write,
)
from leakeval_core.cli.leakage import add_answer_options, add_sample_option
from leakeval_core.errors import LeakevalError

__all__ = [
    "ROLES",
    "add_audit_inputs",
    "add_covers_option",
    "add_detection_options",
    "add_files_collection_option",
    "add_leakage_inputs",
    "audit_view",
    "baseline_runs",
    "files_given",
    "files_view",
    "named_runs",
    "pairs_of",
    "register",
    "runs_of",
]

ROLES = ("run", "qrels", "topics", "train-queries")


def register(sub) -> None:
    audit = sub.add_parser(
        "audit",
        help="does a model do suspiciously better on leaked topics than a baseline says?",
        description="Either an experiment folder whose [design] names a baseline system (or "
        "has leaked and clean twins), or run files: --qrels, --run (repeatable) and "
        "--baseline, with the leakage as --pairs or detected from --topics and "
        "--train-queries.",
    )
    add_audit_inputs(audit)
    audit.add_argument("--groups", help="CSV of qid,group: a split per group, beside leakage")
    add_files_collection_option(audit)
    add_covers_option(audit)
    audit.add_argument(
        "--strata",
        type=int,
        default=1,
        help="permute the leaked flags within this many quantile groups of the baseline's "
        "score (default 1: over all topics)",
    )
    audit.add_argument("--json", help="write every figure (the app's and the report's) here")
    audit.add_argument("--out", help="write the audit table here as CSV")
    audit.set_defaults(handler=_cmd_audit)


def add_audit_inputs(parser: argparse.ArgumentParser) -> None:
    """The audit's inputs and settings: an experiment folder, or run files with the leakage
    as pairs or detected from topics and a log (`leakeval card` takes the same)."""
    parser.add_argument("experiment", nargs="?", help="an experiment folder (or give --qrels)")
    parser.add_argument(
        "--qrels", help="qrels (TREC, BEIR, ranx JSON, ...), with --run and --baseline"
    )
    parser.add_argument("--run", action="append", help="a model's run (repeatable; any format)")
    parser.add_argument(
        "--baseline",
        action="append",
        help="the baseline's run file (with --qrels), or its level of the system factor "
        "(with an experiment; default: [design] baseline). Repeat for several: every model "
        "is audited against each, never one baseline against another, and the correction "
        "runs over all those rows of a collection",
    )
    add_leakage_inputs(parser)
    add_format_option(parser, ROLES)
    add_statistics_options(parser, "split")
    add_detection_options(parser)


def add_leakage_inputs(parser: argparse.ArgumentParser) -> None:
    """Which topics leaked: pairs files, or pairs detected from topics and a log, and the
    threshold (`pairs_of` reads them; `leakeval leaderboard` takes the same)."""
    parser.add_argument(
        "--pairs",
        action="append",
        help="leakage pairs: a CSV `leakeval leakage` wrote (its .json sidecar is read), other "
        "pairs (test_qid or qid; similarity, method, near_duplicate where known; without "
        "similarity, judged), or the study's labels TSV; repeat for their union",
    )
    parser.add_argument("--topics", help="detect the pairs: topics file or ir_datasets id")
    parser.add_argument("--train-queries", help="detect the pairs in this training query log")
    add_sample_option(parser)
    add_answer_options(parser)
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="similarity at which a topic counts as leaked, in [0, 1] (default: each "
        "detection method's own, or the one a pairs file was written with, or 0.8 for pairs "
        "of unknown method); judged pairs are leaked as judged",
    )


def add_files_collection_option(parser: argparse.ArgumentParser) -> None:
    """`--collection`: the collection run files are of, where their qrels do not name it
    (published evaluations need none) and the pairs name several."""
    parser.add_argument(
        "--collection",
        help="with run files: the collection they are of, whose pairs are read (default: the "
        "qrels' name, else the one collection the pairs name)",
    )


def files_view(args: argparse.Namespace):
    """`audit_view` with `--collection` naming the run files' collection; an experiment
    folder names its own."""
    view = audit_view(args)
    if args.collection is None:
        return view
    if args.experiment is not None:
        raise LeakevalError("--collection names the run files' collection; a folder has its own")
    return view.replace(collection=args.collection)


def add_covers_option(parser: argparse.ArgumentParser) -> None:
    """`--covers`: the topics the leakage judgment covers (`api.covered_of`), for a door that
    splits topics into leaked and clean (`leakeval leaderboard` takes the same): a topic
    nobody judged is neither."""
    parser.add_argument(
        "--covers",
        help="CSV with a qid column: the topics the leakage pairs were judged for; only these "
        "count, so a topic nobody judged is not counted as clean",
    )


def add_detection_options(parser: argparse.ArgumentParser) -> None:
    """The detection settings `pairs_of` detects with, where it detects."""
    add_dataclass_options(
        parser, DetectionOptions, skip=("top_k", "min_similarity", "chunk_size", "encoder_floor")
    )


def _cmd_audit(args: argparse.Namespace) -> int:
    from leakeval_core import api
    from leakeval_core.present.tables import csv_notes, flat_topics_needed, format_table

    view = files_view(args)
    if (args.experiment is None) == (not files_given(args)):
        raise LeakevalError(
            "give an experiment folder, or --run and --baseline (with --qrels unless they are "
            "per-query evaluations)"
        )
    if args.experiment is not None:
        result = api.audit(
            api.Study.open(args.experiment),
            baseline=args.baseline,
            view=view,
            groups=args.groups,
            covers=args.covers,
            strata=args.strata,
            train_qrels=args.train_qrels,
            progress=progress("scoring"),
        )
    else:
        runs = runs_of(args)
        result = api.audit(
            formatted(args, "qrels", args.qrels, ROLES),
            runs,
            baseline=baseline_runs(args, runs),
            view=view,
            leakage=pairs_of(args),
            groups=args.groups,
            covers=args.covers,
            strata=args.strata,
            train_qrels=args.train_qrels,
        )
    report_incomplete(result.incomplete)
    report_scoring(result.scoring_warnings)
    print(format_table(result.summary(), "markdown", result.caption))
    print(f"\n{result.caveat}")
    for warning in result.warnings:
        print(f"Warning: {warning}")
    if args.out:
        notes = csv_notes(result.conventions_notes)
        write(notes + flat_topics_needed(result.table).to_csv(index=False), args.out)
    if args.json:
        Path(args.json).write_text(json.dumps(result.as_dict(), indent=2) + "\n")
    return 0


def audit_view(args: argparse.Namespace):
    """The View of `add_audit_inputs`' flags, with the detection method they name."""
    view = view_from(args)
    return view.replace(method=args.method) if args.method else view


def files_given(args: argparse.Namespace) -> bool:
    """Whether the inputs are files (qrels, or runs: per-query evaluations need no qrels)
    rather than an experiment folder."""
    return args.qrels is not None or bool(args.run)


def runs_of(args: argparse.Namespace) -> dict[str, str]:
    """The model runs and the baseline runs (last) of --run and --baseline, by name: the
    file name without its format's suffix, with as many parent folders as it takes to tell
    two apart (MTEB names every model's predictions of a task alike)."""
    if not args.run or not args.baseline:
        raise LeakevalError("give --run (one per model) and --baseline")
    return named_runs(args, [*args.run, *args.baseline], "the runs and the baselines")


def named_runs(args: argparse.Namespace, paths: list[str], what: str = "the runs") -> dict:
    """`paths` (with the formats `--format` names) by name, as `runs_of` names them; two
    names for one file are an error naming `what`."""
    from leakeval_core.io.trec import unique_run_names

    given = formatted(args, "run", paths, ROLES)
    if len({os.path.realpath(path) for path in given}) != len(given):
        raise LeakevalError(f"{what} need distinct files")
    return dict(zip(unique_run_names(given), given, strict=True))


def baseline_runs(args: argparse.Namespace, runs: dict[str, str]) -> list[str]:
    """The names `runs_of` gave the --baseline files."""
    return list(runs)[len(args.run) :]


def pairs_of(args: argparse.Namespace):
    """The leakage pairs: the given files (a union), or detected from the topics and the
    log, read by the same rule (each method's own threshold unless --threshold)."""
    from leakeval_core import api
    from leakeval_core.api.inputs import detected_pairs

    if args.pairs and (args.topics or args.train_queries):
        raise LeakevalError("give --pairs, or --topics with --train-queries, not both")
    if args.pairs:
        if args.sample_of:
            raise LeakevalError(
                "--sample-of goes with --train-queries: a pairs file's .json sidecar says "
                "which log it was detected in"
            )
        return list(args.pairs)
    if not (args.topics and args.train_queries):
        if getattr(args, "groups", None):
            return None  # the groups alone split the topics
        raise LeakevalError("give the leakage: --pairs, or --topics with --train-queries")
    options = from_options(DetectionOptions, args)
    pairs = api.detect_leakage(
        formatted(args, "topics", args.topics, ROLES),
        formatted(args, "train-queries", args.train_queries, ROLES),
        options,
        progress=progress("comparing", "query"),
    )
    print(f"leakeval: {len(pairs)} candidate pairs detected ({options.method})", file=sys.stderr)
    return detected_pairs(pairs, options.method, args.train_queries, args.sample_of)
