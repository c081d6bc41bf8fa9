"""The page's preload of the first page's components: it names scripts the pinned Streamlit
serves, the server puts it in every page it sends (and nothing else changes), and the
browser fetches the chart component from it."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path

import pytest

from leakeval_app import preload
from tests.chromium import CHROMIUM

PAGE = b"<html><head><title>t</title></head><body>app</body></html>"


def test_every_component_is_found_in_the_installed_streamlit():
    """Streamlit renames its chunks per release: an upgrade that drops one is caught here,
    not by a slower first page."""
    scripts = preload.component_scripts()
    assert [s.split("/")[-1].split(".")[0] for s in scripts] == list(preload.COMPONENTS)
    for script in scripts:
        assert (preload.STATIC.parent.parent / script).is_file()
    head = preload.head_html().decode()
    assert f'rel="modulepreload" crossorigin href="./{scripts[0]}"' in head
    assert all(f'import("./{script}")' in head for script in scripts)


def _served(status: int, content_type: str, chunks: list[bytes]):
    """An ASGI app answering every request with `chunks` as one response."""

    async def app(scope, receive, send):
        size = sum(map(len, chunks))
        headers = [(b"content-type", content_type.encode()), (b"content-length", b"%d" % size)]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        for i, chunk in enumerate(chunks):
            more = i < len(chunks) - 1
            await send({"type": "http.response.body", "body": chunk, "more_body": more})

    return app


def _request(app, method: str = "GET") -> tuple[dict, bytes]:
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": method, "path": "/", "headers": []}
    asyncio.run(preload.PagePreload(app)(scope, receive, send))
    start, *body = sent
    return start, b"".join(m.get("body", b"") for m in body)


def test_the_page_gains_the_preload_before_its_head_ends_with_its_new_length():
    start, body = _request(_served(200, "text/html; charset=utf-8", [PAGE[:20], PAGE[20:]]))
    assert body == PAGE.replace(b"</head>", preload.head_html() + b"</head>")
    assert dict(start["headers"])[b"content-length"] == str(len(body)).encode()


@pytest.mark.parametrize(
    ("status", "content_type", "method"),
    [
        (200, "text/javascript", "GET"),  # a script, a stylesheet, a health check
        (304, "text/html", "GET"),  # the browser's copy is current: no body
        (404, "text/html", "GET"),
        (200, "text/html", "HEAD"),  # the length of the page without a body to match it
    ],
)
def test_everything_else_passes_as_it_is(status, content_type, method):
    start, body = _request(_served(status, content_type, [PAGE]), method)
    assert body == PAGE
    assert dict(start["headers"])[b"content-length"] == str(len(PAGE)).encode()


@pytest.mark.browser
@pytest.mark.demo
def test_the_served_pages_carry_it_and_the_components_are_served_unchanged(app_url):
    for path in ("/", "/story", "/queries"):
        with urllib.request.urlopen(app_url + path) as response:
            page = response.read()
        assert page.count(preload.head_html()) == 1, path
        assert page.index(preload.head_html()) < page.index(b"</head>")
    script = preload.component_scripts()[0]
    with urllib.request.urlopen(f"{app_url}/{script}") as response:
        assert response.read() == (preload.STATIC.parent.parent / script).read_bytes()


@pytest.mark.browser
@pytest.mark.demo
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed")
def test_the_browser_fetches_the_chart_component_while_the_page_loads(app_url, browser):
    from tests.app.test_browser import DRAWN_CHART, wait_until_idle

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(app_url)
        page.locator(DRAWN_CHART).first.wait_for(timeout=180_000)
        wait_until_idle(page)
        fetched = dict(
            page.evaluate(
                "performance.getEntriesByType('resource')"
                ".map(e => [new URL(e.name).pathname.slice(1), e.startTime])"
            )
        )
        loaded = page.evaluate(
            "performance.getEntriesByType('navigation')[0].domContentLoadedEventStart"
        )
    finally:
        page.close()
    # Without the page's link, no element could ask for it before the app's code has run,
    # which is after the page's content is loaded.
    assert fetched[preload.component_scripts()[0]] < loaded
    assert set(fetched) >= set(preload.component_scripts())
