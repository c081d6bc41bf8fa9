"""The dashboard's frame in AppTest, around every page: the sidebar and its settings, the
URL and navigation, presentation mode, the data folder and what goes wrong in it.

Each page's own behaviour is in test_<page>_page.py.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from leakeval_app.markup import plain
from tests.app.apptest import PAGES, key_of, open_tab, story_pair, widget
from tests.support import ROOT

pytestmark = pytest.mark.demo


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_without_error(app, page):
    at = app(page)
    assert not at.error
    assert at.header[0].value
    assert any("Simulated data" in w.value for w in at.sidebar.warning)
    assert any("Conventions" in c.value for c in at.sidebar.caption)


def test_closed_settings_still_apply_and_show_under_their_expanders(app):
    """The sidebar's conventions and statistics sit in lazy expanders: closed, their widgets
    are not drawn, but a value from the URL or set earlier still applies and is shown."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["rel"] = "2"
    at.query_params["alpha"] = "0.01"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.sidebar.number_input) == 0  # closed: depth's widget is not drawn
    assert [e.label for e in at.sidebar.expander] == ["Conventions", "Statistics"]
    captions = [c.value for c in at.sidebar.caption]
    assert "leakeval: depth 100, relevant from grade 2, linear gain" in captions
    assert (
        "paired Student t-test over queries between conditions, Welch's t-test over topics for "
        "leaked minus other topics, Bonferroni, α = 0.01 (intervals: test inversion)"
    ) in captions
    assert "relevant: grade ≥ 2" in at.sidebar.caption[-1].value

    at.session_state["settings_statistics"] = True
    at.run()
    widget(at.sidebar.selectbox, "correction").set_value("holm").run()
    at.session_state["settings_statistics"] = False
    at.run()
    assert len(at.sidebar.selectbox) == 2  # experiment and measure only
    assert (
        "paired Student t-test over queries between conditions, Welch's t-test over topics for "
        "leaked minus other topics, Holm, α = 0.01 (intervals: test inversion)"
    ) in [c.value for c in at.sidebar.caption]
    assert at.query_params["correction"] == "holm"


def test_the_statistics_choices_and_their_help_are_the_declarations(app):
    """The sidebar's Test and Intervals read their labels and help from the procedures'
    declarations: both forms of each test, both kinds of bootstrap."""
    from leakeval_core.api.terms import INTERVALS, TESTS

    at = app("app_pages/story.py")
    at.session_state["settings_statistics"] = True
    at.run()
    test, interval = widget(at.sidebar.selectbox, "test"), widget(at.sidebar.selectbox, "interval")
    assert test.options == [t.shown for t in TESTS.values()]
    assert interval.options == [m.shown for m in INTERVALS.values()]
    for t in TESTS.values():
        assert f"{t.paired.name} between conditions, {t.two_sample.name}" in test.help
    assert "paired Student t-test over queries" in test.help and "Welch's t-test" in test.help
    assert "percentile bootstrap between conditions, BCa bootstrap" in interval.help


def test_a_delta_the_field_cannot_read_is_said_beside_it_not_silently_replaced(app):
    """Typed "abc" or "-0.02", the δ field kept its text while every page sized for the
    default δs, and nothing said so: the sidebar says what it sizes for instead."""
    at = app("app_pages/audit.py")
    at.session_state["settings_statistics"] = True
    at.run()
    field = widget(at.sidebar.text_input, "delta")
    for typed in ("abc", "-0.02"):
        field.set_value(typed).run()
        assert not at.exception, [e.value for e in at.exception]
        said = [w.value for w in at.sidebar.warning if "sizing for" in w.value]
        assert len(said) == 1 and said[0].endswith(
            ": sizing for nDCG@10's default 0.01, 0.02, 0.05 instead."
        ), typed
        assert "got" in said[0], typed
        assert any("Topics for δ 0.01 · 0.02 · 0.05" in c for t in at.table for c in t.value)
    field.set_value("0.02, 0.1").run()
    assert not [w for w in at.sidebar.warning if "sizing for" in w.value]
    assert any("Topics for δ 0.02 · 0.1" in c for t in at.table for c in t.value)


def test_an_empty_delta_field_sizes_for_the_measures_own_deltas(app):
    """Left empty, the δ field sizes for the measure's own δs, which it shows as its
    placeholder: points of a score for nDCG@10, ranks for the first relevant rank (where
    0.01 would ask for hundreds of thousands of topics)."""
    at = app("app_pages/audit.py")
    at.session_state["settings_statistics"] = True
    at.run()
    field = widget(at.sidebar.text_input, "delta")
    assert field.value == "" and field.placeholder.startswith("0.01, 0.02, 0.05")
    assert not [w for w in at.sidebar.warning if "sizing for" in w.value]
    assert any("Topics for δ 0.01 · 0.02 · 0.05" in c for t in at.table for c in t.value)
    widget(at.sidebar.selectbox, "measure").set_value("first_rel_rank").run()
    assert not at.exception, [e.value for e in at.exception]
    field = widget(at.sidebar.text_input, "delta")
    assert field.value == "" and field.placeholder.startswith("1, 2, 5")
    assert any("Topics for δ 1 · 2 · 5" in c for t in at.table for c in t.value)


def test_a_broken_run_is_listed_and_the_rest_still_shows(tmp_path, monkeypatch):
    import shutil

    data = tmp_path / "data"
    experiment = data / "broken"
    experiment.mkdir(parents=True)
    (experiment / "t.txt").write_text("1\tsolar panels\n2\twind farms\n")
    (experiment / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    runs = experiment / "runs"
    runs.mkdir()
    for model in ("bm25", "t5"):
        (runs / f"{model}.run").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 3 x\n")
    (runs / "broken.run").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 oops x\n")
    (experiment / "experiment.toml").write_text(
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n[runs]\npattern = "runs/{model}.run"\n'
    )
    monkeypatch.setenv("LEAKEVAL_DATA", str(data))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    for page in (None, "app_pages/conditions.py", "app_pages/queries.py"):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        errors = [e.value for e in at.error]
        assert any("broken.run:2: score 'oops' is not a number" in e for e in errors), errors
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)


@pytest.mark.parametrize("value", ["../../etc", "/etc", "demo/../..", "nope"])
def test_url_cannot_open_an_experiment_outside_the_data_root(app, value):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["experiment"] = value
    at.run()
    assert not at.exception
    assert widget(at.sidebar.selectbox, "experiment").value == "demo"


@pytest.mark.parametrize("broken", ["qrels", "training"])
def test_broken_collection_or_log_is_an_error_not_a_traceback(tmp_path, monkeypatch, broken):
    experiment = tmp_path / "data" / "x"
    (experiment / "runs").mkdir(parents=True)
    (experiment / "t.txt").write_text("1\tsolar panels\n")
    (experiment / "q.txt").write_text("1 0 a 1\n" if broken != "qrels" else "1 0 a one\n")
    (experiment / "train.tsv").write_text(
        "9\tsolar panels\n" if broken != "training" else "9\tsolar\textra\n"
    )
    (experiment / "runs" / "bm25.run").write_text("1 Q0 a 1 2 x\n")
    (experiment / "experiment.toml").write_text(
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[training_queries]\npath = "train.tsv"\n[runs]\npattern = "runs/{model}.run"\n'
    )
    monkeypatch.setenv("LEAKEVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    expected = (
        "q.txt:1: grade 'one' is not an integer"
        if broken == "qrels"
        else ("train.tsv:1: expected 'qid<TAB>text', found 3 fields")
    )
    for page in PAGES:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        shown = plain(expected)  # as text: its <TAB> is no tag
        assert any(shown in e.value for e in at.error), (page, [e.value for e in at.error])


def test_figure_digest_sees_every_value():
    """Figures are cached by a digest of their inputs: one changed value must miss."""

    from leakeval_app.render import _digest

    frame = pd.DataFrame({"qid": ["1", "2"], "value": [0.5, 0.25]})
    same = _digest((frame.copy(), 0.8), {})
    assert _digest((frame, 0.8), {}) == same
    assert _digest((frame.assign(value=[0.5, 0.2500001]), 0.8), {}) != same
    assert _digest((frame, 0.81), {}) != same
    assert _digest((frame.rename(columns={"value": "v"}), 0.8), {}) != same


def test_warm_reruns_replay_no_progress_bars(demo_dir, tmp_path, monkeypatch):
    """After scoring in this process (a cold cache), a rerun must not replay the progress
    updates shown while scoring: st.cache_* functions replay every element they drew, which
    once made each rerun resend hundreds of progress messages."""
    from streamlit.runtime.caching import cache_utils

    from leakeval_app import loaders

    monkeypatch.setenv("LEAKEVAL_DATA", str(demo_dir.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cold-cache"))
    monkeypatch.chdir(ROOT)
    loaders.study.clear()
    replayed: list[str] = []
    replay = cache_utils.replay_cached_messages

    def counting(result, *args):
        replayed.extend(getattr(m, "delta_type", "block") for m in result.messages)
        return replay(result, *args)

    monkeypatch.setattr(cache_utils, "replay_cached_messages", counting)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    for page in PAGES:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    replayed.clear()
    for page in PAGES:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert replayed.count("progress") == 0
    assert "plotly_chart" in replayed  # charts do replay: that is what keeps reruns cheap


def test_a_demo_symlink_in_the_way_is_never_followed_or_deleted(tmp_path, monkeypatch):
    """The data root holds only a `demo` symlink to a folder of the user's (no manifest):
    the app must not generate through it, delete what it points to, or crash; it says
    there is no experiment (the running app never generates the demo)."""
    precious = tmp_path / "precious"
    (precious / "notes.txt").parent.mkdir(parents=True)
    (precious / "notes.txt").write_text("keep me")
    root = tmp_path / "data"
    root.mkdir()
    (root / "demo").symlink_to(precious)
    monkeypatch.setenv("LEAKEVAL_DATA", str(root))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.main.error] == [
        "leakeval: no experiment in data/: a folder with an experiment.toml, in it or directly "
        "below it (the docs' page 'Your own study' shows one; `leakeval demo --out "
        "data/demo` writes the simulated demo there)"
    ]
    assert (precious / "notes.txt").read_text() == "keep me"
    assert (root / "demo").is_symlink()


def test_experiments_behind_symlinks_are_served(demo_dir, tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    (root / "study").symlink_to(demo_dir)
    monkeypatch.setenv("LEAKEVAL_DATA", str(root))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert widget(at.sidebar.selectbox, "experiment").value == "study"
    assert not (root / "demo").exists()  # nothing generated beside it


def test_presentation_mode_hides_the_controls(app):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception
    assert at.header[0].value.startswith("Leaked training")
    assert not story_pair(at)  # the pair comes from the URL or the default
    assert not at.selectbox and not at.toggle and not at.button  # no control is drawn
    assert at.session_state[key_of("present", "story")] is True


def test_a_copied_link_reopens_the_open_tab(app):
    at = open_tab(app("app_pages/queries.py"), "queries_tab", "One query")
    assert at.query_params["queries_tab"] == "One query"
    link = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    link.query_params["conditions_tab"] = "Inflation"
    link.switch_page("app_pages/conditions.py").run()
    assert not link.exception
    assert any("Gain, leaked" in t.value.columns for t in link.table)


def test_map_at_depth_100_says_it_is_not_trec_evals(app):
    at = app()
    assert not any("**Depth.**" in c.value for c in at.sidebar.caption)  # nDCG@10: nothing cut
    widget(at.sidebar.selectbox, "measure").set_value("map").run()
    notes = [c.value for c in at.sidebar.caption if c.value.startswith("**Depth.**")]
    assert notes == [
        "**Depth.** AP: only the top 100 documents of each run count (depth 100; trec_eval's "
        "default is 1000, so these can be lower than trec_eval's; the trec_eval 10 preset or "
        "--compat trec_eval uses 1000)."
    ]


def test_the_app_shows_what_is_on_disk(demo_dir, tmp_path, monkeypatch):
    """A run added under the pattern is scored on the next rerun, a removed one disappears,
    and a file that vanishes is named in a message, not a traceback."""
    import shutil

    from tests.support import single_factor_experiment

    root = tmp_path / "data"
    experiment = single_factor_experiment(demo_dir, root / "one")
    monkeypatch.setenv("LEAKEVAL_DATA", str(root))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page("app_pages/conditions.py").run()
    assert set(at.dataframe[0].value.model) == {"colbert", "monobert", "monot5"}

    shutil.copyfile(experiment / "runs" / "monot5.run", experiment / "runs" / "copy.run")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert set(at.dataframe[0].value.model) == {"colbert", "copy", "monobert", "monot5"}

    (experiment / "runs" / "colbert.run").unlink()
    at.run()
    assert set(at.dataframe[0].value.model) == {"copy", "monobert", "monot5"}

    (experiment / "qrels.txt").unlink()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("qrels.txt" in e.value and "no such file" in e.value for e in at.error), [
        e.value for e in at.error
    ]


def test_the_collection_and_the_open_tab_follow_the_user_across_pages(app):
    at = app("app_pages/queries.py")
    widget(at.selectbox, "collection").set_value("core18").run()
    at.switch_page("app_pages/conditions.py").run()
    assert widget(at.selectbox, "collection").value == "core18"
    open_tab(at, "conditions_tab", "Inflation")
    at.switch_page("app_pages/datasets.py").run()
    assert widget(at.selectbox, "collection").value == "core18"
    at.switch_page("app_pages/conditions.py").run()
    assert not at.exception
    assert any("Gain, leaked" in t.value.columns for t in at.table)  # Inflation is open
    assert set(at.dataframe[0].value.collection) == {"core18"}


def test_bad_link_values_are_replaced_with_a_notice(app):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update(
        {"threshold": "nan", "collection": "nowhere", "measure": "bogus", "conditions_tab": "?"}
    )
    at.switch_page("app_pages/conditions.py").run()
    assert not at.exception, [e.value for e in at.exception]
    notices = [w.value for w in at.warning]
    for name in ("threshold=nan", "collection=nowhere", "measure=bogus", "conditions_tab=?"):
        assert any(name in n for n in notices), (name, notices)
    assert widget(at.selectbox, "collection").value == "robust04"


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="/usr/bin/chromium is absent")
def test_every_chart_of_a_page_exports_as_slide_images(app):
    """PNG and SVG at 1920x1080 for each chart the page shows, drawn by kaleido."""
    import io
    import struct
    import zipfile

    at = app("app_pages/leakage.py")
    at.session_state["export_charts"] = True  # open the lazy expander
    at.run()
    next(b for b in at.button if b.label == "Make the images").click().run()
    assert not at.exception, [e.value for e in at.exception]
    blob = at.session_state["_leakeval_slides"][1]
    names = zipfile.ZipFile(io.BytesIO(blob)).namelist()
    pngs = sorted(n for n in names if n.endswith(".png"))
    assert len(pngs) == 1 == len([n for n in names if n.endswith(".svg")])  # the one chart
    assert pngs[0].startswith("01-topics-with-a-near-duplicate")
    png = zipfile.ZipFile(io.BytesIO(blob)).read(pngs[0])
    assert struct.unpack(">II", png[16:24]) == (1920, 1080)  # the IHDR width and height
    assert [d for d in at.get("download_button") if "slide images" in d.proto.label]
