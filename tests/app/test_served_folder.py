"""The app never writes into what it serves (#47): a folder, or an experiment, deleted while
a reader has it open stays deleted, and the page says it is gone; the running app never
generates the demo."""

from __future__ import annotations

import shutil

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest import PAGES, widget
from tests.app.test_resilience import small_experiment
from tests.support import ROOT

pytestmark = pytest.mark.demo


@pytest.fixture
def served(demo_dir, demo_cache, tmp_path, monkeypatch):
    """A copy of the demo in `tmp/data`, open in AppTest on the Story (the session's cache:
    its scores are the demo's)."""
    data = tmp_path / "data"
    shutil.copytree(demo_dir, data / "demo")
    monkeypatch.setenv("LEAKEVAL_DATA", str(data))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception and at.main.header, [e.value for e in at.exception]
    return at, data


@pytest.mark.parametrize("page", PAGES)
def test_a_deleted_folder_stays_deleted_and_the_page_says_it_is_gone(served, page):
    at, data = served
    shutil.rmtree(data)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.main.error] == [
        "leakeval: the folder data/ is gone; nothing to show until it is back "
        "(`leakeval demo --out data/demo` writes the simulated demo there)"
    ]
    assert not data.exists()
    assert str(data) not in "".join(e.value for e in at.main.error)


def test_a_deleted_only_experiment_stays_deleted_and_the_page_says_it_is_gone(served):
    at, data = served
    shutil.rmtree(data / "demo")
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        errors = [e.value for e in at.main.error]
        assert errors == [
            "leakeval: the experiment data/demo is gone, and data/ holds no other; nothing to "
            "show until one is back (`leakeval demo --out data/demo` writes the simulated "
            "demo there)"
        ], errors
        assert list(data.iterdir()) == []


def test_a_deleted_experiment_is_a_notice_and_another_opens(served):
    """With another experiment left, the session says the one it had open is gone and
    shows the other; the deleted one is not made again."""
    at, data = served
    small_experiment(data)
    at.run()
    assert widget(at.sidebar.selectbox, "experiment").value == "demo"
    shutil.rmtree(data / "demo")
    at.switch_page("app_pages/conditions.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "The experiment data/demo is gone; showing another." in [w.value for w in at.warning]
    assert widget(at.sidebar.selectbox, "experiment").value == "small"
    assert not (data / "demo").exists()
    at.run()  # said once
    assert not any("is gone" in w.value for w in at.warning)


def test_an_empty_folder_is_not_given_the_demo(tmp_path, monkeypatch):
    """`streamlit run app.py` on a folder without an experiment says how to make one: the
    demo is generated only when asked (`leakeval demo`, `make app`, `leakeval app`)."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("LEAKEVAL_DATA", str(data))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.main.error] == [
        "leakeval: no experiment in data/: a folder with an experiment.toml, in it or directly "
        "below it (the docs' page 'Your own study' shows one; `leakeval demo --out data/demo` "
        "writes the simulated demo there)"
    ]
    assert list(data.iterdir()) == []
