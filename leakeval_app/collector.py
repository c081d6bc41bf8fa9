"""Keep Python's garbage collector off the dashboard's long-lived objects.

Streamlit runs a full collection after every script run (`runner.postScriptGC`). With
streamlit, pandas, pyarrow, scipy and plotly imported, the interpreter tracks hundreds
of thousands of long-lived objects (functions, classes, plotly's validator tables), and a
full collection walks all of them while holding the GIL, so the server cannot send the
rerun's last messages and every page switch waits for it. Frozen objects
(`gc.freeze`) are skipped by every later collection; objects made afterwards, per rerun or
per session, are collected as before.
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_modules_when_frozen = 0


def freeze_long_lived_objects() -> None:
    """Freeze everything alive now, if modules were imported since the last freeze.

    New modules are what brings new long-lived objects (a page imports plotly or scipy.stats
    on its first visit), so this runs a few times per process, not per rerun. It collects
    first, so the rerun's own garbage is freed rather than frozen. Freezing only hides objects
    from the cycle collector: reference counting still frees them, so the one cost is a cycle
    alive now that becomes garbage later, and is then kept.
    """
    global _modules_when_frozen
    with _lock:
        if len(sys.modules) == _modules_when_frozen:
            return
        gc.collect()
        gc.freeze()
        _modules_when_frozen = len(sys.modules)
