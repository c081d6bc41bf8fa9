"""The two errors a user can cause, so every entry point can report them in one line."""

from __future__ import annotations

import os


class LeakevalError(Exception):
    """Bad input or configuration: the message is meant for the user, not a traceback."""


class ParseError(LeakevalError):
    """A problem in an input file, located as precisely as the format allows.

    Carrying the file and line separately (not just in the message) lets the CLI print
    `FILE:LINE: why` and the app list broken runs next to the ones that scored.
    """

    def __init__(self, path: str | os.PathLike[str], line: int | None, why: str) -> None:
        self.path = str(path)
        self.line = line
        self.why = why
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.why}"
