"""`leakeval card`: a contamination card, Markdown with its JSON beside it, for a model card
or a results PR. It takes `leakeval audit`'s inputs; without runs, topics and a training log
give a card of the leakage alone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from leakeval_core.cli.audit import (
    ROLES,
    add_audit_inputs,
    audit_view,
    baseline_runs,
    files_given,
    pairs_of,
    runs_of,
)
from leakeval_core.cli.common import formatted, progress
from leakeval_core.errors import LeakevalError

__all__ = ["register"]


def register(sub) -> None:
    card = sub.add_parser(
        "card",
        help="a contamination card (Markdown and JSON) for a model card or a results PR",
        description="The leaked share of each collection (the logs searched, their coverage, "
        "the rule, five example pairs) and, with runs, the audit's verdict with its interval "
        "and mde, and the command that writes the card again. Inputs as for `leakeval "
        "audit`: an experiment folder, or --qrels, --run and --baseline with --pairs or "
        "--topics and --train-queries; or, for the leakage alone, --topics and "
        "--train-queries.",
    )
    add_audit_inputs(card)
    card.add_argument(
        "--collection",
        action="append",
        help="an experiment's collection to put on the card (repeatable; default: all)",
    )
    card.add_argument(
        "--model",
        help="the audited model to put on the card (default: every one); without runs, the "
        "name of the model whose training log it is",
    )
    card.add_argument(
        "--out",
        required=True,
        help="the Markdown file to write (card.md); every figure, unrounded, goes beside it "
        "as JSON (card.json)",
    )
    card.set_defaults(handler=_cmd_card)


def _cmd_card(args: argparse.Namespace) -> int:
    from leakeval_core import api

    out = Path(args.out)
    if out.suffix == ".json":
        raise LeakevalError(f"--out {args.out}: name the Markdown file; its JSON goes beside it")
    if not out.parent.is_dir():
        raise LeakevalError(f"--out {args.out}: no such folder {out.parent}")
    view = audit_view(args)
    if args.experiment is not None:
        given = [f for f in ("qrels", "run", "pairs", "topics", "train_queries") if _has(args, f)]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise LeakevalError(
                f"{flag}: an experiment folder brings its own runs and leakage; give the "
                "folder, or run files, not both"
            )
        made = api.card(
            api.Study.open(args.experiment),
            baseline=args.baseline,
            model=args.model,
            collections=args.collection,
            out=Path(args.out).name,
            view=view,
            progress=progress("scoring"),
            train_qrels=args.train_qrels,
        )
    else:
        if args.collection:
            raise LeakevalError("--collection picks among an experiment folder's collections")
        made = _card_of_files(args, view)
    out.write_text(made.markdown, encoding="utf-8")
    beside = out.with_suffix(".json")
    beside.write_text(made.to_json(), encoding="utf-8")
    for warning in made.warnings:
        print(f"leakeval: warning: {warning}", file=sys.stderr)
    print(f"card written to {out} (every figure in {beside})", file=sys.stderr)
    return 0


def _card_of_files(args: argparse.Namespace, view):
    """A card of run files (an audit), or of topics and a log alone (no runs)."""
    from leakeval_core import api

    if not files_given(args):
        if args.baseline or args.pairs:
            raise LeakevalError("--baseline and --pairs go with --run")
        if args.train_qrels:
            raise LeakevalError(
                "--train-qrels are matched to the test qrels, which a card of the leakage "
                "alone has none of: give --qrels, --run and --baseline too"
            )
        if not (args.topics and args.train_queries):
            raise LeakevalError(
                "give an experiment folder, --run and --baseline (with --qrels unless they "
                "are per-query evaluations), or --topics with --train-queries"
            )
        return api.card(
            topics=formatted(args, "topics", args.topics, ROLES),
            leakage=pairs_of(args),
            model=args.model,
            reproduce=_inputs(args),
            out=Path(args.out).name,
            view=view,
        )
    runs = runs_of(args)
    return api.card(
        formatted(args, "qrels", args.qrels, ROLES),
        runs,
        baseline=baseline_runs(args, runs),
        leakage=pairs_of(args),
        model=args.model,
        reproduce=_inputs(args),
        out=Path(args.out).name,
        view=view,
        train_qrels=args.train_qrels,
    )


def _inputs(args: argparse.Namespace) -> list[str]:
    """The flags that give a card its data, for the command printed on it: files as they
    were named (so it runs where the card was made), and the detection method pinned."""
    flags = [("--qrels", args.qrels)]
    flags += [("--run", run) for run in args.run or ()]
    flags += [("--baseline", base) for base in (args.baseline or ()) if files_given(args)]
    flags += [("--pairs", pairs) for pairs in args.pairs or ()]
    flags += [("--topics", args.topics), ("--train-queries", args.train_queries)]
    if args.train_queries:
        from leakeval_core.api.terms import DetectionOptions
        from leakeval_core.cli.common import from_options

        flags.append(("--method", from_options(DetectionOptions, args).method))
    flags.append(("--sample-of", args.sample_of))
    flags.append(("--train-qrels", args.train_qrels))
    flags += [("--format", given) for given in args.format or ()]
    return [part for flag, value in flags if value is not None for part in (flag, value)]


def _has(args: argparse.Namespace, name: str) -> bool:
    return bool(getattr(args, name))
