"""Serving a lab, in headless Chromium against a real `leakeval app`: an upload that expands
past the limit is refused within the server's memory, and a read-only room has no uploader.
(docs/serving.md; the warning for another address is tested without binding it, in
tests/unit/cli/test_dashboard.py.)"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from tests.app.test_browser import start_app, stop_app, wait_until_idle
from tests.chromium import CHROMIUM
from tests.support import gzip_bomb, parquet_bomb

pytestmark = [
    pytest.mark.browser,
    pytest.mark.demo,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed"),
]

UPLOAD_TAB = "/datasets?datasets_tab=Score+your+own+run"
LIMIT = 200_000_000
"""The upload limit, by default (LEAKEVAL_MAX_UPLOAD_MB=200)."""


def server_process(cli) -> psutil.Process:
    """The Streamlit server `leakeval app` started (its child)."""
    children = psutil.Process(cli.pid).children(recursive=True)
    return next(p for p in children if "leakeval_app.serve" in p.cmdline())


@contextmanager
def peak_memory(process: psutil.Process):
    """The process's resident memory, sampled on a thread until the block ends: a list that
    holds the highest sample once it has."""
    peak, done = [process.memory_info().rss], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):  # a sampling interval, not a wait for anything
            peak[0] = max(peak[0], process.memory_info().rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()


def open_uploads(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(url + UPLOAD_TAB)
    page.get_by_text("Score run files").wait_for(timeout=180_000)
    wait_until_idle(page)
    return page


def test_bombs_are_refused_within_the_servers_memory(demo_dir, demo_cache, browser, tmp_path):
    """On the Dataset browser's "Score your own run", one after the other: a gibibyte of one
    run line, a megabyte gzipped, and a Parquet run of sixty million rows, under a megabyte
    dictionary-encoded and compressed (1.9 GB decoded). Each is refused by leakeval's
    message naming the limit, while the server never holds as much as the limit more than
    it did before (it once held all of the gzip, and went from 800 MB to 3 GB on such a
    Parquet file)."""
    line = (demo_dir / "runs/robust04/monot5/leaked/2000/fold1.run").read_bytes().split(b"\n")[0]
    gzipped = gzip_bomb(tmp_path / "bomb.run.gz", line + b"\n", 1 << 30)
    qid, _, docid, *_ = line.decode().split()
    parquet = parquet_bomb(
        tmp_path / "bomb.parquet", 60_000_000, {"qid": qid, "docno": docid, "score": 1.5}
    )
    assert gzipped.stat().st_size < 4_000_000 and parquet.stat().st_size < 1_000_000
    cli, url = start_app(demo_dir.parent, demo_cache.root)
    try:
        server = server_process(cli)
        page = open_uploads(browser, url)
        for bomb in (gzipped, parquet):
            refusal = page.get_by_text(
                f"leakeval: {bomb.name}: more than 200.0 MB once decompressed, over the upload "
                "limit of 200.0 MB (LEAKEVAL_MAX_UPLOAD_MB)"
            )
            before = server.memory_info().rss
            with peak_memory(server) as peak:
                page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(bomb)])
                refusal.wait_for(timeout=120_000)
                wait_until_idle(page)
            assert peak[0] - before < LIMIT, (bomb.name, before, peak[0])
            assert page.get_by_text(bomb.name, exact=True).count() == 0  # not kept
            assert page.locator('[data-testid="stException"]').count() == 0
        # a file just over the limit reaches leakeval, whose message names the limit: the
        # browser's own check is at twice it (it said "File must be 200.0MB or smaller")
        over = tmp_path / "over.run"
        with open(over, "wb") as out:
            out.truncate(LIMIT + 500_000)
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(over)])
        page.get_by_text(
            "leakeval: over.run: 200.5 MB is over the upload limit of 200.0 MB "
            "(LEAKEVAL_MAX_UPLOAD_MB)"
        ).wait_for(timeout=120_000)
        assert page.get_by_text("File must be", exact=False).count() == 0
        page.close()
    finally:
        stop_app(cli)


def test_a_read_only_room_has_no_uploader(demo_dir, demo_cache, browser):
    """`leakeval app --host 127.0.0.1 --no-uploads`: the tab says uploads are off, and no
    upload widget is drawn."""
    cli, url = start_app(
        demo_dir.parent, demo_cache.root, args=("--host", "127.0.0.1", "--no-uploads")
    )
    try:
        page = open_uploads(browser, url)
        page.get_by_text("Uploads are off on this server (LEAKEVAL_NO_UPLOADS).").wait_for()
        assert page.get_by_test_id("stFileUploader").count() == 0
        assert page.get_by_test_id("stFileUploaderDropzoneInput").count() == 0
        page.close()
    finally:
        stop_app(cli)
