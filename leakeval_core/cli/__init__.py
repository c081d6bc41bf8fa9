"""The `leakeval` command: one module per command group, each registering its parsers.

Heavy libraries (pandas, pyarrow, pytrec_eval) are imported inside the commands, so `--help`
answers instantly. Bad input exits 2 with one line, `leakeval: FILE:LINE: why`; anything
unexpected also prints one line and suggests `--debug` for the traceback. A cache that
could not be written is said once, after the command, which still succeeds.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from leakeval_core.cli.common import EXIT_BAD_INPUT
from leakeval_core.errors import LeakevalError

__all__ = ["main"]

EXIT_INTERNAL = 1
COMMAND_GROUPS = {
    "dashboard": ("app",),
    "scoring": ("score", "scores"),
    "experiment": ("validate", "compare", "inflation", "story", "report"),
    "audit": ("audit",),
    "leaderboard": ("leaderboard",),
    "card": ("card",),
    "leakage": ("leakage", "split-log"),
    "detection": ("leakage-eval",),
    "collection": ("collection",),
    "admin": ("demo", "cache"),
}
"""Each command group's module (`leakeval_core.cli.<group>`) and the commands it registers,
in the order `--help` lists them. A command's parser is built with its own group's alone:
every group's options and help, and the modules they import, would cost a command more
than a short one takes (a test holds each group to the commands listed here)."""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser_of(_command(argv))
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
    """Every command's parser: the one `--help` describes."""
    return _parser_of(None)


def _parser_of(command: str | None) -> argparse.ArgumentParser:
    """The parser with `command`'s group of commands only (None: every group)."""
    parser = argparse.ArgumentParser(
        prog="leakeval",
        description="How much of a zero-shot retrieval score comes from leaked test queries?",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group, commands in COMMAND_GROUPS.items():
        if command is None or command in commands:
            importlib.import_module(f"{__name__}.{group}").register(sub)
    return parser


def _command(argv: list[str]) -> str | None:
    """The command `argv` names, if it names one before any help flag: the first word that
    is not a flag (`--debug`, the only flag before it, takes no value)."""
    for word in argv:
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word if any(word in c for c in COMMAND_GROUPS.values()) else None
    return None
