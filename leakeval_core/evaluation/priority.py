"""Readers first: cold work gives way while a reader's request is running.

A served app's sessions share one process, hence one GIL. Scoring a run is many short
numpy and pyarrow steps with Python between them, so a thread scoring cold holds the GIL
about half of the time it runs, and a cheap rerun of another reader, Python too, waits for
it at every step: twice as slow, whatever the cores. So the app marks each rerun `in_front`,
and the scoring threads `give_way` before each file while any rerun is in front: it runs
with the GIL to itself, and the cold work goes on between reruns. A rerun that waits for
cold work (a build, a scoring) steps aside while it waits, or it would hold up what it waits
for. The wait is bounded (`PAUSE`), so readers clicking without a break slow cold work down
but never stop it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["PAUSE", "give_way", "in_front", "stepping_aside"]

PAUSE = 0.02
"""Seconds cold work waits before each file while a rerun is in front: a cheap rerun takes a
few times this, so it runs alone but for one file's scoring; and under a stream of reruns
cold work still scores a file every `PAUSE`."""

_lock = threading.Lock()
_in_front = 0
_clear = threading.Event()
_clear.set()
_here: ContextVar[bool] = ContextVar("leakeval_in_front", default=False)


def _move(by: int) -> None:
    global _in_front
    with _lock:
        _in_front += by
        if _in_front:
            _clear.clear()
        else:
            _clear.set()


@contextmanager
def in_front() -> Iterator[None]:
    """A reader's request runs: cold work gives way until it ends."""
    token = _here.set(True)
    _move(1)
    try:
        yield
    finally:
        _move(-1)
        _here.reset(token)


@contextmanager
def stepping_aside() -> Iterator[None]:
    """The calling request waits for cold work: out of the way meanwhile (a thread that is
    not in front is left as it is)."""
    if not _here.get():
        yield
        return
    _move(-1)
    _here.set(False)
    try:
        yield
    finally:
        _here.set(True)
        _move(1)


def give_way() -> None:
    """Before a step of cold work: wait while a request is in front, `PAUSE` at most."""
    _clear.wait(PAUSE)
