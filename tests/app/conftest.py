"""The dashboard's fixtures: opening it in AppTest, and the server the Chromium modules share
(with the session's browser, `tests/conftest.py`).

Session-scoped where they are expensive: `make test` hands each module whole to a worker
(`--dist loadscope`), so a module-scoped server or browser would be started once per module
that uses it, and once per session is enough.
"""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.test_browser import start_app, stop_app
from tests.support import ROOT


class ServerLog(logging.Handler):
    """What the app logs, kept: the tracebacks of its unexpected errors."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def server_log(request):
    """An unexpected error is one line on the page, its traceback in the server's log
    (`render.show_failure`), which a test that looks only for exceptions would pass over: one
    logged fails the test, but where it is marked `unexpected_errors`."""
    kept, logger = ServerLog(), logging.getLogger("leakeval_app")
    logger.addHandler(kept)
    yield kept.records
    logger.removeHandler(kept)
    if request.node.get_closest_marker("unexpected_errors") is None:
        assert not kept.records, [logging.Formatter().format(r) for r in kept.records]


@pytest.fixture
def open_app(monkeypatch):
    """Open the dashboard in AppTest on the experiments under a data folder, at a page (the
    Story without one), as `streamlit run app.py` does; an exception fails the test."""
    monkeypatch.chdir(ROOT)

    def open_page(data_root: Path, cache: Path, page: str | None = None) -> AppTest:
        monkeypatch.setenv("LEAKEVAL_DATA", str(data_root))
        monkeypatch.setenv("LEAKEVAL_CACHE", str(cache))
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return open_page


@pytest.fixture
def app(open_app, demo_dir, demo_cache, monkeypatch):
    """The dashboard on the demo, with the session's cache: `app(page)`. The environment is
    set before the first call, so a test may also open an `AppTest` of its own on it."""
    monkeypatch.setenv("LEAKEVAL_DATA", str(demo_dir.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    return partial(open_app, demo_dir.parent, demo_cache.root)


@pytest.fixture(scope="session")
def app_url(demo_dir, demo_cache):
    # the session's cache: detection (MiniLM over the candidates) runs once per test session
    proc, url = start_app(demo_dir.parent, demo_cache.root)
    yield url
    stop_app(proc)
