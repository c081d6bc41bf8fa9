"""The chart component preload: it names a script the pinned Streamlit serves, and is the
same hidden element on every rerun (so nothing after it shifts)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from leakeval_app import preload


def test_the_chart_component_is_found_in_the_installed_streamlit():
    """Streamlit renames its chunks per release: an upgrade that drops this one is caught
    here, not by a slower first chart."""
    script = preload.chart_script()
    assert script is not None and script.startswith("static/js/PlotlyChart.")
    assert (preload.STATIC.parent.parent / script).is_file()


def _script() -> None:
    import streamlit as st

    from leakeval_app.preload import preload_charts

    preload_charts()
    st.write("page")


def test_the_preload_is_the_same_hidden_element_on_every_rerun():
    app = AppTest.from_function(_script).run()
    (html,) = [e for e in app.get("html")]
    assert 'import("/static/js/PlotlyChart.' in html.proto.body
    assert "display: none" in html.proto.body
    (again,) = [e for e in app.run().get("html")]
    assert again.proto.body == html.proto.body
