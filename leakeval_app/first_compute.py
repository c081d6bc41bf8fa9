"""A study's scores and leakage pairs, computed with a progress bar the first time a rerun
needs them (later reruns find them in the study or the disk cache), and what went wrong."""

from __future__ import annotations

import streamlit as st

from leakeval_app import state
from leakeval_app.context import AppContext
from leakeval_app.markup import plain
from leakeval_app.render import error_text, show_error, show_scoring_warnings
from leakeval_core.api import doors, terms
from leakeval_core.errors import LeakevalError


def score_and_detect(context: AppContext) -> None:
    """Score every run under the View's conventions and find the leaked topics, showing
    progress; then report runs that failed (stops when none could be scored)."""
    study, conventions = context.study, context.conventions
    if not study.scores_ready(conventions, context.measures):
        bar = st.progress(0.0, text="Scoring runs…")
        study.scores(
            conventions,
            context.measures,
            progress=lambda done, total, what: bar.progress(
                done / max(total, 1), text=f"Scoring run {done} of {total}: {plain(what)}"
            ),
        )
        bar.empty()
    if not study.leakage_ready(context.method):
        bar = st.progress(0.0, text="Finding near-duplicates of the topics in the training log…")
        study.leakage(
            context.method,
            progress=lambda done, total, what: bar.progress(
                min(done / max(total, 1), 1.0), text=f"{done:,} {plain(what)}"
            ),
            max_queries=terms.APP_DETECTION_LIMIT,  # read now: a test lowers it
        )
        bar.empty()
    show_failures(context)


def show_failures(context: AppContext) -> None:
    """Above every page: why there are no leakage pairs, the runs whose scores mostly count
    unjudged documents or are 0 everywhere, and the incomplete and broken conditions (each
    with what it lacks), left out of every figure unless the reader switches them on; stops
    the page when no condition is left to show."""
    if leakage_error := context.leakage.error:
        st.error(f"leakeval: leakage pairs unavailable: {error_text(leakage_error)}")
    try:
        notes = doors.incomplete_conditions(context.study, context.settings)
    except LeakevalError as exc:
        show_error(exc)
        st.stop()  # nothing any page could show
    show_scoring_warnings(doors.scoring_warnings(context.study, context.settings))
    if not notes:
        return
    allowed = context.view.allow_incomplete
    with st.expander(
        "Incomplete or broken conditions: "
        + ("computed anyway" if allowed else "left out of every figure"),
        icon=":material/error:",
        expanded=True,
    ):
        for note in notes:
            (st.warning if allowed else st.error)(error_text(note))
        state.control(
            st.toggle,
            "Compute incomplete conditions anyway",
            "allow_incomplete",
            default=False,
            parse=state.flag,
            help="Their figures then lack the queries of their missing or broken runs, "
            "which score as the missing-queries convention says.",
        )
