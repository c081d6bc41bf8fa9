"""View state behind named accessors, mirrored into the URL so a copied link reopens a view.

Widget values are lost when a page stops rendering its widget, so each view value lives in a
session store and seeds its widget on every render. Values arrive first from the URL, are
validated against the allowed options, and are written back after each change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

_STORE = "_leakeval_view"


def _store() -> dict[str, Any]:
    return st.session_state.setdefault(_STORE, {})


def seed(
    key: str, default: Any, options: Sequence[Any] | None = None, cast: Callable[[str], Any] = str
) -> str:
    """Prepare widget `key`: returns the widget key to pass, with its value already set.

    The value comes from the session store, else the URL, else `default`; a value not among
    `options` (stale link, hand-edited URL) falls back to the default.
    """
    store = _store()
    widget_key = f"w:{key}"
    if widget_key in st.session_state:  # the widget survived the last run: it has the truth
        store[key] = st.session_state[widget_key]
        if options is None or store[key] in options:
            # Not written back: a value set through session state is pushed to the browser,
            # and one from an earlier rerun would undo a newer change (arrow keys pressed
            # faster than the reruns lost steps on the slider).
            return widget_key
    elif key not in store:
        raw = st.query_params.get(key)
        value = default
        if raw is not None:
            try:
                value = cast(raw)
            except ValueError:
                value = default
        store[key] = value
    if options is not None and store[key] not in options:
        store[key] = default
    st.session_state[widget_key] = store[key]
    return widget_key


def _to_url(key: str, value: Any) -> None:
    """Write a URL parameter only when it changes: each write is a message to the browser."""
    if st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)


def remember(key: str) -> Any:
    """Store the widget's current value and mirror it into the URL."""
    value = st.session_state[f"w:{key}"]
    _store()[key] = value
    _to_url(key, value)
    return value


def get(key: str, default: Any = None) -> Any:
    return _store().get(key, default)


def put(key: str, value: Any) -> None:
    """Set a view value from code (e.g. 'open this topic in the drill-down')."""
    _store()[key] = value
    st.session_state.pop(f"w:{key}", None)
    _to_url(key, value)


def restore_url() -> None:
    """Write every stored value back to the URL (page switches clear it), in one message:
    the browser pushes a history entry per message, which showed in page-switch profiles."""
    changed = {k: str(v) for k, v in _store().items() if st.query_params.get(k) != str(v)}
    if changed:
        st.query_params.update(changed)
