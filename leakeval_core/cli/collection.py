"""`leakeval collection`: what a test collection holds, and the aliases leakeval knows."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(sub) -> None:
    collection = sub.add_parser("collection", help="inspect test collections")
    actions = collection.add_subparsers(dest="action", metavar="ACTION", required=True)
    stats = actions.add_parser("stats", help="topics, judgments and grades")
    stats.add_argument("id", nargs="?", help="ir_datasets id or alias (or use --topics/--qrels)")
    stats.add_argument("--topics")
    stats.add_argument("--qrels")
    stats.add_argument("--json", action="store_true", help="machine-readable output")
    stats.set_defaults(handler=_cmd_collection_stats)
    listing = actions.add_parser("list", help="the collection aliases leakeval knows")
    listing.set_defaults(handler=_cmd_collection_list)


def _cmd_collection_stats(args: argparse.Namespace) -> int:
    import json

    from leakeval_core import api

    source, summary = api.collection_stats(args.id, args.topics, args.qrels)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(source)
        for key, value in summary.items():
            print(f"  {key:<24} {value}")
    return 0


def _cmd_collection_list(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.aliases import ALIASES

    for alias, dataset_id in ALIASES.items():
        print(f"{alias:<15} {dataset_id}")
    return 0
