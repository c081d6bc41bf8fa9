"""A lab server that is safe to share (#47), in AppTest: text that came from a link, an
uploaded file's name or an experiment is shown as text on every page, never as a link, an
image, HTML or a broken code span; a LeakevalError is a page's notice, never a traceback;
and no page shows the server's own paths. The same in a real browser, where a link would
be clickable and an image fetched: test_browser_hostile.py."""

from __future__ import annotations

import hashlib

import pytest
from streamlit.testing.v1 import AppTest

from leakeval_app import uploads
from leakeval_app.markup import code, plain
from leakeval_app.page_list import PAGES as PAGE_NAMES
from leakeval_app.screen import RESERVED
from tests.app.apptest import PAGES, open_tab
from tests.app.hostile import (
    CHART_MARKUP,
    HOSTILE,
    UPLOAD_NAME,
    chart_texts,
    every_string,
    hostile_experiment,
    markdown_texts,
    markup_in,
)
from tests.support import ROOT

pytestmark = pytest.mark.demo

SETTINGS = sorted(RESERVED - {"page", "collection"})
"""The link's parameters every page reads (the screen's settings and the experiment): each
bad value is a notice on every page."""


def choices(experiment) -> list[str]:
    """The page choices a link can carry for this experiment's factors (`state.control`'s
    names on the pages), the collection and each page's open tab."""
    factors = [f for f in experiment.condition_factors if f != "collection"]
    names = ["collection", "x", "colour", "facet", "qid", "topic", "inflation_leaked"]
    names += ["inflation_clean", "audit_strata", "audit_split", "audit_model"]
    names += [f"{side}_{f}" for f in factors for side in ("story", "a", "b", "fix")]
    return names + [f"{page}_tab" for page in PAGE_NAMES]


def literal_screen(at: AppTest) -> list[str]:
    """The screen's Markdown, after checking that none of it, and no chart text, is markup
    and that nothing raised."""
    assert not at.exception, [e.value for e in at.exception]
    texts = markdown_texts(at)
    marked = {text: found for text in texts if (found := markup_in(text))}
    assert not marked, marked
    charts = [text for text in chart_texts(at) if CHART_MARKUP.search(text)]
    assert not charts, charts
    return texts


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("page", PAGES)
def test_a_hostile_link_is_text_on_every_page(app, demo_experiment, page, value):
    """Every parameter of the link, and a parameter's name, holding a link, an image,
    backticks or HTML: each is said back in a notice, as text."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({name: value for name in [*SETTINGS, *choices(demo_experiment)]})
    at.query_params[value] = "1"
    at.switch_page(page).run()
    literal_screen(at)
    notices = [w.value for w in at.warning]
    for name in SETTINGS:
        assert any(code(f"{name}={value[:40]}") in n for n in notices), (name, notices)
    assert any(f"parameter {code(value[:40])}: no setting" in n for n in notices), notices


@pytest.mark.parametrize("value", ["3", "-1", "nan", "1e999", "☃" * 200])
@pytest.mark.parametrize("page", PAGES)
def test_any_value_of_any_parameter_is_a_notice_never_a_traceback(
    app, demo_dir, demo_experiment, page, value
):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params.update({name: value for name in [*SETTINGS, *choices(demo_experiment)]})
    at.switch_page(page).run()
    literal_screen(at)
    assert str(demo_dir.parent) not in every_string(at)


def test_a_page_that_cannot_compare_says_so(app, demo_dir):
    """The issue's link: with grade 3 relevant, no demo query (graded 0-2) has a first
    relevant rank, so there is nothing to compare; the page says so in one line, with no
    traceback and no server path."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params.update({"experiment": "demo", "rel": "3", "measure": "first_rel_rank"})
    at.switch_page("app_pages/conditions.py").run()
    literal_screen(at)
    assert [e.value for e in at.main.error] == [
        "leakeval: no query has a value of this measure here: nothing to compare"
    ]
    shown = every_string(at)
    assert str(demo_dir.parent) not in shown and str(ROOT) not in shown


def kept_uploads(runs: dict[str, bytes]) -> uploads._Kept:
    """A session's store holding these runs, as if uploaded (AppTest cannot upload)."""
    kept = uploads._Kept(None)
    for name, data in runs.items():
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        kept.runs[digest] = uploads.Upload(digest, name, data, len(data))  # not compressed
    return kept


def test_an_experiments_own_text_and_an_uploads_name_are_text(tmp_path, monkeypatch):
    """Every page and tab of an experiment whose name, collection, levels, topics and
    training queries hold hostile text, with a run uploaded under a hostile name and a
    broken one: all of it text, every error one line, every path from the served folder."""
    experiment = hostile_experiment(tmp_path / "data")
    monkeypatch.setenv("LEAKEVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    good = (experiment / "runs" / "bm25" / "leaked.run").read_bytes()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.session_state[uploads._STORE] = kept_uploads(
        {UPLOAD_NAME: good, f"broken {UPLOAD_NAME}": b"1 Q0 d1-0 1 oops r\n"}
    )
    at.run()
    shown, errors = [], []
    for page in PAGES:
        at.switch_page(page).run()
        name = page.removeprefix("app_pages/").removesuffix(".py")
        for label in [None, *(t.label for t in at.tabs[1:])]:
            if label is not None:
                open_tab(at, f"{name}_tab", label)
            shown += literal_screen(at)
            errors += [e.value for e in at.main.error]
            assert str(tmp_path) not in every_string(at), (page, label)
    said = "\n".join(shown)
    for text in (*HOSTILE, UPLOAD_NAME):
        assert plain(text) in said, text  # shown, as text
    assert any("data/hostile/runs/broken/clean.run:1: " in e for e in errors), errors
    assert any(f"broken {plain(UPLOAD_NAME)}:1: " in e for e in errors), errors
