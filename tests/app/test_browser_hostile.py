"""A lab server that is safe to share (#47), in headless Chromium: links, images and HTML in
a link's parameters, in an experiment's names and texts and in an uploaded run's name are
shown as text on every page. No link to them, no image of them, and no request to their
host. The same on every tab, in what each page sends, is in test_hostile_text.py."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from leakeval_app.markup import JOINER
from leakeval_app.page_list import PAGES, url_path
from leakeval_app.screen import RESERVED
from tests.app.hostile import HOST, HOSTILE, UPLOAD_NAME, hostile_experiment
from tests.app.test_browser import start_app, stop_app, wait_until_idle
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed"),
]

LINKED = """() => [...document.querySelectorAll('*')].flatMap(e =>
    ['href', 'src', 'xlink:href', 'srcset', 'action'].map(a => e.getAttribute(a))
        .filter(v => v && /(^|\\/\\/)host\\b|^\\s*javascript:/i.test(v))
        .map(v => `${e.tagName} ${v}`))"""
"""Every element whose link, image or form points at the hostile host or runs script."""


NAMES = [*sorted(RESERVED - {"page"}), "x", "qid", "topic", "a_model", "b_model", "story_model"]
LINK = {
    name: HOSTILE[i % len(HOSTILE)] for i, name in enumerate(NAMES + [f"{p}_tab" for p in PAGES])
}
"""Every parameter of a link set to one of the hostile strings (and one named by one)."""


def shown(page) -> None:
    """Wait for the page's heading and the end of its script run; then nothing links to
    the host, and no exception box is drawn."""
    page.locator('[data-testid="stMain"] h2').first.wait_for(timeout=180_000)
    wait_until_idle(page)
    assert page.evaluate(LINKED) == []
    assert page.locator('[data-testid="stException"]').count() == 0


def test_hostile_text_is_text_in_chromium_and_nothing_is_fetched(browser, tmp_path):
    experiment = hostile_experiment(tmp_path / "data")
    proc, url = start_app(tmp_path / "data", tmp_path / "cache")
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        for name in PAGES:
            page.goto(f"{url}/{url_path(name)}?{urlencode({**LINK, HOSTILE[0]: '1'})}")
            shown(page)
            # as read: the word joiners that keep addresses from being linked are invisible
            notices = [
                n.replace(JOINER, "") for n in page.get_by_test_id("stAlert").all_inner_texts()
            ]
            for setting in ("measure", "experiment", "threshold"):
                said = f"{setting}={LINK[setting]}"
                assert any(said in n for n in notices), (name, said, notices)

        page.goto(f"{url}/datasets?datasets_tab=Score+your+own+run")
        shown(page)
        run = (experiment / "runs" / "bm25" / "leaked.run").read_bytes()
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
            [
                {"name": UPLOAD_NAME, "mimeType": "text/plain", "buffer": run},
                {"name": f"x{UPLOAD_NAME}", "mimeType": "text/plain", "buffer": b"1 Q0 d 1 x r\n"},
            ]
        )
        page.locator(".st-key-uploads_1").wait_for(timeout=60_000)
        shown(page)
        main = page.get_by_test_id("stMain")
        name = UPLOAD_NAME.replace("://", f"{JOINER}://")  # as shown, never as a link
        assert main.get_by_text(name, exact=True).count() == 1  # its label, as text
        assert main.get_by_text(f"leakeval: x{name}:1:").count() == 1  # its error

        page.goto(f"{url}/conditions?x=model")
        shown(page)
        page.locator(".js-plotly-plot .xtick text").first.wait_for(timeout=60_000)
        ticks = page.locator(".js-plotly-plot .xtick text").all_text_contents()
        assert any("<img src=x>" in t for t in ticks), ticks  # Plotly's text, as written
        page.close()
    finally:
        stop_app(proc)
    assert not [u for u in requests if urlsplit(u).hostname == HOST]
