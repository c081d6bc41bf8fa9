"""The dashboard's pages, declared once: URL path, title and icon, in the sidebar's order.

Streamlit-free, so that the navigation (`navigation`), the link code (`screen`) and the tests
read one list: a page added here is drawn, linked and tested, and a link to a page not here
is refused with a notice.
"""

from __future__ import annotations

PAGES = {
    "story": ("Story", ":material/campaign:"),
    "datasets": ("Dataset browser", ":material/dataset:"),
    "leakage": ("Leakage overlap", ":material/water_drop:"),
    "queries": ("Per-query drill-down", ":material/query_stats:"),
    "conditions": ("Condition comparison", ":material/monitoring:"),
    "audit": ("Leakage audit", ":material/policy:"),
}
"""URL path -> (title, icon). Each is the script `app_pages/<path>.py`."""

LANDING = "story"
"""The page the app opens on: its URL path is the app's root."""

FOLDER = "app_pages"
"""Where the page scripts are, relative to the entry file (`navigation.entry_file`)."""


def title(page: str) -> str:
    return PAGES[page][0]


def url_path(page: str) -> str:
    """The page's path in a link: empty for the landing page, else its name."""
    return "" if page == LANDING else page


def script(page: str) -> str:
    """The page's script, relative to the entry file, as Streamlit and AppTest name it."""
    return f"{FOLDER}/{page}.py"
