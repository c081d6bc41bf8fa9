"""`leakeval leakage-eval`: how well each detection method agrees with human judgments."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from leakeval_core.api.terms import METHODS, available_methods

__all__ = ["register"]


def register(sub) -> None:
    evaluate = sub.add_parser(
        "leakage-eval", help="score detection methods against labelled (topic, query) pairs"
    )
    evaluate.add_argument(
        "--labels", required=True, help="labelled pairs (TSV; see leakeval_core/leakage/labels.py)"
    )
    evaluate.add_argument(
        "--method",
        choices=(*METHODS, "all"),
        default="all",
        help="the method to score (default: every installed one)",
    )
    evaluate.add_argument(
        "--topics", help="a topics file or ir_datasets id every labelled topic must be in"
    )
    evaluate.add_argument("--folds", type=int, default=5, help="folds, grouped by topic")
    evaluate.add_argument("--json", help="write the figures here as JSON (default: stdout only)")
    evaluate.set_defaults(handler=_cmd_leakage_eval)


def _cmd_leakage_eval(args: argparse.Namespace) -> int:
    from leakeval_core import api

    methods = available_methods() if args.method == "all" else (args.method,)
    labels, results = api.evaluate_labels(args.labels, methods, args.folds, args.topics)
    table = labels.table
    print(
        f"{labels.source}: {len(table)} pairs over {table.topic.nunique()} topics, "
        f"{int(table.near_duplicate.sum())} near-duplicates; folds grouped by topic"
    )
    print(
        "method     ROC AUC  PR AUC  rejected@90%  rejected@95%  threshold  precision  recall"
        "  F1     category"
    )
    for q in results:
        print(
            f"{q.method:9s}  {q.roc_auc:7.3f}  {q.pr_auc:6.3f}  {q.rejected_at_90:12.2f}  "
            f"{q.rejected_at_95:12.2f}  {q.threshold:9.3f}  {q.precision:9.3f}  {q.recall:6.3f}"
            f"  {q.f1:5.3f}  {q.category_agreement:8.3f}"
        )
    for q in results:
        print(
            f"\n{q.method}: verdict (rows; different = below the threshold) by the "
            "annotators' relation (columns)"
        )
        print(q.confusion.to_string())
    print(
        "rejected@R: different-topic pairs scored below the similarity that keeps R of the "
        "near-duplicates. precision/recall/F1: at thresholds chosen on the other folds' "
        "topics. category: agreement with the annotators' relation on near-duplicates.",
        file=sys.stderr,
    )
    if args.json:
        Path(args.json).write_text(json.dumps([q.as_dict() for q in results], indent=2))
    return 0
