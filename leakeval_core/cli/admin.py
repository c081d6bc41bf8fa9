"""`leakeval demo` (the simulated experiment) and `leakeval cache` (what can be rebuilt)."""

from __future__ import annotations

import argparse
import json
import sys

from leakeval_core.cli.common import progress
from leakeval_core.experiment.cache import DEFAULT_LIMIT_MB, LIMIT_VARIABLE

__all__ = ["register"]


def register(sub) -> None:
    demo = sub.add_parser("demo", help="generate the simulated demo experiment")
    demo.add_argument("--out", default="data/demo", help="folder to write (default: data/demo)")
    demo.add_argument("--seed", type=int, default=None, help="random seed (default: fixed)")
    demo.set_defaults(handler=_cmd_demo)

    cache = sub.add_parser(
        "cache",
        help="the on-disk cache: its size and entries (default), clear it, or its path",
        description="The on-disk cache ($LEAKEVAL_CACHE, default ~/.cache/leakeval) holds "
        f"only what can be computed again. It is kept within ${LIMIT_VARIABLE} megabytes "
        f"(default {DEFAULT_LIMIT_MB}), least recently used entries going first.",
    )
    cache.add_argument(
        "action",
        nargs="?",
        default="info",
        choices=("info", "clear", "path"),
        help="info: size, limit and entries by kind (default); clear: delete every entry; "
        "path: print the folder",
    )
    cache.add_argument("--json", action="store_true", help="info as JSON")
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
    elif args.action == "clear":
        print(f"removed {cache.clear()} cached file(s) from {cache.root}", file=sys.stderr)
    else:
        _print_usage(cache.usage(), args.json)
    return 0


def _print_usage(usage, as_json: bool) -> None:
    """What the cache holds, by kind of entry, against its limit."""
    if as_json:
        record = {
            "path": str(usage.root),
            "entries": usage.entries,
            "bytes": usage.size,
            "limit_bytes": usage.limit,
            "kinds": {k: {"entries": n, "bytes": b} for k, (n, b) in usage.kinds.items()},
            "temporary": {"files": usage.temporary[0], "bytes": usage.temporary[1]},
        }
        print(json.dumps(record, indent=2))
        return
    print(
        f"{usage.root}: {_entries(usage.entries)}, {_megabytes(usage.size)} of "
        f"{_megabytes(usage.limit)} ({LIMIT_VARIABLE})"
    )
    width = max((len(kind) for kind in usage.kinds), default=0)
    for kind, (n, size) in usage.kinds.items():
        print(f"  {kind:<{width}}  {_entries(n, 6):<14}  {_megabytes(size):>10}")
    if usage.temporary[0]:
        print(
            f"  and {usage.temporary[0]} temporary file(s), {_megabytes(usage.temporary[1])}: "
            "being written, or left by a writer that died (the next process to start removes those)"
        )


def _entries(count: int, width: int = 0) -> str:
    """The count and its noun (1 entry, 2 entries), the count right-aligned in `width`."""
    return f"{count:>{width}} {'entry' if count == 1 else 'entries'}"


def _megabytes(size: float) -> str:
    """A size as LEAKEVAL_CACHE_MB counts it (1 MB = 2^20 bytes); small ones in kB."""
    if size >= 1 << 20:
        return f"{size / (1 << 20):.1f} MB"
    return f"{size / (1 << 10):.1f} kB" if size >= 1 << 10 else f"{int(size)} B"
