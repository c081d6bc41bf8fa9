"""Presentation mode: the page as a slide, with its own way onwards and out.

On with `?present=1` or the sidebar's toggle. The slide hides every control, so its links
(the page before, the page after, out of the mode) are drawn into the page itself.
"""

from __future__ import annotations

import html
from dataclasses import replace

import streamlit as st

from leakeval_app import state
from leakeval_app.page_list import PAGES, title

CSS = """<style>
html { font-size: 18px; }
[data-testid="stHeader"], [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stToolbar"], [data-testid="stTooltipIcon"], button[aria-label^="Help for"] {
    display: none !important;
}
[data-testid="stMainBlockContainer"] {
    max-width: 1280px; padding: 2.6rem 1.6rem 0.4rem 1.6rem; margin: 0 auto;
}
@media (min-width: 1600px) and (min-height: 900px) {
    html { font-size: 22.5px; }
    [data-testid="stMainBlockContainer"] { max-width: 1600px; }
}
@media (min-width: 1920px) and (min-height: 1080px) {
    html { font-size: 27px; }
    [data-testid="stMainBlockContainer"] { max-width: 1920px; }
}
[class*="st-key-slide-m-"], [class*="st-key-slide-l-"] { display: none !important; }
@media (min-width: 1600px) and (min-height: 900px) {
    [class*="st-key-slide-s-"] { display: none !important; }
    [class*="st-key-slide-m-"] { display: block !important; }
}
@media (min-width: 1920px) and (min-height: 1080px) {
    [class*="st-key-slide-m-"] { display: none !important; }
    [class*="st-key-slide-l-"] { display: block !important; }
}
h2 { font-size: 1.45rem !important; line-height: 1.25 !important; padding: 0 !important; }
[data-testid="stCaptionContainer"], [data-testid="stMetricLabel"] p,
[data-testid="stMarkdownContainer"] p, [data-testid="stTable"] td,
[data-testid="stTable"] th { font-size: 1rem !important; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: 1.6rem !important; }
[data-testid="stMetric"] { padding-top: 0.3rem; }
[data-testid="stVerticalBlock"] { gap: 0.6rem; }
.leakeval-slides {
    position: fixed; top: 0.4rem; right: 1rem; z-index: 999990; display: flex;
    gap: 0.8rem; align-items: center; font-size: 1rem;
}
.leakeval-slides a { text-decoration: none; color: inherit; padding: 0.1rem 0.5rem;
    border: 1px solid rgba(128, 128, 128, 0.5); border-radius: 0.4rem; }
.leakeval-simulated { position: fixed; top: 0.4rem; left: 1rem; z-index: 999990;
    font-size: 1rem; font-weight: 600; color: #b35900; }
</style>"""
"""Presentation mode: a 1280×720 slide whose type grows with larger screens (1600×900,
1920×1080), each chart drawn at each size and shown at its own, type that reads from the
back of a room, no controls; links to the next page and out of the mode, top right."""


def bar_html(links: dict[str, str], simulated: bool) -> str:
    """The slide's own navigation (label -> URL), and the simulated-data label, as HTML."""
    anchors = "".join(
        f'<a href="{html.escape(url)}" target="_self">{html.escape(label)}</a>'
        for label, url in links.items()
    )
    label = (
        '<div class="leakeval-simulated">Simulated data: generated runs and judgments</div>'
        if simulated
        else ""
    )
    return f'{label}<nav class="leakeval-slides">{anchors}</nav>'


def show_style() -> None:
    st.html(CSS)


def show_bar(here: str, simulated: bool) -> None:
    """The slide's links to the page before and after `here`, and out of the mode, keeping
    the screen's settings and choices; a label when the data is simulated."""
    order = list(PAGES)
    position = order.index(here)
    before, after = order[position - 1], order[(position + 1) % len(order)]
    screen = state.screen()
    st.html(
        bar_html(
            {
                f"◀ {title(before)}": replace(screen, page=before).to_url("."),
                f"{title(after)} ▶": replace(screen, page=after).to_url("."),
                "✕ leave presentation": replace(screen, page=here, present=False).to_url("."),
            },
            simulated,
        )
    )
