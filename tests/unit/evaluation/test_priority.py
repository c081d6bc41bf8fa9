"""Readers first: while a reader's request is in front, cold work gives way; a request that
waits for cold work steps out of its way. What is held is state (whether cold work may run),
never a duration."""

from __future__ import annotations

import threading

from leakeval_core.api.study import _Memo
from leakeval_core.evaluation import priority


def clear() -> bool:
    """Whether cold work may run without giving way."""
    return priority._clear.is_set()


def test_cold_work_gives_way_while_any_request_is_in_front():
    assert clear()
    entered, leave = threading.Event(), threading.Event()

    def other_request():
        with priority.in_front():
            entered.set()
            leave.wait()

    other = threading.Thread(target=other_request)
    with priority.in_front():
        assert not clear()
        other.start()
        assert entered.wait()
        with priority.stepping_aside():  # this one waits; the other is still in front
            assert not clear()
        leave.set()
        other.join()
        assert not clear()
        with priority.stepping_aside():
            assert clear()
        assert not clear()
    assert clear()
    with priority.stepping_aside():  # not in front: nothing to step out of
        assert clear()
    assert clear()


def test_a_request_waiting_for_a_build_is_out_of_its_way():
    """Else the build it waits for would give way to it, file by file."""
    memo = _Memo()
    waiting, seen = threading.Event(), []

    def build(report):
        report(0, 1, "scoring")  # relayed to the caller once it waits
        waiting.wait()
        seen.append(clear())
        return "value"

    with priority.in_front():
        assert memo.get(("scores",), build, lambda *step: waiting.set()) == "value"
        assert not clear()
    assert seen == [True]
