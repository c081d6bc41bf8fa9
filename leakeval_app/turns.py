"""A reader's cold work, one build at a time (`leakeval_core.api.cold_work`): every rerun's
requests carry their session's, and the page says so while a build the reader started
earlier is still running, since what this page needs anew waits for it."""

from __future__ import annotations

import streamlit as st

from leakeval_core.api.cold_work import ColdWork

_KEY = "_leakeval_cold_work"
WAITING = (
    "A computation you asked for earlier is still running: anything new this page needs is "
    "computed once it is done."
)


def take_turn(notices) -> None:
    """This rerun's requests are its session's; say so in `notices` when its earlier build
    still runs."""
    work = st.session_state.get(_KEY)
    if work is None:
        work = st.session_state[_KEY] = ColdWork()
    work.use()
    if work.busy:
        notices.info(WAITING, icon=":material/hourglass_top:")
