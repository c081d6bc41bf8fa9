"""Training qrels uploaded in Chromium at 1280x720: the session's every page counts the
three kinds, the Leakage overlap page shows a topic's shared documents uncut, a bad file
says file:line, and removing the file takes the answers away."""

from __future__ import annotations

import pytest

from tests.app.test_browser import start_app, stop_app, wait_until_idle
from tests.support import answers_qrels, write

pytestmark = pytest.mark.demo

COUNTS = "20 answer-leaked, 11 query-leaked, 19 clean of 50 judged topics"


@pytest.fixture(scope="module")
def audit_url(audit_dir, tmp_path_factory):
    proc, url = start_app(audit_dir.parent, tmp_path_factory.mktemp("cache"))
    yield url
    stop_app(proc)


def test_uploaded_training_qrels_split_every_page_by_answers(
    audit_url, audit_dir, browser, tmp_path
):
    good = write(
        tmp_path / "train_qrels.tsv",
        answers_qrels(audit_dir / "pairs.csv", audit_dir / "qrels.txt"),
    )
    bad = write(tmp_path / "train.csv", "train_qid,docid\nt1,a\nt2,\n")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{audit_url}/leakage")
    page.get_by_text("Which answers leaked: the training qrels").click()
    dropzone = page.get_by_test_id("stFileUploaderDropzoneInput")
    dropzone.set_input_files([str(bad)])
    page.get_by_text("train.csv:3: an empty document id").wait_for(timeout=60_000)
    dropzone.set_input_files([str(good)])  # in place of the bad one
    page.get_by_text("positive documents in train_qrels.tsv are judged").first.wait_for(
        timeout=60_000
    )
    page.get_by_text(COUNTS).first.wait_for(timeout=60_000)
    heading = page.get_by_text("A topic's near-duplicates and the documents")
    heading.scroll_into_view_if_needed()
    wait_until_idle(page)
    grid = page.locator('[data-testid="stDataFrame"]').nth(1)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1280  # uncut
    assert (
        "answer-leaked."
        in page.get_by_text("is a relevant document of the topic").first.inner_text()
    )
    # the session's other pages see them too
    page.get_by_role("link", name="Leakage audit").click()
    page.get_by_text("answer-leaked · query-leaked · clean").click()
    page.get_by_text("Answer-leaked minus clean, per model").first.wait_for(timeout=60_000)
    # removed, the answers are gone
    page.get_by_role("link", name="Leakage overlap").click()
    page.get_by_role("button", name="Remove").click()  # held: its expander is open
    page.get_by_role("button", name="Remove").wait_for(state="detached", timeout=60_000)
    wait_until_idle(page)
    page.get_by_text("31 leaked of 50 judged topics").first.wait_for(timeout=60_000)
    assert page.get_by_text(COUNTS).count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()
