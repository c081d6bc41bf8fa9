"""A reader's cold work, one build at a time, in AppTest: every rerun's requests carry the
session's `ColdWork`, and a page that would wait for the reader's earlier build says so.
(What waits for what is held in tests/unit/api/test_memo.py.)"""

from __future__ import annotations

import threading

import pytest

from leakeval_app.turns import WAITING
from leakeval_core.api import cold_work
from leakeval_core.api.study import _Build

pytestmark = pytest.mark.demo


def test_a_readers_requests_carry_their_cold_work_and_the_page_says_when_it_waits(app, monkeypatch):
    carried = []
    current = cold_work.current

    def seen():
        carried.append((threading.current_thread().name, current()))
        return carried[-1][1]

    monkeypatch.setattr(cold_work, "current", seen)
    at = app()
    work = at.session_state["_leakeval_cold_work"]
    # the rerun's requests are its session's; a build's own requests are part of its one
    assert {thread == "leakeval-build" for thread, _ in carried} == {False, True}
    assert all((reader is None) == (thread == "leakeval-build") for thread, reader in carried)
    assert {reader for _, reader in carried} == {work, None}
    assert WAITING not in [i.value for i in at.info]
    earlier = _Build(("an earlier build",), ())
    work.running = earlier  # still running, as if the reader had clicked away from it
    at.run()
    try:
        assert not at.exception, [e.value for e in at.exception]
        assert WAITING in [i.value for i in at.info]
    finally:
        earlier.finish("done")
    at.run()
    assert WAITING not in [i.value for i in at.info]
