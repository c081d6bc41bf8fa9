"""The session's screen, its URL, and the one call that puts a widget on it.

The session keeps the URL parameters of its screen (`Screen.to_params`: the settings, the
page's choices, presentation mode): read from the link once, then led by the widgets.
`control` draws a widget seeded from them, checks a value that came from a link against the
widget's options (a bad one is replaced by the default, and a notice says so), and writes a
change back to the session and the URL. A choice made on one page (the collection, a level,
an open tab) is there on every page that shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import streamlit as st

from leakeval_app.markup import code, plain
from leakeval_app.page_list import LANDING
from leakeval_app.screen import Screen
from leakeval_core.api.view import View

_PARAMS = "_leakeval_params"
_PAGE = "_leakeval_page"
_NOTICES = "_leakeval_notices"
_SEEN = "_leakeval_seen"
_OPENED = "_leakeval_opened"


def start() -> None:
    """Begin a rerun: on the session's first, read the link into its parameters (every
    value that cannot be read becomes a notice)."""
    if _PARAMS not in st.session_state:
        link = {key: st.query_params.get(key) for key in st.query_params}
        screen, notices = Screen.from_params(link)
        st.session_state[_PARAMS] = screen.to_params()
        notify(*notices)


def on_page(page: str) -> None:
    """The page this rerun draws: its widgets are its own."""
    st.session_state[_PAGE] = page


def current_page() -> str:
    """The page this rerun draws (the landing page before it is known)."""
    return st.session_state.get(_PAGE, LANDING)


def presenting() -> bool:
    """Presentation mode: widgets are not drawn (their values stand), tabs show the open one."""
    return screen().present


def screen() -> Screen:
    """The screen this rerun draws, as its widgets have set it so far."""
    screen, _ = Screen.from_params(_params(), st.session_state.get(_PAGE, LANDING))
    return screen


def view() -> View:
    """The settings this rerun's numbers come from."""
    return screen().view


def _params() -> dict[str, str]:
    return st.session_state.setdefault(_PARAMS, {})


def get(name: str, default: str | None = None) -> str | None:
    return _params().get(name, default)


def put(**values: object) -> None:
    """Set view values from code ("open this topic in the drill-down"); None removes one.
    The widgets showing them are drawn anew from the new values."""
    params = _params()
    for name, value in values.items():
        if value is None:
            params.pop(name, None)
        else:
            params[name] = _text(value)
        suffix = f":{name}"
        for key in [k for k in st.session_state if isinstance(k, str) and k.endswith(suffix)]:
            if key.startswith("w:"):
                del st.session_state[key]
    sync_url()


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def widget_key(name: str) -> str:
    """Each page draws its own widget for a shared value: a widget never inherits another
    page's state, and is seeded from the session's value whenever it is drawn anew."""
    return f"w:{st.session_state.get(_PAGE, LANDING)}:{name}"


def control(
    widget: Callable[..., Any],
    label: str,
    name: str,
    options: Sequence[Any] | None = None,
    *,
    default: Any,
    parse: Callable[[str], Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Draw `widget` for the view value `name`: seeded, checked and remembered in one call.

    With `options`, a stored value must name one of them (by its text); without, `parse`
    reads it (raising ValueError when it cannot). A value that fails either is replaced by
    `default`, with a notice. A change is remembered before the rerun it causes starts, so
    the View the frame reads first is already the new one. In presentation mode nothing is
    drawn and the value stands.
    """
    key = widget_key(name)
    if key not in st.session_state:
        st.session_state[key] = _seed(name, options, default, parse)
    if presenting():
        return st.session_state[key]
    chained = kwargs.pop("on_change", None)

    def changed() -> None:
        remember(name, st.session_state[key], default)
        if chained is not None:
            chained()

    args = (label, options) if options is not None else (label,)
    value = widget(*args, key=key, on_change=changed, **kwargs)
    remember(name, value, default)
    return value


def remember(name: str, value: Any, default: Any) -> None:
    """Keep a widget's value in the session and the URL; a default never chosen stays out
    of the link, so links stay short."""
    params = _params()
    text = _text(value)
    if params.get(name) != text and (name in params or value != default):
        params[name] = text
        if st.query_params.get(name) != text:
            st.query_params[name] = text


def _seed(name: str, options: Sequence[Any] | None, default: Any, parse) -> Any:
    raw = _params().get(name)
    if raw is None:
        return default
    if options is not None:
        for option in options:
            if _text(option) == raw:
                return option
        shown = ", ".join(map(_text, list(options)[:8])) + (", …" if len(options) > 8 else "")
        return _replaced(name, raw, f"not one of {shown}", default)
    try:
        return parse(raw) if parse else raw
    except ValueError as exc:
        return _replaced(name, raw, str(exc) or "unreadable", default)


def _replaced(name: str, raw: str, why: str, default: Any) -> Any:
    notify(
        f"Ignored {code(f'{name}={raw[:40]}')} from the link: {plain(why)}; "
        f"showing {plain(_text(default))}."
    )
    _params().pop(name, None)
    return default


def flag(raw: str) -> bool:
    """A switch's value as a link writes it."""
    if raw in ("1", "true", "True"):
        return True
    if raw in ("0", "false", "False"):
        return False
    raise ValueError("not 1 or 0")


def bounded(cast: Callable[[str], Any], low: float, high: float) -> Callable[[str], Any]:
    """A reader of numbers within a widget's range."""

    def parse(raw: str) -> Any:
        value = cast(raw)
        if not low <= value <= high:  # NaN fails too
            raise ValueError(f"not within {low:g} and {high:g}")
        return value

    return parse


def tabs(labels: list[str], name: str) -> Sequence[Any]:
    """Tabs that run and send only the open one (check `tab.open`): a page switch then pays
    for the tab on screen, not for every chart and table behind the others. The open tab
    is a view value, so it survives a page switch and a copied link reopens it."""
    key = widget_key(name)
    if key not in st.session_state:
        st.session_state[key] = _seed(name, labels, labels[0], None)
    if presenting():  # the open tab alone, without the row of tabs to click
        return [_Slide(label == st.session_state[key]) for label in labels]
    opened = st.tabs(labels, key=key, on_change="rerun")
    remember(name, st.session_state[key], labels[0])
    return opened


class _Slide:
    """A tab in presentation mode: the open one draws into the page, the others nowhere."""

    def __init__(self, open: bool) -> None:
        self.open = open

    def __enter__(self) -> _Slide:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def sync_url() -> None:
    """Write the session's parameters to the URL in one message (a page switch clears the
    URL, and the browser pushes a history entry per message)."""
    params = _params()
    current = {key: st.query_params.get(key) for key in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def open_experiment(name: str) -> None:
    """The experiment this session has open (its folder's name)."""
    st.session_state[_OPENED] = name


def opened_experiment() -> str | None:
    """The experiment the session had open on its last rerun: when it is gone, the page
    says so."""
    return st.session_state.get(_OPENED)


def notify(*messages: str) -> None:
    """Say once, at the top of the page, what the app had to change in what it was given
    (Markdown: what came from a link or a file goes in through `markup`)."""
    st.session_state.setdefault(_NOTICES, []).extend(messages)


def last_seen(experiment: str, now: Any) -> Any:
    """What this session last read of an experiment (None on its first look); `now` is
    kept in its place, for the next rerun to compare with."""
    seen = st.session_state.setdefault(_SEEN, {})
    before, seen[experiment] = seen.get(experiment), now
    return before


def take_notices() -> Iterable[str]:
    return st.session_state.pop(_NOTICES, [])
