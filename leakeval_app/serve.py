"""The dashboard's server process: `python -m leakeval_app.serve [streamlit options]` is
`streamlit run app.py [options]` on the entry file beside the pages (`navigation.entry_file`),
importing ahead.

Streamlit runs the app's script only once a browser connects, so on a cold start the first
page would wait for the imports the Story needs on top of its own work. Here a background
thread imports them while the browser loads the page, once the server answers, so the first
run finds them ready. Imports are safe to race: the first page importing the same module
waits for this thread's import to finish rather than repeating it.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time

AHEAD = (
    "leakeval_app.main",
    "leakeval_app.views",
    "leakeval_app.render",
    "leakeval_core.api",
    "leakeval_core.analysis.inflation",
    "leakeval_core.present.story",
    "leakeval_core.present.condition_plots",
    "pyarrow.dataset",
    "pyarrow.parquet",
    "plotly.graph_objects",
    "plotly.io",
    "scipy.optimize",
)
"""What the first page (the Story) imports beyond Streamlit itself."""


READY_POLL = 0.02
"""Seconds between two looks at whether the server answers yet (`import_ahead`)."""


def keep_parsed_runs() -> None:
    """Readers of a shared server rescore the same run files at another depth or measure;
    kept parsed, each file is read once for all of them (`limits.run_memory_bytes`)."""
    from leakeval_app.limits import run_memory_bytes
    from leakeval_core.evaluation import parsed_runs

    parsed_runs.keep(run_memory_bytes() / 1e6)


def limit_options() -> list[str]:
    """Streamlit's own upload limit, set from leakeval's as the server starts
    (`limits.streamlit_upload_mb`: 0, taking no file, when uploads are off)."""
    from leakeval_app.limits import streamlit_upload_mb

    return [f"--server.maxUploadSize={streamlit_upload_mb()}"]


def import_ahead() -> None:
    """Import `AHEAD` once the server answers: its runtime is serving, which is what its
    health check asks (a server stopping before it ever answered imports nothing). Not
    before: the imports and the server's own start share one interpreter lock, so racing
    them only delays the moment a browser may connect; from then on they overlap the
    browser's loading of the page, which runs on its own core.

    The collector is off meanwhile, and what is alive after is collected and frozen once
    (`collector.freeze_long_lived_objects`): the imports make hundreds of thousands of
    objects that live as long as the server, and each full collection they would trigger on
    the way walks them all, holding the lock the server needs to send the page."""
    import gc

    from streamlit import runtime

    from leakeval_app.collector import freeze_long_lived_objects

    serving = {
        runtime.RuntimeState.NO_SESSIONS_CONNECTED,
        runtime.RuntimeState.ONE_OR_MORE_SESSIONS_CONNECTED,
    }
    stopped = {runtime.RuntimeState.STOPPING, runtime.RuntimeState.STOPPED}
    while (state := runtime.get_instance().state if runtime.exists() else None) not in serving:
        if state in stopped:
            return
        time.sleep(READY_POLL)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for name in AHEAD:
            importlib.import_module(name)
    finally:
        if collecting:
            gc.enable()
    freeze_long_lived_objects()


def main() -> None:
    from leakeval_core.io.allocator import release_memory_promptly

    # before anything imports pyarrow: a server lives long and its readers come and go, so
    # what a closed session's uploads held must go back to the system (`uploads.give_back`)
    release_memory_promptly()

    from streamlit.web.cli import main as streamlit

    from leakeval_app.navigation import entry_file
    from leakeval_core.errors import LeakevalError

    try:
        keep_parsed_runs()
        limits = limit_options()
    except LeakevalError as exc:
        sys.exit(f"leakeval: {exc}")
    threading.Thread(target=import_ahead, name="leakeval-import-ahead", daemon=True).start()
    command = ["run", str(entry_file()), *sys.argv[1:], *limits]
    sys.exit(streamlit(command, prog_name="streamlit"))


if __name__ == "__main__":
    main()
