"""A shared server that holds (#37), in headless Chromium: what a reader sees when the cache
cannot be written or an experiment cannot be read (AppTest covers every page:
test_resilience.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.test_browser import DRAWN_CHART, SHOTS, start_app, stop_app, wait_until_idle
from tests.app.test_resilience import BROKEN, broken_experiment, cache_notice
from tests.chromium import CHROMIUM
from tests.support import DAMAGED, INCOMPLETE, damaged_demo

pytestmark = [
    pytest.mark.browser,
    pytest.mark.demo,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed"),
]


@pytest.fixture(scope="module")
def troubled(demo_dir, tmp_path_factory):
    """A server whose cache is a file, on the demo and an experiment that is not TOML."""
    root = tmp_path_factory.mktemp("troubled")
    (root / "data").mkdir()
    (root / "data" / "demo").symlink_to(demo_dir)
    broken_experiment(root / "data")
    cache = root / "cache"
    cache.write_text("a file, where the cache folder should be")
    proc, url = start_app(root / "data", cache)
    yield url, cache
    stop_app(proc)


def test_a_cache_that_cannot_be_written_is_one_line_not_a_traceback(troubled, browser):
    url, cache = troubled
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(url)
    page.locator(DRAWN_CHART).first.wait_for(timeout=120_000)
    wait_until_idle(page)
    notice = page.get_by_test_id("stMain").get_by_text(cache_notice(cache), exact=True)
    assert notice.is_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Traceback").count() == 0
    assert page.get_by_text("OSError").count() == 0
    page.close()


@pytest.mark.parametrize(
    ("query", "width"), [("present=1", 1400), ("", 600)], ids=["presenting", "narrow"]
)
def test_a_bad_experiment_is_explained_on_screen(troubled, browser, query, width):
    """With the sidebar collapsed (presentation mode) or over the page (a narrow window),
    the error is where the page would be, inside the window."""
    url, _ = troubled
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(f"{url}/?experiment=broken&{query}")
    error = page.get_by_test_id("stMain").get_by_text(BROKEN)
    error.wait_for(timeout=120_000)
    wait_until_idle(page)
    assert error.is_visible()
    box = error.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_a_closed_tabs_uploads_are_given_back_when_its_session_ends(demo_dir, browser, tmp_path):
    """The server keeps room for one run. A second reader's run is refused while the first
    reader's tab is open, and kept once that tab has closed and its session ended (a TTL of
    0 s here, which the store makes a second): uploads are retried until one is kept, so
    the test waits on the server's state, not on a clock."""
    run = (demo_dir / "runs/robust04/monot5/leaked/2000/fold1.run").read_bytes()
    mine, theirs = tmp_path / "mine.run", tmp_path / "theirs.run"
    mine.write_bytes(run)
    theirs.write_bytes(run.replace(b" x\n", b" y\n"))  # other content, the same size
    room = {"LEAKEVAL_SERVER_UPLOAD_MB": str(len(run) * 1.5 / 1e6)}
    proc, url = start_app(
        demo_dir.parent, tmp_path / "cache", room, {"server.disconnectedSessionTTL": 0}
    )
    try:
        first, second = (open_uploads(browser, url) for _ in range(2))
        assert upload(first, mine, 1)
        assert not upload(second, theirs, 1)
        assert second.get_by_text("is not kept: the server keeps").count() == 1
        first.close()
        assert any(upload(second, theirs, attempt) for attempt in range(2, 100))
        second.close()
    finally:
        stop_app(proc)


def open_uploads(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{url}/datasets?datasets_tab=Score+your+own+run")
    page.get_by_test_id("stFileUploaderDropzoneInput").wait_for(state="attached", timeout=120_000)
    wait_until_idle(page)
    return page


def upload(page, path: Path, attempt: int) -> bool:
    """Upload `path` (the page's `attempt`th upload); whether it was kept. Each upload's
    rerun draws the uploader anew under its next key: that is when it is done."""
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(path)])
    page.locator(f".st-key-uploads_{attempt}").wait_for(timeout=60_000)
    wait_until_idle(page)
    return page.get_by_test_id("stMain").get_by_text(path.name, exact=True).count() > 0


@pytest.mark.parametrize("how", ["deleted", "malformed"])
def test_a_damaged_fold_is_named_and_gets_no_headline(demo_dir, browser, tmp_path, how):
    """The user study's defect, as a reader sees it: with one fold deleted or malformed,
    the Story showed a headline that reversed the conclusion. Now every page says which
    condition is left out and why, and its pair has no headline."""
    folder = damaged_demo(demo_dir, tmp_path / "data" / "demo", how)
    proc, url = start_app(folder.parent, tmp_path / "cache")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        pair = "&".join(
            f"{'collection' if name == 'collection' else 'story_' + name}={level}"
            for name, level in INCOMPLETE.items()
        )
        page.goto(f"{url}/?{pair}")
        main = page.get_by_test_id("stMain")
        refusal = main.get_by_text("No story for this pair")
        refusal.wait_for(timeout=120_000)
        wait_until_idle(page)
        damaged = DAMAGED.format(1 if how == "deleted" else 2)
        assert main.get_by_text(damaged).first.is_visible()
        assert main.locator("h2", has_text="Leaked training").count() == 0  # no headline
        assert page.get_by_text("worsens").count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        page.screenshot(path=str(SHOTS / f"story-{how}-fold.png"))
        page.close()
    finally:
        stop_app(proc)
