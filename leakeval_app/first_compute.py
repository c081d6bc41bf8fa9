"""A study's scores and leakage pairs, computed with a progress bar the first time a rerun
needs them (later reruns find them in the study or the disk cache), and what went wrong."""

from __future__ import annotations

import streamlit as st

from leakeval_app.context import APP_MEASURES, AppContext
from leakeval_core.api import terms


def score_and_detect(context: AppContext) -> None:
    """Score every run under the View's conventions and find the leaked topics, showing
    progress; then report runs that failed (stops when none could be scored)."""
    study, conventions = context.study, context.conventions
    if not study.scores_ready(conventions, APP_MEASURES):
        bar = st.progress(0.0, text="Scoring runs…")
        study.scores(
            conventions,
            APP_MEASURES,
            progress=lambda done, total, what: bar.progress(
                done / max(total, 1), text=f"Scoring run {done} of {total}: {what}"
            ),
        )
        bar.empty()
    if not study.leakage_ready(context.method):
        bar = st.progress(0.0, text="Finding near-duplicates of the topics in the training log…")
        study.leakage(
            context.method,
            progress=lambda done, total, what: bar.progress(
                min(done / max(total, 1), 1.0), text=f"{done:,} {what}"
            ),
            max_queries=terms.APP_DETECTION_LIMIT,  # read now: a test lowers it
        )
        bar.empty()
    show_failures(context)


def show_failures(context: AppContext) -> None:
    if leakage_error := context.leakage.error:
        st.error(f"leakeval: leakage pairs unavailable: {leakage_error}")
    results = context.study.scores(context.conventions, APP_MEASURES)
    if len(results.failures):
        with st.expander(
            f"{len(results.failures)} run(s) could not be scored and are left out",
            icon=":material/error:",
            expanded=True,
        ):
            for error in results.failures.error:
                st.error(f"leakeval: {error}")
        if results.table.empty:
            st.stop()  # every run failed: nothing any page could show
