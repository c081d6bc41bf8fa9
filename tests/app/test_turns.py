"""A reader's cold work, one build at a time, in AppTest: every rerun's requests carry the
session's `ColdWork`, and a page that would wait for the reader's earlier build says so.
(What waits for what is held in tests/unit/api/test_memo.py.)"""

from __future__ import annotations

import threading

from leakeval_app.turns import WAITING
from leakeval_core.api import cold_work
from leakeval_core.api.study import _Build
from tests.app.test_resilience import small_experiment


def test_a_readers_requests_carry_their_cold_work_and_the_page_says_when_it_waits(
    open_app, tmp_path, monkeypatch
):
    """On an experiment of its own, so that its values are built here, whichever tests ran
    before in this process."""
    carried = []
    current = cold_work.current

    def seen():
        carried.append((threading.current_thread().name, current()))
        return carried[-1][1]

    monkeypatch.setattr(cold_work, "current", seen)
    at = open_app(small_experiment(tmp_path / "data").parent, tmp_path / "cache")
    work = at.session_state["_leakeval_cold_work"]
    # the rerun's requests are its session's; a build's own requests are part of its one
    assert any(thread != "leakeval-build" for thread, _ in carried)
    assert all((reader is None) == (thread == "leakeval-build") for thread, reader in carried)
    assert {reader for _, reader in carried} - {None} == {work}
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
