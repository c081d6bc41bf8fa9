"""One reader's cold work at a time.

A served app's readers share one study, whose values are built on threads that outlive the
request that started them (`study._Memo`). A reader who clicks through depths or measures
faster than they compute would otherwise start a build per click, every one running at once
on the cores the other readers need. So each reader's requests carry that reader's
`ColdWork` (`use`, once per request thread): a request that needs a new build while one it
started earlier is still running waits for that one to finish first, relaying its progress,
so a reader has at most one build of their own running. Joining a build already under way,
anyone's, and finding a value built never wait. A build carries none: what it asks for is
part of its reader's one computation.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

__all__ = ["ColdWork", "current"]

_CURRENT: ContextVar[ColdWork | None] = ContextVar("leakeval_cold_work", default=None)


class ColdWork:
    """One reader's builds, started one at a time."""

    def __init__(self) -> None:
        self.running: Any = None
        """The build this reader started last (a `study._Build`), until it has finished."""

    def use(self) -> None:
        """The calling thread's requests are this reader's (a request thread's own context:
        a thread started later, a build's, does not inherit it)."""
        _CURRENT.set(self)

    def earlier(self) -> Any:
        """The build this reader started and is still running, else None."""
        if self.running is not None and self.running.finished:
            self.running = None
        return self.running

    @property
    def busy(self) -> bool:
        return self.earlier() is not None


def current() -> ColdWork | None:
    """The reader the calling thread works for, if any (None: a script, the CLI)."""
    return _CURRENT.get()
