"""Have the browser load the components the first page draws with while that page computes.

Streamlit's frontend fetches and evaluates a component (a chunk of its bundle) only when the
first element that needs it arrives. On a cold start the Story's chart would wait, once the
page's script is done, for the browser to fetch Plotly's component and evaluate it, one
long task in which nothing is drawn. The page's HTML (`PagePreload`, which the server adds to
Streamlit's own middleware, `serve`) instead
- preloads the chart component, so it is fetched and compiled while the page loads, beside
  Streamlit's own bundle;
- imports the components once the first script run has started: from then on the browser
  only waits for the page's elements, so evaluating them overlaps the server's work instead
  of following it. Not before: a long task then would hold back the connection that starts
  the run.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import streamlit as st
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

STATIC = Path(st.__file__).parent / "static" / "static" / "js"

COMPONENTS = ("PlotlyChart", "DataFrame", "Quiver", "useSyncComboBoxEnterTargetFocus")
"""The chunks every page's first drawing waits for: its charts, its tables (the table
element, and the reader of the Arrow data it arrives as) and the sidebar's select boxes."""


@lru_cache(maxsize=1)
def component_scripts() -> tuple[str, ...]:
    """The `COMPONENTS` this Streamlit serves, as paths under its page ("static/js/...");
    the chart's first. Streamlit names its chunks anew in each release."""
    found = (sorted(STATIC.glob(f"{name}.*.js")) for name in COMPONENTS)
    return tuple(f"static/js/{files[0].name}" for files in found if files)


def head_html() -> bytes:
    """What the page's head gains: empty when this Streamlit has none of the components.
    The paths are relative, as Streamlit's own scripts are, so a base URL path holds."""
    scripts = [f"./{script}" for script in component_scripts()]
    if not scripts:
        return b""
    imports = " ".join(f"import({json.dumps(script)});" for script in scripts)
    return (
        f'<link rel="modulepreload" crossorigin href="{scripts[0]}">\n'
        '<script type="module">\n'
        "new MutationObserver((_, seen) => {\n"
        "  if (document.querySelector('[data-test-script-state=\"running\"]')) {\n"
        f"    seen.disconnect(); {imports}\n"
        "  }\n"
        "}).observe(document, {subtree: true, childList: true, attributes: true,\n"
        '  attributeFilter: ["data-test-script-state"]});\n'
        "</script>\n"
    ).encode()


STREAMLIT_PAGE = b'src="./static/js/index.'
"""What marks Streamlit's own page: its bundle's script tag. Other HTML the server sends (a
report offered for download) is the user's file, and is left as it is."""


class PagePreload:
    """ASGI middleware: `head_html` at the end of the head of Streamlit's page (index.html,
    which it serves at every page's path); all else passes as it is. It sits under
    Streamlit's compression, so it sees the page as the file holds it. The page loses its
    file's validators (ETag, Last-Modified): they would name the file's bytes, not these.
    A HEAD request is answered as the file is: there is no body to look for the page in."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.head = head_html()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or not self.head:
            await self.app(scope, receive, send)
            return
        held: list[Message] = []
        body: list[bytes] = []

        async def send_page(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=list(message["headers"]))
                if (
                    message["status"] == 200
                    and headers.get("content-type", "").startswith("text/html")
                    and "content-disposition" not in headers
                ):
                    held.append({**message, "headers": headers.raw})
                    return
            elif held and message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                start, page = self._page(held.pop(), b"".join(body))
                await send(start)
                message = {"type": "http.response.body", "body": page}
            elif held:  # a response that does not send its body (a file sent by path)
                await send(held.pop())
            await send(message)

        await self.app(scope, receive, send_page)

    def _page(self, start: Message, page: bytes) -> tuple[Message, bytes]:
        """The response's start and body: the preload in it where it is Streamlit's page."""
        if STREAMLIT_PAGE not in page:
            return start, page
        page = page.replace(b"</head>", self.head + b"</head>", 1)
        headers = MutableHeaders(raw=start["headers"])
        headers["content-length"] = str(len(page))
        for validator in ("etag", "last-modified"):
            del headers[validator]
        return {**start, "headers": headers.raw}, page
