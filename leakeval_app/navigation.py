"""The dashboard's pages as Streamlit draws them, from their one list (`page_list`).

The page scripts are in `app_pages/` beside the entry file `app.py`: at a checkout's top, and
in an installed wheel inside this package (pyproject maps `leakeval_app.app_pages` to the
checkout's folder and carries a copy of `app.py`). Streamlit resolves a page's relative path
against the entry file's folder, so one relative path serves both. A page sends the user to
another by name (`go`), never by a path of its own.

The folder is not called `pages/`: with a `pages/` folder beside the entry file, Streamlit
1.67 still serves it as legacy pages on a server's first script run and in every `AppTest`
run (`st.navigation` turns that off only once the entry file has run), and a page run on its
own has no sidebar or context.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from leakeval_app.page_list import FOLDER, LANDING, PAGES, script

HERE = Path(__file__).resolve().parent
ASSETS = HERE / "assets"


def entry_file() -> Path:
    """The `app.py` beside the page scripts: the wheel's, in this package, else a checkout's."""
    for folder in (HERE, HERE.parent):
        if (folder / FOLDER).is_dir():
            return folder / "app.py"
    raise FileNotFoundError(f"no {FOLDER}/ beside {HERE} or in it")


def page(name: str) -> st.Page:
    title, icon = PAGES[name]
    return st.Page(
        script(name),
        title=title,
        icon=icon,
        url_path=name,
        default=name == LANDING,
    )


def pages() -> list[st.Page]:
    return [page(name) for name in PAGES]


def router() -> st.Page:
    """The page the URL names. Streamlit serves the landing page only at the root, so its
    own name (`/story`, as a reader types it from the sidebar's title) would be "Page not
    found": that name is turned into the root's before the pages are resolved."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    manager = context.pages_manager if context is not None else None
    if manager is not None and manager.intended_page_name == LANDING:
        manager.set_script_intent(manager.intended_page_script_hash or "", "")
    return st.navigation(pages())


def go(name: str) -> None:
    """Open another page (the screen goes with it: its values are in the session)."""
    st.switch_page(page(name))
