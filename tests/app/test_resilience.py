"""A shared server that holds (#37), in AppTest: a cache it cannot write, an experiment it
cannot read, uploads past their limits. The same in a real browser is in
test_browser_resilience.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest import PAGES
from tests.support import ROOT


def cache_notice(cache: Path) -> str:
    return (
        f"leakeval: cache {cache} is not writable (a file is where its folder should be); "
        "working from memory, nothing new is kept between runs"
    )


def broken_experiment(data: Path) -> Path:
    """A small experiment whose experiment.toml is not TOML, alone in `data`."""
    experiment = data / "broken"
    (experiment / "runs").mkdir(parents=True)
    (experiment / "t.txt").write_text("1\tsolar panels\n")
    (experiment / "q.txt").write_text("1 0 a 1\n")
    (experiment / "runs" / "bm25.run").write_text("1 Q0 a 1 2 x\n")
    (experiment / "experiment.toml").write_text('[collections.c\ntopics = "t.txt"\n')
    return experiment


BROKEN = "experiment.toml:1: invalid TOML"


def open_app_at(data: Path, cache: Path, monkeypatch) -> AppTest:
    """The app on `data` with `cache`, after a first run that raised nothing (the landing
    page's: each test's cache is new to this process, so that run is the one that probes)."""
    monkeypatch.setenv("LEAKEVAL_DATA", str(data))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(cache))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.demo
@pytest.mark.parametrize("page", PAGES)
def test_every_page_works_from_memory_when_the_cache_is_a_file(
    demo_dir, tmp_path, monkeypatch, page
):
    """Each page draws, with no exception and one line at its top that says the cache
    cannot be written, whose path it names: on its first run, and on every rerun."""
    cache = tmp_path / "cache"
    cache.write_text("a file, where the cache folder should be")
    at = open_app_at(demo_dir.parent, cache, monkeypatch)
    for _ in range(2):
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        said = [w.value for w in at.main.warning if "leakeval: cache" in w.value]
        assert said == [cache_notice(cache)]
        assert "\n" not in said[0]
        assert at.main.header[0].value  # the page itself is drawn below it
    assert cache.read_text() == "a file, where the cache folder should be"


def test_an_uncached_experiment_is_scored_once_and_kept_in_memory(tmp_path, monkeypatch):
    """The first visit scores with a cache it cannot write, and says so instead of failing;
    later visits (other sessions too) find the scores in the study, not scored again."""
    from leakeval_core.experiment import scores

    small = tmp_path / "data" / "small"
    (small / "runs").mkdir(parents=True)
    (small / "t.txt").write_text("1\tsolar panels\n2\twind farms\n")
    (small / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    for model in ("bm25", "t5"):
        (small / "runs" / f"{model}.run").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 3 x\n")
    (small / "experiment.toml").write_text(
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n[runs]\npattern = "runs/{model}.run"\n'
    )
    cache = tmp_path / "cache"
    cache.write_text("in the way")
    scored = []
    score = scores.score_experiment
    monkeypatch.setattr(
        scores, "score_experiment", lambda *a, **k: scored.append(1) or score(*a, **k)
    )
    for _ in range(2):  # two sessions
        at = open_app_at(tmp_path / "data", cache, monkeypatch)
        for page in PAGES:
            at.switch_page(page).run()
            assert not at.exception, (page, [e.value for e in at.exception])
            assert [w.value for w in at.main.warning if "leakeval: cache" in w.value] == [
                cache_notice(cache)
            ]
    assert scored == [1]


@pytest.mark.parametrize("present", [False, True])
def test_a_bad_experiment_is_explained_in_the_main_area(tmp_path, monkeypatch, present):
    """Not only in the sidebar, which presentation mode and narrow windows collapse."""
    broken_experiment(tmp_path / "data")
    monkeypatch.setenv("LEAKEVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["present"] = "1" if present else "0"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.main.error]
    assert len(errors) == 1 and BROKEN in errors[0], errors
    assert errors[0].startswith("leakeval: ")
    assert not at.sidebar.error
