"""`leakeval leakage`: near-duplicates of test topics in a training query log."""

from __future__ import annotations

import argparse
import sys

from leakeval_core.cli.common import add_dataclass_options, from_options, progress
from leakeval_core.leakage.options import DetectionOptions

__all__ = ["register"]


def register(sub) -> None:
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
    add_dataclass_options(leakage, DetectionOptions)
    leakage.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="near_duplicate decision (default: the method's calibrated threshold)",
    )
    leakage.add_argument("--out", required=True, help="CSV to write")
    leakage.set_defaults(handler=_cmd_leakage)


def _cmd_leakage(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.collections import topics_from, training_chunks
    from leakeval_core.io import queries
    from leakeval_core.leakage.detect import detect, topic_texts
    from leakeval_core.leakage.options import threshold_for
    from leakeval_core.leakage.table import LEAKAGE_COLUMNS

    variants = queries.read_queries(args.variants, unique=False) if args.variants else None
    fields = tuple(f.strip() for f in args.fields.split(",") if f.strip())
    side = topic_texts(topics_from(args.topics), fields, variants)
    options = from_options(DetectionOptions, args)
    bar = progress("comparing")
    pairs = detect(
        side,
        training_chunks(args.train_queries, options.chunk_size),
        options,
        lambda done, total, what: bar(done, max(done, total), what),
    )
    threshold = threshold_for(options.method) if args.threshold is None else args.threshold
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
