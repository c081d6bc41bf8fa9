"""Start loading the browser's chart renderer while the first page is still computing.

Streamlit's frontend fetches and compiles its Plotly component (a large script) only when
the first chart arrives, so on a cold start the Story's chart would wait for it after the
page's script had finished. A module import, sent before the page's work starts,
lets the browser fetch and compile it in parallel with that work. It is sent on every rerun,
hidden: an element present on the first run only would shift every element after it on the
next, and the browser would redraw them all (the import itself runs once per page load).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import streamlit as st

STATIC = Path(st.__file__).parent / "static" / "static" / "js"


@lru_cache(maxsize=1)
def chart_script() -> str | None:
    """The frontend's Plotly component as the server serves it, if this Streamlit has one."""
    found = sorted(STATIC.glob("PlotlyChart.*.js"))
    return f"static/js/{found[0].name}" if found else None


def preload_charts() -> None:
    """Tell the browser to load the chart component now."""
    if (script := chart_script()) is None:
        return
    base = st.get_option("server.baseUrlPath").strip("/")
    href = "/" + "/".join(part for part in (base, script) if part)
    st.html(
        # the element is hidden, so it takes no gap in the page's layout
        '<style>[data-testid="stElementContainer"]:has(.leakeval-preload) {display: none}'
        f'</style><span class="leakeval-preload"></span><script>import("{href}")</script>',
        unsafe_allow_javascript=True,
    )
