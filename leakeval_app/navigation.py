"""The dashboard's pages, by URL path: where each lives, its title and icon.

Paths are absolute, so the pages are found wherever the package is installed, and a page
sends the user to another by name (`go`), not by a path relative to the entry script.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
ASSETS = HERE / "assets"
PAGES = {
    "story": ("Story", ":material/campaign:"),
    "datasets": ("Dataset browser", ":material/dataset:"),
    "leakage": ("Leakage overlap", ":material/water_drop:"),
    "queries": ("Per-query drill-down", ":material/query_stats:"),
    "conditions": ("Condition comparison", ":material/monitoring:"),
    "audit": ("Leakage audit", ":material/policy:"),
}
"""URL path -> (title, icon), in the sidebar's order; the Story is the landing page."""


def page(name: str) -> st.Page:
    title, icon = PAGES[name]
    return st.Page(
        HERE / "app_pages" / f"{name}.py",
        title=title,
        icon=icon,
        url_path=name,
        default=name == "story",
    )


def pages() -> list[st.Page]:
    return [page(name) for name in PAGES]


def go(name: str) -> None:
    """Open another page (the View goes with it: its values are in the session)."""
    st.switch_page(page(name))
