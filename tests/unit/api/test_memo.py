"""The study's memo: one build per key, and no caller waits for another key's build.

Every wait below ends on state (an event set, a thread done), never on a clock: the build in
progress is held until the test releases it, so what overlaps is fixed, not raced."""

import threading

from leakeval_core.api.study import _Memo


def test_another_key_never_waits_for_a_build_in_progress():
    memo = _Memo()
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        release.wait()
        return "slow"

    builder = threading.Thread(target=memo.get, args=(("scores", "cold"), slow))
    builder.start()
    assert started.wait()
    assert memo.get(("scores", "warm"), lambda: "cheap") == "cheap"
    assert builder.is_alive()  # the cheap value came while the cold one was still building
    release.set()
    builder.join()
    assert memo.get(("scores", "cold"), lambda: "again") == "slow"


def test_callers_of_one_key_join_the_build_in_progress():
    memo = _Memo()
    started, release = threading.Event(), threading.Event()
    calls = []

    def build():
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
    assert memo.get(("outer",), lambda: memo.get(("inner",), lambda: 1) + 1) == 2

    def broken():
        raise ValueError("no")

    for _ in range(2):
        try:
            memo.get(("bad",), broken)
        except ValueError:
            pass
        else:
            raise AssertionError("the failure was memoised")
    assert memo.get(("bad",), lambda: "fixed") == "fixed"
