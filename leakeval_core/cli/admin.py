"""`leakeval demo` (the simulated experiment) and `leakeval cache` (what can be rebuilt)."""

from __future__ import annotations

import argparse
import sys

from leakeval_core.cli.common import progress

__all__ = ["register"]


def register(sub) -> None:
    demo = sub.add_parser("demo", help="generate the simulated demo experiment")
    demo.add_argument("--out", default="data/demo", help="folder to write (default: data/demo)")
    demo.add_argument("--seed", type=int, default=None, help="random seed (default: fixed)")
    demo.set_defaults(handler=_cmd_demo)

    cache = sub.add_parser("cache", help="manage the on-disk cache")
    cache.add_argument("action", choices=("clear", "path"))
    cache.set_defaults(handler=_cmd_cache)


def _cmd_demo(args: argparse.Namespace) -> int:
    from leakeval_core.demo.generator import DEMO_SEED, generate_demo

    out = generate_demo(
        args.out,
        seed=DEMO_SEED if args.seed is None else args.seed,
        progress=progress("generating demo"),
    )
    print(f"simulated demo experiment written to {out}", file=sys.stderr)
    return 0


def _cmd_cache(args: argparse.Namespace) -> int:
    from leakeval_core.experiment.cache import Cache

    cache = Cache()
    if args.action == "path":
        print(cache.root)
    else:
        print(f"removed {cache.clear()} cached file(s) from {cache.root}", file=sys.stderr)
    return 0
