"""The `leakeval` command.

Heavy libraries (pandas, pyarrow, pytrec_eval) are imported inside the commands, so `--help`
answers instantly. Bad input exits 2 with one line, `leakeval: FILE:LINE: why`; anything
unexpected also prints one line and suggests `--debug` for the traceback.
"""

from __future__ import annotations

import argparse
import io
import sys
from contextlib import nullcontext
from pathlib import Path

from leakeval_core.errors import LeakevalError

__all__ = ["main"]

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return args.handler(args) or 0
    except LeakevalError as exc:
        print(f"leakeval: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `leakeval ... | head` closed the pipe: not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("leakeval: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        print(
            f"leakeval: internal error: {type(exc).__name__}: {exc} (rerun with --debug for "
            "the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leakeval",
        description="How much of a zero-shot retrieval score comes from leaked test queries?",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    score = sub.add_parser("score", help="score TREC run files against qrels")
    score.add_argument("--qrels", required=True, help="TREC qrels file")
    score.add_argument("--run", required=True, action="append", help="TREC run (repeatable)")
    _add_scoring_options(score)
    score.add_argument("--per-query", action="store_true", help="one row per query, not just means")
    score.add_argument("--out", help="write CSV here instead of printing a table")
    score.set_defaults(handler=_cmd_score)

    scores = sub.add_parser("scores", help="the long SCORES table of an experiment")
    scores.add_argument("experiment", help="experiment folder (holds experiment.toml)")
    _add_scoring_options(scores)
    scores.add_argument("--out", help="FILE.csv or FILE.parquet (default: CSV to stdout)")
    scores.set_defaults(handler=_cmd_scores)

    demo = sub.add_parser("demo", help="generate the simulated demo experiment")
    demo.add_argument("--out", default="data/demo", help="folder to write (default: data/demo)")
    demo.add_argument("--seed", type=int, default=None, help="random seed (default: fixed)")
    demo.set_defaults(handler=_cmd_demo)

    validate = sub.add_parser("validate", help="check an experiment's manifest and every file")
    validate.add_argument("experiment")
    validate.set_defaults(handler=_cmd_validate)

    compare = sub.add_parser("compare", help="paired significance tests between factor levels")
    compare.add_argument("experiment")
    compare.add_argument("--vary", required=True, help="the factor whose levels are compared")
    compare.add_argument("--baseline", help="compare each level with this one (default: all pairs)")
    _add_test_options(compare)
    compare.add_argument("--format", choices=("csv", "latex", "markdown"), default="csv")
    compare.add_argument("--out", help="write here instead of stdout")
    compare.set_defaults(handler=_cmd_compare)

    inflation = sub.add_parser("inflation", help="how much of a gain comes from leaked topics")
    inflation.add_argument("experiment")
    _add_leakage_options(inflation)
    _add_test_options(inflation)
    inflation.add_argument("--top", type=int, default=10, help="topics that inflate most")
    inflation.add_argument("--format", choices=("csv", "latex", "markdown"), default="markdown")
    inflation.add_argument("--out", help="write the summary here instead of stdout")
    inflation.set_defaults(handler=_cmd_inflation)

    report = sub.add_parser("report", help="one self-contained HTML report for a meeting")
    report.add_argument("experiment")
    _add_leakage_options(report)
    _add_test_options(report)
    report.add_argument("--out", required=True, help="the .html file to write")
    report.set_defaults(handler=_cmd_report)

    leakage = sub.add_parser("leakage", help="find near-duplicates of test topics in a log")
    leakage.add_argument("--topics", required=True, help="TREC topics file or ir_datasets id")
    leakage.add_argument("--variants", help="qid<TAB>text query variants, several per topic")
    leakage.add_argument(
        "--train-queries",
        required=True,
        help="qid<TAB>text, CSV with a header, or an ir_datasets id",
    )
    leakage.add_argument(
        "--fields",
        default="title,description",
        help="topic fields to compare (title, description, narrative)",
    )
    leakage.add_argument(
        "--method",
        choices=("lexical", "semantic", "hybrid"),
        default="lexical",
        help="semantic re-ranks lexical candidates with MiniLM embeddings; hybrid combines "
        "lexical, semantic and term signals with fitted weights "
        "(both need the optional extra: pip install -e '.[semantic]')",
    )
    leakage.add_argument("--top-k", type=int, default=20, help="candidates kept per topic")
    leakage.add_argument(
        "--min-similarity", type=float, default=0.3, help="drop candidates below this similarity"
    )
    leakage.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="near_duplicate decision (default: the calibrated 0.8)",
    )
    leakage.add_argument(
        "--chunk-size",
        type=int,
        default=20_000,
        help="training queries compared per step (bounds memory)",
    )
    leakage.add_argument("--out", required=True, help="CSV to write")
    leakage.set_defaults(handler=_cmd_leakage)

    collection = sub.add_parser("collection", help="inspect test collections")
    collection_sub = collection.add_subparsers(dest="action", metavar="ACTION", required=True)
    stats = collection_sub.add_parser("stats", help="topics, judgments and grades")
    stats.add_argument("id", nargs="?", help="ir_datasets id or alias (or use --topics/--qrels)")
    stats.add_argument("--topics")
    stats.add_argument("--qrels")
    stats.add_argument("--json", action="store_true", help="machine-readable output")
    stats.set_defaults(handler=_cmd_collection_stats)
    listing = collection_sub.add_parser("list", help="the collection aliases leakeval knows")
    listing.set_defaults(handler=_cmd_collection_list)

    cache = sub.add_parser("cache", help="manage the on-disk cache")
    cache.add_argument("action", choices=("clear", "path"))
    cache.set_defaults(handler=_cmd_cache)
    return parser


def _add_test_options(parser: argparse.ArgumentParser) -> None:
    _add_scoring_options(parser, single_measure=True)
    parser.add_argument(
        "--test",
        choices=("ttest", "randomization"),
        default="ttest",
        help="paired Student t-test (the study's) or a randomization test",
    )
    parser.add_argument(
        "--correction",
        choices=("bonferroni", "holm", "none"),
        default="bonferroni",
        help="multiple-comparison correction over all rows",
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0, help="seed of randomization and bootstrap")


def _add_leakage_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--factor", default="leakage", help="the factor that sets leakage")
    parser.add_argument("--leaked", default="leaked", help="its leaked level")
    parser.add_argument("--clean", default="none", help="its clean level")
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="similarity at which a topic counts as leaked (default: calibrated)",
    )


def _add_scoring_options(parser: argparse.ArgumentParser, single_measure: bool = False) -> None:
    if single_measure:
        parser.add_argument("--measure", default="ndcg_cut_10", help="default: ndcg_cut_10")
    else:
        parser.add_argument(
            "--measures",
            default=None,
            help="comma-separated, e.g. ndcg_cut_10,P_1,first_rel_rank "
            "(default: ndcg_cut_10,P_1,first_rel_rank,recall_100,judged_10)",
        )
    parser.add_argument("--depth", type=int, default=100, help="documents per query that count")
    parser.add_argument(
        "--gain",
        choices=("linear", "exponential"),
        default="linear",
        help="nDCG gain: linear (trec_eval) or exponential (2^rel - 1)",
    )
    parser.add_argument(
        "--relevance-level",
        type=int,
        default=1,
        help="lowest grade that counts as relevant for binary measures",
    )
    parser.add_argument(
        "--tie-order",
        choices=("docid_asc", "docid_desc"),
        default="docid_asc",
        help="tie break after score (trec_eval uses docid_desc)",
    )
    parser.add_argument(
        "--missing",
        choices=("zero", "drop"),
        default="zero",
        help="qrels queries absent from a run: score 0 (trec_eval -c) or drop",
    )


def _conventions(args: argparse.Namespace):
    from leakeval_core.evaluation.conventions import Conventions

    return Conventions(
        depth=args.depth,
        relevance_level=args.relevance_level,
        gain=args.gain,
        tie_order=args.tie_order,
        missing=args.missing,
    )


def _measures(args: argparse.Namespace):
    from leakeval_core.evaluation.measures import DEFAULT_MEASURES, parse_measures

    if hasattr(args, "measure"):
        return parse_measures(args.measure)
    return parse_measures(args.measures or ",".join(DEFAULT_MEASURES))


def _progress(label: str):
    """A tqdm bar on stderr, only when stderr is a terminal (scripts get clean logs, and
    do not pay for importing tqdm)."""
    bar = None

    def update(done: int, total: int, what: str) -> None:
        nonlocal bar
        if not sys.stderr.isatty():
            return
        if bar is None:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=label, unit="run", file=sys.stderr, leave=False)
        bar.n = done
        bar.set_postfix_str(what[-40:], refresh=True)
        if done >= total:
            bar.close()

    return update


def _cmd_score(args: argparse.Namespace) -> int:
    """Score run files straight from the scorer's arrays: no frame is built per run."""
    import csv

    from leakeval_core.evaluation.qrels import PreparedQrels
    from leakeval_core.evaluation.scoring import score_files
    from leakeval_core.io import trec

    measures = _measures(args)
    qrels = PreparedQrels(trec.read_qrels_table(args.qrels), _conventions(args))
    rows: list[tuple[str, str, str, float]] = []
    means: dict[str, dict[str, float]] = {}
    diagnostics = {}
    names = trec.unique_run_names(args.run)
    results = score_files(args.run, qrels, measures, _progress("scoring"))
    for path, name, result in zip(args.run, names, results, strict=True):
        if isinstance(result, Exception):
            raise result
        means[name] = result.means()
        rows.extend((name, "all", m, v) for m, v in means[name].items())
        if args.per_query:
            for measure, values in result.values.items():
                rows.extend(
                    (name, qid, measure, v) for qid, v in zip(result.qids, values, strict=True)
                )
        diagnostics[path] = result.diagnostics
    _report_diagnostics(diagnostics)
    if args.out or args.per_query:
        with open(args.out, "w", newline="") if args.out else nullcontext(sys.stdout) as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(["run", "qid", "measure", "value"])
            writer.writerows((*row[:3], f"{row[3]:.6g}") for row in rows)
    else:
        _print_means(means, measures)
    return 0


def _print_means(means: dict[str, dict[str, float]], measures) -> None:
    """Runs down, measures across, four decimals: the table a paper's results section wants."""
    header = ["run", *(m.label for m in measures)]
    body = [[run, *(f"{values[m.name]:.4f}" for m in measures)] for run, values in means.items()]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    for row in [header, *body]:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        print("  ".join(cells))


def _report_diagnostics(diagnostics: dict) -> None:
    """One stderr note per kind of decision the scorer made, summed over runs."""
    kinds = {
        "missing_from_run": "qrels queries absent from the run, scored {zero}",
        "no_relevant": "qrels queries without a relevant document, excluded",
        "not_in_qrels": "run queries without judgments, ignored",
        "tied_pairs": "tied document pairs, broken by docid",
        "first_rel_undefined": "queries with no relevant document within depth, left out of "
        "first_rel_rank's mean",
    }
    for kind, text in kinds.items():
        counts = {path: _count(getattr(d, kind)) for path, d in diagnostics.items()}
        hit = {path: n for path, n in counts.items() if n}
        if not hit:
            continue
        where = next(iter(hit)) if len(hit) == 1 else f"{len(hit)} of {len(counts)} runs"
        message = text.format(zero="0")
        print(f"leakeval: note: {where}: {sum(hit.values())} {message}", file=sys.stderr)


def _count(value) -> int:
    return len(value) if isinstance(value, tuple) else int(value)


def _cmd_scores(args: argparse.Namespace) -> int:
    """The finished output is cached too, keyed by the scores' key and the format: a warm
    call hashes the files, finds it and writes it, without importing pandas or numpy.
    Output with failed runs is not cached, so their errors are reported every time."""
    from leakeval_core.experiment.cache import Cache, hash_key
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.experiment.scores import scores_key

    experiment = load_experiment(args.experiment)
    measures, conventions = _measures(args), _conventions(args)
    parquet = bool(args.out) and Path(args.out).suffix == ".parquet"
    cache = Cache()
    key = hash_key(scores_key(experiment, measures, conventions), parquet)
    output = cache.get_bytes("scores-output", key)
    failures = []
    if output is None:
        from leakeval_core.experiment.scores import score_experiment

        results = score_experiment(
            experiment, measures, conventions, cache, progress=_progress("scoring")
        )
        output = _scores_output(results.scores.drop(columns=["run_id"]), parquet)
        failures = results.failures.error.tolist()
        if not failures:
            cache.put_bytes("scores-output", key, output)
    if args.out:
        Path(args.out).write_bytes(output)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    for error in failures:
        print(f"leakeval: {error}", file=sys.stderr)
    return EXIT_BAD_INPUT if failures else 0


def _scores_output(table, parquet: bool) -> bytes:
    if parquet:
        buffer = io.BytesIO()
        table.to_parquet(buffer, index=False)
        return buffer.getvalue()
    return table.to_csv(index=False, float_format="%.6g", lineterminator="\n").encode()


def _cmd_demo(args: argparse.Namespace) -> int:
    from leakeval_core.demo.generator import DEMO_SEED, generate_demo

    out = generate_demo(
        args.out,
        seed=DEMO_SEED if args.seed is None else args.seed,
        progress=_progress("generating demo"),
    )
    print(f"simulated demo experiment written to {out}", file=sys.stderr)
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.collections import load_collection
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.io import queries, trec

    experiment = load_experiment(args.experiment)
    problems = 0
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
    progress = _progress("validating")
    paths = experiment.conditions.path.tolist()
    for i, path in enumerate(paths):
        progress(i, len(paths), str(path))
        try:
            trec.read_run_table(path)  # every check, without building a frame
        except LeakevalError as exc:
            print(f"leakeval: {exc}", file=sys.stderr)
            problems += 1
    progress(len(paths), len(paths), "done")
    factors = ", ".join(
        f"{f} ({experiment.conditions[f].nunique()} levels)" for f in experiment.factors
    )
    print(
        f"{experiment.name}: {len(paths)} runs, {len(experiment.collections)} collections; "
        f"factors: {factors}; {problems} problem(s)"
    )
    return EXIT_BAD_INPUT if problems else 0


def _scored(args: argparse.Namespace):
    """Load and score an experiment; broken runs are reported and left out."""
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.experiment.scores import score_experiment

    experiment = load_experiment(args.experiment)
    results = score_experiment(
        experiment, _measures(args), _conventions(args), progress=_progress("scoring")
    )
    for failure in results.failures.itertuples():
        print(f"leakeval: {failure.error} (left out)", file=sys.stderr)
    return experiment, results


def _level(experiment, factor: str, text: str | None):
    """A level given on the command line, as the factor's own type."""
    if text is None:
        return None
    if factor not in experiment.conditions:
        raise LeakevalError(f"unknown factor {factor!r}; factors: {', '.join(experiment.factors)}")
    for level in experiment.levels(factor):
        if str(level) == text:
            return level
    raise LeakevalError(
        f"{text!r} is not a level of {factor}: {', '.join(map(str, experiment.levels(factor)))}"
    )


def _write(text: str, out: str | None) -> None:
    if out:
        Path(out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _cmd_compare(args: argparse.Namespace) -> int:
    from leakeval_core.analysis.stats import compare_levels, per_query
    from leakeval_core.present.tables import format_table

    experiment, results = _scored(args)
    table = per_query(results, args.measure)
    rows = compare_levels(
        table,
        args.vary,
        _level(experiment, args.vary, args.baseline),
        args.test,
        args.correction,
        args.alpha,
        args.seed,
    )
    caption = (
        f"{args.measure}: paired {args.test} over queries, {args.correction} correction "
        f"over {len(rows)} comparisons, alpha {args.alpha}. "
        "Significant differences marked with a dagger."
    )
    _write(format_table(rows, args.format, caption), args.out)
    return 0


def _leakage_flags(experiment, threshold: float | None):
    from leakeval_core.leakage.table import DEFAULT_THRESHOLD, leaked_qids, load_leakage

    leakage = load_leakage(experiment)
    if leakage.empty:
        raise LeakevalError(
            f"{experiment.root}: no leakage table; add [leakage] or "
            "[training_queries] to experiment.toml"
        )
    return leakage, leaked_qids(leakage, DEFAULT_THRESHOLD if threshold is None else threshold)


def _cmd_inflation(args: argparse.Namespace) -> int:
    from leakeval_core.analysis.inflation import inflation
    from leakeval_core.analysis.stats import per_query
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.present.tables import format_table

    experiment, results = _scored(args)
    leakage, flags = _leakage_flags(experiment, args.threshold)
    result = inflation(
        per_query(results, args.measure),
        flags,
        _level(experiment, args.factor, args.leaked),
        _level(experiment, args.factor, args.clean),
        args.factor,
        parse_measure(args.measure).better,
        args.top,
        args.correction,
    )
    caption = (
        f"{args.measure}: mean per-query delta ({args.leaked} − {args.clean}) on topics "
        f"with a near-duplicate ({leakage.source}) and on the others."
    )
    _write(format_table(result.summary, args.format, caption), args.out)
    if not args.out:
        print(f"\nTop {args.top} inflating topics per condition:")
        sys.stdout.write(format_table(result.top, args.format))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.leakage.table import DEFAULT_THRESHOLD
    from leakeval_core.present.meeting import ReportOptions, build_report

    experiment, results = _scored(args)
    leakage, _ = _leakage_flags(experiment, args.threshold)
    options = ReportOptions(
        factor=args.factor,
        leaked_level=_level(experiment, args.factor, args.leaked),
        clean_level=_level(experiment, args.factor, args.clean),
        threshold=DEFAULT_THRESHOLD if args.threshold is None else args.threshold,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
    )
    text = build_report(experiment, results, parse_measure(args.measure), leakage, options)
    Path(args.out).write_text(text, encoding="utf-8")
    print(
        f"report written to {args.out} ({len(text) / 1e6:.1f} MB, self-contained)", file=sys.stderr
    )
    return 0


def _cmd_leakage(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.collections import topics_from, training_chunks
    from leakeval_core.io import queries
    from leakeval_core.leakage.detect import DetectionOptions, detect, topic_texts
    from leakeval_core.leakage.table import DEFAULT_THRESHOLD, LEAKAGE_COLUMNS

    variants = queries.read_queries(args.variants, unique=False) if args.variants else None
    fields = tuple(f.strip() for f in args.fields.split(",") if f.strip())
    side = topic_texts(topics_from(args.topics), fields, variants)
    options = DetectionOptions(
        top_k=args.top_k,
        min_similarity=args.min_similarity,
        chunk_size=args.chunk_size,
        method=args.method,
    )
    progress = _progress("comparing")
    pairs = detect(
        side,
        training_chunks(args.train_queries, args.chunk_size),
        options,
        lambda done, total, what: progress(done, max(done, total), what),
    )
    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    pairs["near_duplicate"] = pairs.similarity >= threshold
    columns = [c for c in LEAKAGE_COLUMNS if c != "collection"] + ["near_duplicate"]
    pairs[columns].to_csv(args.out, index=False, float_format="%.6f")
    flagged = pairs[pairs.near_duplicate].test_qid.nunique()
    print(
        f"{len(pairs)} candidate pairs; {flagged} of {side.table.test_qid.nunique()} topics "
        f"have a near-duplicate at similarity >= {threshold}",
        file=sys.stderr,
    )
    return 0


def _cmd_collection_stats(args: argparse.Namespace) -> int:
    import json

    from leakeval_core.analysis.collection import collection_summary
    from leakeval_core.experiment.collections import load_collection
    from leakeval_core.experiment.manifest import CollectionSpec

    if args.id and (args.topics or args.qrels):
        raise LeakevalError("give an ir_datasets id or --topics and --qrels, not both")
    if args.id:
        spec = CollectionSpec(args.id, ir_datasets=args.id)
    elif args.topics and args.qrels:
        spec = CollectionSpec("local", topics=Path(args.topics), qrels=Path(args.qrels))
    else:
        raise LeakevalError("give an ir_datasets id (e.g. robust04) or both --topics and --qrels")
    collection = load_collection(spec)
    summary = collection_summary(collection.topics, collection.qrels)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{collection.source}")
        for key, value in summary.items():
            print(f"  {key:<24} {value}")
    return 0


def _cmd_collection_list(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.collections import ALIASES

    for alias, dataset_id in ALIASES.items():
        print(f"{alias:<15} {dataset_id}")
    return 0


def _cmd_cache(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.cache import Cache

    cache = Cache()
    if args.action == "path":
        print(cache.root)
    else:
        print(f"removed {cache.clear()} cached file(s) from {cache.root}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
