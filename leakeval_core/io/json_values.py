"""JSON decoded by the standard library, its one unbounded fault bounded.

Python's C decoder recurses once per level of nesting, so a value nested 200,000 levels deep
(a few hundred kilobytes of '[') raises RecursionError, which no reader expects: the CLI said
"internal error" and the dashboard showed a traceback with the server's paths. Every reader
of a file's JSON decodes through here, where too deep a value is a ValueError (`TooDeep`)
that each reader says as its own "invalid JSON" line, naming the file and the line.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TooDeep", "loads", "raw_decode"]


class TooDeep(ValueError):
    """A JSON value nested deeper than the decoder follows."""

    def __init__(self) -> None:
        super().__init__(
            "nested too deeply (runs, qrels and query files nest a few levels, not hundreds)"
        )


def loads(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise TooDeep from None


def raw_decode(decoder: json.JSONDecoder, text: str, at: int) -> tuple[Any, int]:
    try:
        return decoder.raw_decode(text, at)
    except RecursionError:
        raise TooDeep from None
