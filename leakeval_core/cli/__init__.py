"""The `leakeval` command: one module per command group, each registering its parsers.

Heavy libraries (pandas, pyarrow, pytrec_eval) are imported inside the commands, so `--help`
answers instantly. Bad input exits 2 with one line, `leakeval: FILE:LINE: why`; anything
unexpected also prints one line and suggests `--debug` for the traceback. A cache that
could not be written is said once, after the command, which still succeeds.
"""

from __future__ import annotations

import argparse
import sys

from leakeval_core.cli import (
    admin,
    audit,
    card,
    collection,
    dashboard,
    detection,
    experiment,
    leaderboard,
    leakage,
    scoring,
)
from leakeval_core.cli.common import EXIT_BAD_INPUT
from leakeval_core.errors import LeakevalError

__all__ = ["main"]

EXIT_INTERNAL = 1
COMMAND_GROUPS = (
    dashboard,
    scoring,
    experiment,
    audit,
    leaderboard,
    card,
    leakage,
    detection,
    collection,
    admin,
)


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
    finally:
        _say_cache_notices()


def _say_cache_notices() -> None:
    """Each cache folder that could not be written, in one line (imported only if a cache
    was: `--help` and the warm paths stay light)."""
    cache = sys.modules.get("leakeval_core.experiment.cache")
    if cache is not None and not sys.stderr.closed:
        for notice in cache.take_notices():
            print(notice, file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leakeval",
        description="How much of a zero-shot retrieval score comes from leaked test queries?",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(sub)
    return parser
