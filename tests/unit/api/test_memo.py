"""The study's memo: one build per key, and no caller waits for another key's build.

Every wait below ends on state (an event set, a thread done), never on a clock: the build in
progress is held until the test releases it, so what overlaps is fixed, not raced."""

import threading

import pytest

from leakeval_core.api.study import _Memo


def test_another_key_never_waits_for_a_build_in_progress():
    memo = _Memo()
    started, release = threading.Event(), threading.Event()

    def slow(_):
        started.set()
        release.wait()
        return "slow"

    builder = threading.Thread(target=memo.get, args=(("scores", "cold"), slow))
    builder.start()
    assert started.wait()
    assert memo.get(("scores", "warm"), lambda _: "cheap") == "cheap"
    assert builder.is_alive()  # the cheap value came while the cold one was still building
    release.set()
    builder.join()
    assert memo.get(("scores", "cold"), lambda _: "again") == "slow"


def test_callers_of_one_key_join_the_build_in_progress():
    memo = _Memo()
    started, release = threading.Event(), threading.Event()
    calls = []

    def build(_):
        calls.append(1)
        started.set()
        release.wait()
        return object()

    results = []
    first = threading.Thread(target=lambda: results.append(memo.get(("k",), build)))
    first.start()
    assert started.wait()
    second = threading.Thread(target=lambda: results.append(memo.get(("k",), build)))
    second.start()
    release.set()
    first.join()
    second.join()
    assert len(calls) == 1
    assert len(results) == 2 and results[0] is results[1]


def test_a_build_may_ask_for_other_keys_and_a_failed_build_is_tried_again():
    memo = _Memo()
    assert memo.get(("outer",), lambda _: memo.get(("inner",), lambda _: 1) + 1) == 2

    def broken(_):
        raise ValueError("no")

    for _ in range(2):
        try:
            memo.get(("bad",), broken)
        except ValueError:
            pass
        else:
            raise AssertionError("the failure was memoised")
    assert memo.get(("bad",), lambda _: "fixed") == "fixed"


class ClickedAway(BaseException):
    """What Streamlit raises through a progress bar when its reader starts another rerun."""


def test_a_build_outlives_a_caller_who_leaves_and_a_joiner_sees_its_progress():
    memo = _Memo()
    reported, release = threading.Event(), threading.Event()
    calls = []

    def build(report):
        calls.append(1)
        report(1, 2, "half")
        reported.set()
        release.wait()
        report(2, 2, "done")
        return "value"

    def leave(done, total, what):
        raise ClickedAway

    with pytest.raises(ClickedAway):  # the caller's progress reached it
        memo.get(("scores", "cold"), build, leave)
    assert reported.wait()
    seen, joined = [], threading.Event()

    def watch(*step):
        seen.append(step)
        joined.set()

    joiner = threading.Thread(
        target=lambda: seen.append(memo.get(("scores", "cold"), build, watch))
    )
    joiner.start()
    assert joined.wait()  # a joiner is shown the step the build is at
    release.set()
    joiner.join()
    assert calls == [1]  # built once, though its first caller left mid-way
    *steps, value = seen
    assert list(dict.fromkeys(steps)) == [(1, 2, "half"), (2, 2, "done")]  # a silent stretch
    assert value == "value"  # repeats its step (the heartbeat) between them


def test_a_caller_can_leave_while_the_build_is_silent():
    """Streamlit stops a rerun only inside one of its calls: the waiting caller's progress
    is called again while the build reports nothing, so a reader's click is answered."""
    memo = _Memo()
    release = threading.Event()

    def build(report):
        report(1, 3, "first of three")
        release.wait()
        return "value"

    calls = []

    def progress(*step):
        calls.append(step)
        if len(calls) > 1:  # the reader clicked away after the first step
            raise ClickedAway

    with pytest.raises(ClickedAway):
        memo.get(("audit",), build, progress)
    assert calls == [(1, 3, "first of three")] * 2
    assert not release.is_set()  # left while the build was still silent
    release.set()
    assert memo.get(("audit",), build) == "value"
