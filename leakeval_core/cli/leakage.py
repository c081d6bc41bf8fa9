"""`leakeval leakage`: near-duplicates of test topics in a training query log."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from leakeval_core.api.terms import LOCAL_CLUSTER, DetectionOptions
from leakeval_core.api.view import SPLITS
from leakeval_core.cli.common import (
    add_dataclass_options,
    add_format_option,
    formatted,
    from_options,
    progress,
)
from leakeval_core.errors import LeakevalError

__all__ = ["add_answer_options", "add_sample_option", "register"]

ROLES = ("train-queries", "topics")


def register(sub) -> None:
    leakage = sub.add_parser("leakage", help="find near-duplicates of test topics in a log")
    leakage.add_argument(
        "--topics", help="topics (TREC, a BEIR folder, JSON lines, ...) or an ir_datasets id"
    )
    leakage.add_argument(
        "--experiment",
        help="instead of --topics: every collection's topics of this experiment, and its "
        "[training_queries] unless --train-queries is given; the CSV then has a collection "
        "column and can be the experiment's [leakage] table",
    )
    leakage.add_argument("--variants", help="qid<TAB>text query variants, several per topic")
    leakage.add_argument(
        "--train-queries",
        help="qid<TAB>text or CSV with a header (gzipped or not), JSON lines, Parquet, a "
        "saved Hugging Face dataset, an ir_datasets id, or a sharded log: a folder or a quoted "
        "glob of such files",
    )
    add_format_option(leakage, ROLES)
    leakage.add_argument(
        "--fields",
        default="title,description",
        help="topic fields to compare (title, description, narrative)",
    )
    add_dataclass_options(leakage, DetectionOptions)
    leakage.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="near_duplicate decision (default: the method's calibrated threshold); the "
        "sidecar keeps it, so reading the CSV back flags the same topics",
    )
    add_sample_option(leakage)
    add_answer_options(leakage, split=False)
    leakage.add_argument(
        "--qrels",
        help="the test topics' qrels, which --train-qrels' positives are matched to (with "
        "--experiment: its collections' own)",
    )
    leakage.add_argument(
        "--relevance-level",
        type=int,
        default=1,
        help="lowest test grade that counts as relevant for shared_relevant (default: 1)",
    )
    leakage.add_argument(
        "--dask",
        nargs="?",
        const=LOCAL_CLUSTER,
        default=None,
        metavar="ADDRESS",
        help="compare the shards on Dask: a local cluster (one worker per core), or the "
        "scheduler at ADDRESS (tcp://host:8786); needs pip install -e '.[dask]'",
    )
    leakage.add_argument(
        "--skip-bad-shards",
        action="store_true",
        help="leave out shards that fail to parse and list them in the sidecar JSON "
        "(default: the run fails, since a hole in the log would hide leakage)",
    )
    leakage.add_argument(
        "--out", required=True, help="CSV to write; OUT's .json sidecar says what was read"
    )
    leakage.set_defaults(handler=_cmd_leakage)

    split = sub.add_parser(
        "split-log", help="write a query log as Parquet shards, for `leakage --dask`"
    )
    split.add_argument("--train-queries", required=True, help="a query file or ir_datasets id")
    split.add_argument("--out", required=True, help="folder to create for the shards")
    split.add_argument(
        "--shard-size", type=int, default=1_000_000, help="queries per shard (default 1000000)"
    )
    split.set_defaults(handler=_cmd_split_log)


def add_sample_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sample-of",
        metavar="LOG",
        help="the full log the training queries are a sample of (msmarco-document/train, "
        "msmarco-passage/train, msmarco-document/orcas, or an alias such as orcas), so every "
        "answer says how much of it was searched (an experiment: [training_queries] sample_of)",
    )


def add_answer_options(parser: argparse.ArgumentParser, split: bool = True) -> None:
    """`--train-qrels`, and where a door splits the topics, `--split` (the View's)."""
    if split:
        parser.add_argument(
            "--split",
            choices=SPLITS,
            default=None,
            help="leaked: leaked minus other topics (the default); answer: answer-leaked, "
            "query-leaked and clean topics (a near-duplicate's training positive is a relevant "
            "document, or none is), three comparisons in one family; needs --train-qrels (an "
            "experiment: [training_queries] qrels) or pairs with a shared_relevant column",
        )
    parser.add_argument(
        "--train-qrels",
        metavar="FILE",
        help="the training queries' positive documents (TREC qrels such as MS MARCO's "
        "qrels.train.tsv, a BEIR qrels TSV, or a CSV of train_qid and docid): each pair then "
        "says which of its topic's relevant documents the model was trained on "
        "(shared_relevant; an experiment: [training_queries] qrels)",
    )


def _cmd_leakage(args: argparse.Namespace) -> int:
    from leakeval_core import api
    from leakeval_core.api.inputs import detected_pairs
    from leakeval_core.api.leakage import detection_source, experiment_options

    fields = tuple(f.strip() for f in args.fields.split(",") if f.strip())
    if (args.experiment is None) == (args.topics is None):
        raise LeakevalError("give the topics with --topics or --experiment (one of them)")
    if args.topics is not None and args.train_queries is None:
        raise LeakevalError("--train-queries is required with --topics")
    if args.topics is not None and args.train_qrels is not None and args.qrels is None:
        raise LeakevalError(
            "--train-qrels needs the test qrels (--qrels): its positives are matched to the "
            "topics' relevant documents"
        )
    experiment = api.load_experiment(args.experiment) if args.experiment else None
    options = from_options(DetectionOptions, args)
    if experiment is not None and args.device is None:
        options = experiment_options(experiment, method=options.method)
    bar = progress("comparing", unit="query")
    pairs = api.detect_leakage(
        args.experiment or formatted(args, "topics", args.topics, ROLES),
        formatted(args, "train-queries", args.train_queries, ROLES),
        options,
        fields,
        variants=args.variants,
        dask=args.dask,
        skip_bad_shards=args.skip_bad_shards,
        progress=bar,
        shard_progress=progress("shards", unit="shard"),
        qrels=args.qrels,
        train_qrels=args.train_qrels,
        relevance_level=args.relevance_level,
    )
    report = pairs.attrs["read"]
    train_queries = args.train_queries or experiment.training_queries
    sample_of = args.sample_of or (experiment.sample_of if experiment else None)
    # cut as written, so that reading the file back flags the very pairs marked here
    pairs["similarity"] = pairs.similarity.round(6)
    detected = detected_pairs(pairs, options.method, train_queries, sample_of, args.threshold)
    pairs["near_duplicate"] = detected.reached().to_numpy()
    # the shared documents last, after the columns every pairs file has
    shared = [c for c in ("shared_relevant", "shared_docs") if c in pairs]
    pairs = pairs[[*(c for c in pairs.columns if c not in shared), *shared]]
    pairs.to_csv(args.out, index=False, float_format="%.6f")
    sidecar = {
        "topics": args.topics or args.experiment,
        "train_queries": str(train_queries),
        "sample_of": detected.logs[0].sample_of,
        "method": options.method,
        "threshold": detected.threshold,
        "dask": args.dask,
        **report,
    }
    if detected.answered:
        sidecar |= {
            "train_qrels": str(args.train_qrels or experiment.training_qrels),
            **pairs.attrs["answers"],
        }
    Path(str(args.out) + ".json").write_text(json.dumps(sidecar, indent=2) + "\n")
    flagged = pairs[pairs.near_duplicate].test_qid.nunique()
    print(
        f"{len(pairs)} candidate pairs; {flagged} of {pairs.attrs['topics']} topics "
        f"have a near-duplicate at similarity >= {detected.threshold}; "
        f"{detection_source(options.method, Path(str(train_queries)).name, report)}",
        file=sys.stderr,
    )
    if detected.answered:
        print(f"leakeval: {detected.answers}", file=sys.stderr)
        print(f"leakeval: {_leak_counts(detected, pairs)}", file=sys.stderr)
    for log in detected.logs:
        if log.sample_warning():
            print(f"leakeval: {log.sample_warning()}", file=sys.stderr)
    for skipped in report.get("skipped_shards", []):
        print(f"leakeval: skipped {skipped['error']}", file=sys.stderr)
    return 0


def _leak_counts(answers, pairs) -> str:
    """ "12 answer-leaked, 13 query-leaked, 25 clean of 50 topics" (per collection)."""
    import pandas as pd

    topics = pd.DataFrame(list(pairs.attrs["topic_ids"]), columns=["collection", "qid"])
    if "collection" not in pairs:  # the topics of one collection: its pairs name none
        topics = topics.assign(collection="")
    said = answers.leak_statements(topics)
    return "; ".join(f"{name}: {text}" if name else text for name, text in said.items())


def _cmd_split_log(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.collections import training_chunks
    from leakeval_core.io.shards import write_shards

    if args.shard_size < 1:
        raise LeakevalError(f"--shard-size must be at least 1, got {args.shard_size}")
    written = write_shards(
        training_chunks(args.train_queries, min(args.shard_size, 100_000)),
        Path(args.out),
        args.shard_size,
    )
    print(f"{len(written)} shards written to {args.out}", file=sys.stderr)
    return 0
