"""The dashboard's frame, drawn on every rerun around the page the URL names.

`run()` is the one entry function: `app.py` calls it (the checkout's, and the copy the wheel
installs, which `leakeval app` serves). Each step is a function or module of its own: the
page config here, the sidebar (`sidebar`) over the served folder (`served`), the slide's bar
(`presentation`), the study's first computation (`first_compute`) and the collector's
freeze (`collector`).

It is also every page's error boundary: a LeakevalError raised by the sidebar, the first
computation or any page is said where the page would be, as one line (`render.show_error`),
never as a traceback; any other exception is one line with an error id, its traceback in
the server's log (`render.show_failure`), whatever part of the frame raised it. The app has
no fragments, so this boundary is every one. Streamlit's own error boxes (a widget's
callback) show no details either (`client.showErrorDetails`, set here for a server started
without the app's config).
"""

from __future__ import annotations

import streamlit as st

from leakeval_app import (
    collector,
    first_compute,
    loaders,
    navigation,
    presentation,
    sidebar,
    state,
    uploads,
)
from leakeval_app.context import set_current
from leakeval_app.page_list import LANDING
from leakeval_app.render import (
    error_text,
    export_charts,
    forget_charts,
    show_error,
    show_failure,
)
from leakeval_app.served import data_root
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation import priority


def run() -> None:
    """Draw the frame and the page the URL names, cold work giving way meanwhile."""
    if st.get_option("client.showErrorDetails") != "none":
        st.set_option("client.showErrorDetails", "none")
    with priority.in_front():
        try:
            draw()
        except Exception as exc:  # outside the page's own boundary (`draw`)
            show_failure(exc)


def draw() -> None:
    state.start()
    forget_charts()
    presenting = state.presenting()
    configure_page(presenting)
    router = navigation.router()
    here = router.url_path or LANDING
    state.on_page(here)
    if presenting:
        presentation.show_style()
    state.sync_url()
    uploads.watch_session()
    notices = st.container()
    said = show_cache_notice(notices, None)

    try:
        uploads.follow_limits()  # a limit that is no number is said as a page's error
        context = sidebar.draw(data_root())
        set_current(context)
        if presenting:
            presentation.show_bar(here, context.experiment.simulated)
        first_compute.score_and_detect(context)
        said = show_cache_notice(notices, said)  # before the page, which may stop early
        show_notices(notices)
        router.run()
    except LeakevalError as exc:  # in the main area, whatever the sidebar shows
        show_error(exc)
    except Exception as exc:  # a fault of leakeval's: its traceback for the server's log only
        show_failure(exc)

    export_charts()
    show_cache_notice(notices, said)
    show_notices(notices)
    collector.freeze_long_lived_objects()


def show_notices(box) -> None:
    """At the top of the page, what the app had to change in what it was given and what
    changed on disk since the reader's last page: said before the page (the link's
    settings, the sidebar's choices, the files), since it may stop early, and after it (the
    page's own choices)."""
    for notice in state.take_notices():
        box.warning(notice, icon=":material/link_off:")


def show_cache_notice(box, said: str | None) -> str | None:
    """At the top of every page while the disk cache cannot be written: said before the
    frame computes anything, and again after the scoring and the page when a write failed
    in them (`said`: the notice already shown). Nothing is drawn after a page that stopped
    early, so the next rerun says it, from the top."""
    notice = loaders.cache_notice()
    if notice is not None and notice != said:
        box.warning(error_text(notice), icon=":material/database_off:")
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
