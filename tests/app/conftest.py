"""The dashboard's browser fixtures, shared by the modules that drive Chromium."""

from __future__ import annotations

import pytest

from tests.app.test_browser import start_app, stop_app
from tests.chromium import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def app_url(demo_dir, demo_cache):
    # the session's cache: detection (MiniLM over the candidates) runs once per test session
    proc, url = start_app(demo_dir.parent, demo_cache.root)
    yield url
    stop_app(proc)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
