"""A data folder without an experiment gets the simulated demo, so the app always has one."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from leakeval_app.render import show_error
from leakeval_core.demo.generator import generate_demo
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.manifest import find_experiments


def ensure_an_experiment(root: Path) -> None:
    """Generate the demo into `root/demo` when `root` holds no experiment (stops on an error).

    `leakeval app` generates it before the server starts; this covers `streamlit run app.py`
    on an empty data folder.
    """
    if find_experiments(root):
        return
    with st.status("First start: generating the simulated demo experiment…") as status:
        bar = st.progress(0.0)
        try:
            generate_demo(
                root / "demo",
                progress=lambda done, total, what: bar.progress(done / total, text=what),
            )
        except LeakevalError as exc:  # something is in the way: never replaced, only reported
            status.update(label="No experiment to show", state="error")
            show_error(exc)
            st.stop()
        status.update(label="Demo generated", state="complete")
