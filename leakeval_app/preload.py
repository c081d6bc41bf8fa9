"""Start loading the browser's chart renderer while the first page is still computing.

Streamlit's frontend fetches and compiles its Plotly component (a 4.7 MB script) only when
the first chart arrives, so on a cold start the Story's chart appeared a second or more
after the page's script had finished. A module preload, sent once per session before the
page's work starts, lets the browser fetch and compile it in parallel with that work.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_SENT = "_leakeval_preload_sent"
STATIC = Path(st.__file__).parent / "static" / "static" / "js"


def chart_script() -> str | None:
    """The frontend's Plotly component as the server serves it, if this Streamlit has one."""
    found = sorted(STATIC.glob("PlotlyChart.*.js"))
    return f"static/js/{found[0].name}" if found else None


def preload_charts() -> None:
    """Tell this session's browser to preload the chart component, once."""
    if st.session_state.get(_SENT) or (script := chart_script()) is None:
        return
    st.session_state[_SENT] = True
    base = st.get_option("server.baseUrlPath").strip("/")
    href = "/" + "/".join(part for part in (base, script) if part)
    st.html(
        # the element is hidden, so it takes no gap in the page's layout
        '<style>[data-testid="stElementContainer"]:has(.leakeval-preload) {display: none}'
        f'</style><span class="leakeval-preload"></span><script>import("{href}")</script>',
        unsafe_allow_javascript=True,
    )
