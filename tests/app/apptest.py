"""Driving the dashboard in AppTest: its pages, and finding and clicking what they draw.

The fixtures that open it (`open_app`, and `app` on the demo) are in tests/app/conftest.py.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from leakeval_app import page_list

PAGES = [page_list.script(name) for name in page_list.PAGES]
"""Every page's script, in the sidebar's order, as `AppTest.switch_page` takes it."""


def linked(experiment, tmp_path, monkeypatch, page: str, **params: str) -> AppTest:
    """The app on the data folder holding `experiment`, opened at `page` by a link carrying
    `params`, with a cache of its own under `tmp_path`."""
    from tests.support import ROOT

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("LEAKEVAL_DATA", str(experiment.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def key_of(name: str, page: str) -> str:
    """The widget key a page gives a view value (`leakeval_app.state.widget_key`)."""
    return f"w:{page}:{name}"


def widget(elements, name: str):
    """The widget of view value `name` among `elements`, whichever page drew it."""
    return next(
        e for e in elements if e.key and e.key.startswith("w:") and e.key.endswith(f":{name}")
    )


def open_tab(at: AppTest, name: str, label: str) -> AppTest:
    """Click a tab: only the open tab's content runs (lazy tabs)."""
    at.session_state[key_of(name, name.removesuffix("_tab"))] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def detected(experiment, cache):
    """The LEAKAGE table the app shows: the experiment's method (conftest pins one), its own
    threshold."""
    from leakeval_core.leakage.table import load_leakage

    return load_leakage(experiment, cache)


def story_pair(at: AppTest) -> dict:
    """The Story's pair pickers: label -> chosen level."""
    return {
        s.label: s.value
        for s in at.selectbox
        if s.key and (":story_" in s.key or s.key == "w:story:collection")
    }
