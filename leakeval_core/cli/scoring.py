"""`leakeval score` (run files against qrels) and `leakeval scores` (an experiment's table)."""

from __future__ import annotations

import argparse
import io
import math
import sys
from contextlib import nullcontext
from pathlib import Path

from leakeval_core.cli.common import (
    EXIT_BAD_INPUT,
    add_format_option,
    add_scoring_options,
    conventions_from,
    formatted,
    measures_from,
    output_names,
    progress,
    report_scoring,
)

__all__ = ["register"]

ROLES = ("run", "qrels")


def register(sub) -> None:
    score = sub.add_parser("score", help="score TREC run files against qrels")
    score.add_argument(
        "--qrels",
        help="qrels: TREC, a BEIR folder, ranx JSON, ... (per-query evaluations need none)",
    )
    score.add_argument(
        "--run",
        required=True,
        action="append",
        help="a run: TREC, MTEB predictions, ranx JSON, a PyTerrier frame, ... (repeatable)",
    )
    add_format_option(score, ROLES)
    add_scoring_options(score)
    score.add_argument("--per-query", action="store_true", help="one row per query, not just means")
    score.add_argument("--out", help="write CSV here instead of printing a table")
    score.add_argument(
        "--digits",
        type=int,
        help="round CSV values to this many significant digits (default: every digit, so "
        "statistics recomputed from the file match)",
    )
    score.set_defaults(handler=_cmd_score)

    scores = sub.add_parser("scores", help="the long SCORES table of an experiment")
    scores.add_argument("experiment", help="experiment folder (holds experiment.toml)")
    add_scoring_options(scores)
    scores.add_argument("--out", help="FILE.csv or FILE.parquet (default: CSV to stdout)")
    scores.set_defaults(handler=_cmd_scores)


def _cmd_score(args: argparse.Namespace) -> int:
    """Formats what `api.score` returns, straight from the scorer's arrays: no frame is
    built per run."""
    import csv

    from leakeval_core.io.allocator import release_memory_promptly

    release_memory_promptly(reuse_small_blocks=True)  # first: before pyarrow is imported
    from leakeval_core import api
    from leakeval_core.io import trec

    measures, conventions = measures_from(args), conventions_from(args)
    _warn_deeper_cutoffs(measures, conventions)
    names = trec.unique_run_names(args.run)
    result = api.score(
        formatted(args, "qrels", args.qrels, ROLES),
        dict(zip(names, formatted(args, "run", args.run, ROLES), strict=True)),
        measures,
        conventions,
        progress=progress("scoring"),
    )
    rows: list[tuple[str, str, str, float]] = []
    means = {name: run.means() for name, run in result.runs.items()}
    shown = output_names(args)
    for name, run in result.runs.items():
        rows.extend((name, "all", shown[m], v) for m, v in means[name].items())
        if args.per_query:
            for measure, values in run.values.items():
                rows.extend(
                    (name, qid, shown[measure], v) for qid, v in zip(run.qids, values, strict=True)
                )
    _report_diagnostics(
        {path: result.runs[name].diagnostics for name, path in zip(names, args.run, strict=True)},
        conventions,
        qrels=args.qrels is not None,
    )
    report_scoring(result.scoring_warnings)
    if args.out or args.per_query:
        with open(args.out, "w", newline="") if args.out else nullcontext(sys.stdout) as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(["run", "qid", "measure", "value"])
            text = repr if args.digits is None else (lambda v: f"{v:.{args.digits}g}")
            writer.writerows((*row[:3], text(float(row[3]))) for row in rows)
    else:
        _print_means(means, measures, shown)
    return 0


def _print_means(means: dict[str, dict[str, float]], measures, shown: dict[str, str]) -> None:
    """Runs down, measures across, four decimals: the table a paper's results section wants.
    A mean no query defines (a first relevant rank where none is within depth) is "—", with
    the note that says why."""
    header = ["run", *(shown[m.name] for m in measures)]
    body = [
        [run, *("—" if math.isnan(values[m.name]) else f"{values[m.name]:.4f}" for m in measures)]
        for run, values in means.items()
    ]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    for row in [header, *body]:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        print("  ".join(cells))


def _warn_deeper_cutoffs(measures, conventions) -> None:
    """Once: a cutoff deeper than the depth (`Conventions.depth_note`, the app's wording),
    and condensed lists where asked for (`Conventions.condensed_note`)."""
    for note in (
        conventions.depth_note(measures, whole_ranking=False),
        conventions.condensed_note(),
    ):
        if note:
            print(f"leakeval: note: {note}", file=sys.stderr)


def _report_diagnostics(diagnostics: dict, conventions, qrels: bool = True) -> None:
    """One stderr note per kind of decision the scorer made, counted per run ("4 of 5 runs
    lack 4 of the qrels' queries each"): a total over runs counts each query once per run
    and reads as more queries than the qrels hold. The qrels' own queries with no positive
    grade are the same for every run, and said once. Without `qrels` (published
    evaluations alone), a run's queries are those any of the evaluations holds."""
    from leakeval_core.evaluation.scoring import tie_note

    missing = "scored 0" if conventions.missing == "zero" else "dropped"
    unjudged = "excluded" if conventions.no_relevant == "exclude" else "scored 0"
    no_relevant = max((d.no_relevant for d in diagnostics.values()), default=0)
    if no_relevant:
        say(f"{_queries(no_relevant)} of the qrels with no positive grade, {unjudged}")
    kinds = {
        "missing_from_run": (
            "lacks",
            "lack",
            "{n} of the qrels' queries" if qrels else "{n} of the queries the others hold",
            missing,
        ),
        "not_in_qrels": ("ranks", "rank", "{q} that the qrels do not judge", "ignored"),
        "first_rel_undefined": (
            "finds",
            "find",
            "nothing relevant within depth for {q}",
            "left out of first_rel_rank's mean",
        ),
    }
    for kind, (one, many, what, done) in kinds.items():
        hit = {path: _count(getattr(d, kind)) for path, d in diagnostics.items()}
        hit = {path: n for path, n in hit.items() if n}
        if hit:
            say(_per_run(hit, len(diagnostics), (one, many), what, done))
    for d in diagnostics.values():  # the means a file publishes that are its queries'
        for note in d.published:
            if not note.warns:
                say(note.text)
    tied = {path: d for path, d in diagnostics.items() if d.tied_pairs}
    if tied:
        pairs, changes = (
            sum(getattr(d, k) for d in tied.values()) for k in ("tied_pairs", "tie_changes")
        )
        where = next(iter(tied)) if len(tied) == 1 else f"{len(tied)} of {len(diagnostics)} runs"
        say(f"{where}: {tie_note(pairs, changes, conventions.tie_order)}")


def say(note: str) -> None:
    print(f"leakeval: note: {note}", file=sys.stderr)


def _per_run(hit: dict, runs: int, verbs: tuple[str, str], what: str, done: str) -> str:
    """ "4 of 5 runs lack 4 of the qrels' queries each, scored 0"; one run by its file."""
    low, high = min(hit.values()), max(hit.values())
    n = str(high) if low == high else f"{low} to {high}"
    counted = what.format(n=n, q=_queries(high) if low == high else f"{n} queries")
    if len(hit) == 1:
        return f"{next(iter(hit))} {verbs[0]} {counted}, {done}"
    each = " each" if low == high else ""
    return f"{len(hit)} of {runs} runs {verbs[1]} {counted}{each}, {done}"


def _queries(n: int) -> str:
    return f"{n} quer{'y' if n == 1 else 'ies'}"


def _count(value) -> int:
    return len(value) if isinstance(value, tuple) else int(value)


def _cmd_scores(args: argparse.Namespace) -> int:
    """The finished output is cached too, keyed by the scores' key and the format: a warm
    call hashes the files, finds it and writes it, without importing pandas or numpy.
    Output with failed runs or scoring warnings is not cached, so they are reported every
    time (the scores themselves come from the disk cache then)."""
    from leakeval_core.experiment.cache import Cache, hash_key
    from leakeval_core.experiment.completeness import completeness
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.experiment.scores import scores_key

    experiment = load_experiment(args.experiment)
    measures, conventions = measures_from(args), conventions_from(args)
    parquet = bool(args.out) and Path(args.out).suffix == ".parquet"
    cache = Cache()
    key = hash_key(scores_key(experiment, measures, conventions), parquet, args.names)
    output = cache.get_bytes("scores-output", key)
    failures, warnings = [], ()
    if output is None:
        from leakeval_core import api

        results = api.experiment_scores(
            experiment, measures, conventions, progress=progress("scoring")
        )
        table = results.table.drop(columns=["run_id"])
        output = _scores_output(
            table.assign(measure=table.measure.map(output_names(args))), parquet
        )
        failures = results.failures.error.tolist()
        warnings = results.scoring_warnings(limit=None)
        if not (failures or warnings):
            cache.put_bytes("scores-output", key, output)
    if args.out:
        Path(args.out).write_bytes(output)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    for error in failures:
        print(f"leakeval: {error}", file=sys.stderr)
    report_scoring(warnings)
    # each run's rows are what the file holds; the runs its design expects and lacks are
    # named, as every verb names them, because a mean over its rows would be wrong
    for problem in completeness(experiment).problems():
        print(f"leakeval: warning: {problem}", file=sys.stderr)
    return EXIT_BAD_INPUT if failures else 0


def _scores_output(table, parquet: bool) -> bytes:
    if parquet:
        buffer = io.BytesIO()
        table.to_parquet(buffer, index=False)
        return buffer.getvalue()
    return table.to_csv(index=False, lineterminator="\n").encode()  # floats round-trip
