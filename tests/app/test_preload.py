"""The page's preload of the first page's components: it names scripts the pinned Streamlit
serves, the server puts it in every page it sends (and nothing else changes), and the
browser fetches the chart component from it."""

from __future__ import annotations

import asyncio
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

import pytest

from leakeval_app import preload
from tests.chromium import CHROMIUM

PAGE = (
    b'<html><head><script type="module" crossorigin src="./static/js/index.X.js"></script>'
    b"</head><body>app</body></html>"
)
REPORT = b"<html><head><title>leakeval report</title></head><body>numbers</body></html>"
"""Other HTML the server sends: a report a reader downloads is their file, as it was made."""


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


def _served(status: int, content_type: str, chunks: list[bytes], more: tuple = ()):
    """An ASGI app answering every request with `chunks` as one response, as a file is
    served (its validators too), with `more` headers."""

    async def app(scope, receive, send):
        size = sum(map(len, chunks))
        headers = [(b"content-type", content_type.encode()), (b"content-length", b"%d" % size)]
        headers += [(b"etag", b'"f00"'), *more]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        for i, chunk in enumerate(chunks):
            last = i == len(chunks) - 1
            await send({"type": "http.response.body", "body": chunk, "more_body": not last})

    return app


def _request(app, method: str = "GET") -> tuple[dict, bytes]:
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": method, "path": "/", "headers": []}
    # on a thread of its own: the session's browser (sync Playwright) may be running an
    # event loop on this one
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, preload.PagePreload(app)(scope, receive, send)).result()
    start, *body = sent
    return start, b"".join(m.get("body", b"") for m in body)


def test_the_page_gains_the_preload_before_its_head_ends_with_its_new_length():
    start, body = _request(_served(200, "text/html; charset=utf-8", [PAGE[:20], PAGE[20:]]))
    assert body == PAGE.replace(b"</head>", preload.head_html() + b"</head>")
    headers = dict(start["headers"])
    assert headers[b"content-length"] == str(len(body)).encode()
    # the file's validator names the file's bytes: a browser holding the page as another
    # server sent it (without the preload, or an older one) must not be told it is current
    assert b"etag" not in headers


@pytest.mark.parametrize(
    ("status", "content_type", "method", "content", "more"),
    [
        (200, "text/javascript", "GET", PAGE, ()),  # a script, a stylesheet, a health check
        (304, "text/html", "GET", PAGE, ()),  # the browser's copy is current: no body
        (404, "text/html", "GET", PAGE, ()),
        (200, "text/html", "HEAD", PAGE, ()),  # no body to look for the page in
        (200, "text/html", "GET", REPORT, ()),
        (200, "text/html", "GET", PAGE, ((b"content-disposition", b"attachment"),)),
    ],
)
def test_everything_else_passes_as_it_is(status, content_type, method, content, more):
    start, body = _request(_served(status, content_type, [content], more), method)
    assert body == content
    headers = dict(start["headers"])
    assert headers[b"content-length"] == str(len(content)).encode()
    assert headers[b"etag"] == b'"f00"'


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
    """In the order the browser asks: the chart component before the app's connection.
    Without the page's link no element could ask for it before the app's code has run and
    opened its websocket, which is what starts the first run."""
    from tests.app.test_browser import DRAWN_CHART, wait_until_idle

    asked: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.on("request", lambda request: asked.append(urlparse(request.url).path.lstrip("/")))
    page.on("websocket", lambda _: asked.append("websocket"))
    try:
        page.goto(app_url)
        page.locator(DRAWN_CHART).first.wait_for(timeout=180_000)
        wait_until_idle(page)
    finally:
        page.close()
    assert asked.index(preload.component_scripts()[0]) < asked.index("websocket")
    assert set(asked) >= set(preload.component_scripts())
