"""The dashboard's frame, drawn on every rerun around the page the URL names.

`run()` is the one entry function: `app.py` calls it (the checkout's, and the copy the wheel
installs, which `leakeval app` serves). Each step is a function or module of its own: the
page config here, the demo on a first start (`first_start`), the sidebar (`sidebar`), the
slide's bar (`presentation`), the study's first computation (`first_compute`) and the
collector's freeze (`collector`).
"""

from __future__ import annotations

import streamlit as st

from leakeval_app import (
    collector,
    first_compute,
    first_start,
    loaders,
    navigation,
    presentation,
    sidebar,
    state,
    turns,
    uploads,
)
from leakeval_app.context import data_root, set_current
from leakeval_app.page_list import LANDING
from leakeval_app.preload import preload_charts
from leakeval_app.render import export_charts, forget_charts, show_error
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation import priority


def run() -> None:
    """Draw the frame and the page the URL names, cold work giving way meanwhile."""
    with priority.in_front():
        draw()


def draw() -> None:
    state.start()
    forget_charts()
    presenting = state.presenting()
    configure_page(presenting)
    router = st.navigation(navigation.pages())
    here = router.url_path or LANDING
    state.on_page(here)
    if presenting:
        presentation.show_style()
    state.sync_url()
    uploads.watch_session()
    notices = st.container()
    turns.take_turn(notices)
    said = show_cache_notice(notices, None)
    preload_charts()

    root = data_root()
    first_start.ensure_an_experiment(root)
    try:
        uploads.follow_limits()  # a limit that is no number is said here, as a page's error
        context = sidebar.draw(root)
    except LeakevalError as exc:  # said where the page would be, whatever the sidebar shows
        show_error(exc)
        st.stop()
    set_current(context)
    if presenting:
        presentation.show_bar(here, context.experiment.simulated)
    first_compute.score_and_detect(context)
    said = show_cache_notice(notices, said)  # before the page, which may stop early
    router.run()

    export_charts()
    show_cache_notice(notices, said)
    for notice in state.take_notices():
        notices.warning(notice, icon=":material/link_off:")
    collector.freeze_long_lived_objects()


def show_cache_notice(box, said: str | None) -> str | None:
    """At the top of every page while the disk cache cannot be written: said before the
    frame computes anything, and again after the scoring and the page when a write failed
    in them (`said`: the notice already shown). Nothing is drawn after a page that stopped
    early, so the next rerun says it, from the top."""
    notice = loaders.cache_notice()
    if notice is not None and notice != said:
        box.warning(notice, icon=":material/database_off:")
    return notice


def configure_page(presenting: bool) -> None:
    """The tab's title and icon, and the layout. Called before the navigation, so the app's
    icon is the tab's, not a page's (a page's material icon would be fetched from Google's
    servers)."""
    st.set_page_config(
        page_title="leakeval",
        page_icon=str(navigation.ASSETS / "favicon.png"),
        layout="wide",
        initial_sidebar_state="collapsed" if presenting else "auto",
    )
