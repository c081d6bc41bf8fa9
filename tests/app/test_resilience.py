"""A shared server that holds (#37), in AppTest: a cache it cannot write, an experiment it
cannot read, uploads past their limits. The same in a real browser is in
test_browser_resilience.py."""

from __future__ import annotations

import gzip
import weakref
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest import PAGES, open_tab, widget
from tests.support import ROOT, gzip_bomb


def cache_notice(cache: Path) -> str:
    return (
        f"leakeval: cache {cache} is not writable (a file is where its folder should be); "
        "working from memory, nothing new is kept between runs"
    )


def small_experiment(data: Path) -> Path:
    """Two runs on two topics, alone in `data`: nothing of it is cached anywhere."""
    small = data / "small"
    (small / "runs").mkdir(parents=True)
    (small / "t.txt").write_text("1\tsolar panels\n2\twind farms\n")
    (small / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    for model in ("bm25", "t5"):
        (small / "runs" / f"{model}.run").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 3 x\n")
    (small / "experiment.toml").write_text(
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n[runs]\npattern = "runs/{model}.run"\n'
    )
    return small


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

    small_experiment(tmp_path / "data")
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


def test_a_disk_that_fills_up_during_a_visit_is_said_on_that_visit(tmp_path, monkeypatch):
    """The probe wrote; the scores' table does not fit: the page still draws, and says so
    at its top on the rerun that found out, as on every one after it."""
    import errno
    import os

    import pyarrow.parquet as pq

    small_experiment(tmp_path / "data")
    cache = tmp_path / "cache"

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq, "write_table", full)
    at = open_app_at(tmp_path / "data", cache, monkeypatch)
    for _ in range(2):
        said = [w.value for w in at.main.warning if "leakeval: cache" in w.value]
        assert said == [
            f"leakeval: cache {cache} is full (no space left on device); working from memory, "
            "nothing new is kept between runs"
        ]
        at.run()
        assert not at.exception, [e.value for e in at.exception]


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


# Uploads are bounded: what a session keeps, what the server keeps, and for how long.


@pytest.fixture
def uploading(app, demo_dir, monkeypatch):
    """The dataset browser's upload tab on the demo, with a server that keeps nothing from
    other tests' sessions; and a good and a broken run for its first collection."""
    from leakeval_app import uploads

    monkeypatch.setattr(uploads, "_LIVE", weakref.WeakSet())
    at = app("app_pages/datasets.py")
    open_tab(at, "datasets_tab", "Score your own run")
    collection = widget(at.selectbox, "collection").value
    good = next((demo_dir / "runs" / collection).rglob("*.run")).read_bytes()
    first = good.split(b"\n", 1)[0].decode().split()[0]
    return at, good, f"{first} Q0 d1 1 2.0 x\n{first} Q0 d2 2 nan x\n".encode()


def upload(at: AppTest, *files: tuple[str, bytes]) -> AppTest:
    at.file_uploader[0].set_value([(name, data, "text/plain") for name, data in files]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def session_store(at: AppTest):
    return at.session_state["_leakeval_uploads"]


@pytest.mark.demo
def test_a_run_that_fails_to_parse_is_read_once(uploading, monkeypatch):
    """Its error is said again on every rerun, from memory: the file is not parsed again."""
    from leakeval_core.io import trec

    at, _, bad = uploading
    parsed = []
    read_run_table = trec.read_run_table

    def read(source, *args, **kwargs):
        parsed.append(source[0] if isinstance(source, tuple) else None)  # an upload: (name, bytes)
        return read_run_table(source, *args, **kwargs)

    monkeypatch.setattr(trec, "read_run_table", read)
    upload(at, ("bad.run", bad))
    for _ in range(3):
        assert [e.value for e in at.main.error] == [
            "leakeval: bad.run:2: score 'nan' is not finite"
        ]
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    assert [name for name in parsed if name] == ["bad.run"]


@pytest.mark.demo
def test_removing_a_run_drops_it_and_what_was_computed_from_it(uploading):
    at, good, _ = uploading
    upload(at, ("mine.run", good))
    store = session_store(at)
    assert [run.name for run in store.runs.values()] == ["mine.run"]
    assert store.derived  # its scores
    assert not at.file_uploader[0].value  # the uploader let go of it: it is held once
    next(b for b in at.button if b.key and b.key.startswith("forget_")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert session_store(at).runs == {}
    assert not session_store(at).derived


@pytest.mark.demo
@pytest.mark.parametrize("page", ["datasets", "audit"])
def test_once_a_session_lets_go_of_an_upload_nothing_holds_it(uploading, app, page):
    """What the pages drew from an upload (the script's globals outlive its last run, and a
    closed tab's session outlives the tab) holds no reference to it, so its bytes go back
    when the session's store releases them."""
    import gc

    at, good, _ = uploading
    upload(at, ("mine.run", good))
    if page == "audit":
        at.switch_page("app_pages/audit.py").run()
        open_tab(at, "audit_tab", "Audit uploaded runs")
        assert any("mine.run" in str(option) for s in at.selectbox for option in s.options)
    store = session_store(at)
    held = weakref.ref(next(iter(store.runs.values())))
    store.release()
    gc.collect()
    assert held() is None


@pytest.mark.demo
def test_a_session_past_its_limit_is_told_which_and_keeps_what_fits(uploading, monkeypatch):
    at, good, bad = uploading
    monkeypatch.setenv("LEAKEVAL_SESSION_UPLOAD_MB", str((len(good) + len(bad) / 2) / 1e6))
    upload(at, ("mine.run", good), ("bad.run", bad))
    errors = [e.value for e in at.main.error]
    assert any(
        e.startswith("leakeval: bad.run (0.0 MB) is not kept: this session keeps ")
        and "(LEAKEVAL_SESSION_UPLOAD_MB); remove a run to make room" in e
        for e in errors
    ), errors
    assert [run.name for run in session_store(at).runs.values()] == ["mine.run"]


@pytest.mark.demo
def test_a_server_past_its_limit_is_told_so_in_every_session(uploading, app, monkeypatch):
    at, good, bad = uploading
    upload(at, ("mine.run", good))
    monkeypatch.setenv("LEAKEVAL_SERVER_UPLOAD_MB", str((len(good) + len(bad) / 2) / 1e6))
    other = app("app_pages/datasets.py")  # another reader's session
    open_tab(other, "datasets_tab", "Score your own run")
    upload(other, ("bad.run", bad))
    errors = [e.value for e in other.main.error]
    assert any(
        "is not kept: the server keeps" in e and "(LEAKEVAL_SERVER_UPLOAD_MB)" in e for e in errors
    ), errors
    assert session_store(other).runs == {}
    assert len(session_store(at).runs) == 1


@pytest.mark.demo
def test_a_file_over_the_upload_limit_is_not_kept(uploading, monkeypatch):
    at, good, _ = uploading
    monkeypatch.setenv("LEAKEVAL_MAX_UPLOAD_MB", "0.00001")
    upload(at, ("big.run", good))
    assert any(
        "big.run: " in e.value and "is over the upload limit of 0.0 MB" in e.value
        for e in at.main.error
    )
    assert session_store(at).runs == {}


@pytest.mark.demo
def test_a_gzip_past_the_upload_limit_once_decompressed_is_refused_unparsed(
    uploading, monkeypatch, tmp_path
):
    """A 64 KB gzip of 64 MB: measured as it arrives, refused by leakeval's message, never
    kept or parsed."""
    from leakeval_core.io import trec

    at, good, _ = uploading
    monkeypatch.setenv("LEAKEVAL_MAX_UPLOAD_MB", "1")
    parsed = []
    monkeypatch.setattr(trec, "read_run_table", lambda *a, **k: parsed.append(a))
    bomb = gzip_bomb(tmp_path / "bomb.run.gz", good.split(b"\n", 1)[0] + b"\n", 64 << 20)
    upload(at, ("bomb.run.gz", bomb.read_bytes()))
    assert [e.value for e in at.main.error] == [
        "leakeval: bomb.run.gz: more than 1.0 MB once decompressed, over the upload limit of "
        "1.0 MB (LEAKEVAL_MAX_UPLOAD_MB)"
    ]
    assert session_store(at).runs == {} and parsed == []


@pytest.mark.demo
def test_a_session_counts_what_its_runs_hold_once_decompressed(uploading, monkeypatch):
    at, good, _ = uploading
    monkeypatch.setenv("LEAKEVAL_SESSION_UPLOAD_MB", str((len(good) - 1) / 1e6))
    upload(at, ("mine.run.gz", gzip.compress(good)))  # far smaller compressed than the room
    assert any("mine.run.gz" in e.value and "is not kept" in e.value for e in at.main.error)
    assert session_store(at).runs == {}


@pytest.fixture
def upload_option():
    """Streamlit's own upload limit, put back after a test that makes the app set it."""
    from streamlit import config

    before = config.get_option("server.maxUploadSize")
    yield
    config.set_option("server.maxUploadSize", before)


@pytest.mark.demo
def test_streamlits_upload_limit_follows_leakevals_and_the_uploader_says_it(
    app, monkeypatch, upload_option
):
    """`streamlit run app.py` too: a file up to twice leakeval's limit reaches leakeval, which
    says why it refuses one past its limit."""
    from streamlit import config

    monkeypatch.setenv("LEAKEVAL_MAX_UPLOAD_MB", "300")
    at = open_tab(app("app_pages/datasets.py"), "datasets_tab", "Score your own run")
    assert config.get_option("server.maxUploadSize") == 600
    assert at.file_uploader[0].proto.max_upload_size_mb == 600
    assert "Up to 300.0 MB a file once decompressed (LEAKEVAL_MAX_UPLOAD_MB)" in " ".join(
        c.value for c in at.caption
    )


@pytest.mark.demo
@pytest.mark.parametrize(("page", "tab"), [("datasets", "Score your own run"), ("audit", None)])
def test_a_read_only_room_has_no_uploader_and_says_so(app, monkeypatch, upload_option, page, tab):
    from streamlit import config

    monkeypatch.setenv("LEAKEVAL_NO_UPLOADS", "1")
    at = app(f"app_pages/{page}.py")
    at = open_tab(at, f"{page}_tab", tab or "Audit uploaded runs")
    captions = [c.value for c in at.caption]
    assert len(at.file_uploader) == 0
    assert "Uploads are off on this server (LEAKEVAL_NO_UPLOADS)." in captions
    assert "Upload a run to audit it." not in captions
    assert config.get_option("server.maxUploadSize") == 0  # nor does the server take one


@pytest.mark.parametrize("back", [False, True])
def test_a_closed_tab_drops_its_uploads_after_the_session_ttl(monkeypatch, back):
    """Unless the session is back by then. The wait is joined, not timed."""
    from streamlit.runtime import Runtime

    from leakeval_app.uploads import Upload, _Kept

    kept = _Kept("a-session")
    kept.runs["d"] = Upload("d", "mine.run", b"1 Q0 a 1 2 x\n", 13)
    kept.derived[(("d",), "score")] = "scores"

    class Server:
        def is_active_session(self, session_id):
            return back and session_id == "a-session"

    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: Server()))
    kept.disconnected(0)
    kept.expiry.join()
    assert bool(kept.runs) == back and bool(kept.derived) == back


def test_an_old_uploaders_state_sent_again_is_passed_over():
    """The browser may send the state of an uploader already renewed: its files, let go of,
    come back as DeletedFile (seen in a full browser run as an AttributeError page)."""

    def script():
        import streamlit as st
        from streamlit.runtime.uploaded_file_manager import DeletedFile

        from leakeval_app import uploads

        uploads.keep([DeletedFile("let-go")])
        st.write(f"{len(uploads.kept())} kept")

    at = AppTest.from_function(script).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.markdown[0].value == "0 kept"


@pytest.mark.demo
def test_an_upload_limit_that_is_no_number_is_one_error_on_the_page(app, monkeypatch):
    """`streamlit run app.py` reads the limits on its first run (`leakeval app` refuses to
    start): the page says which variable, with no traceback."""
    monkeypatch.setenv("LEAKEVAL_MAX_UPLOAD_MB", "lots")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("LEAKEVAL_MAX_UPLOAD_MB='lots': expected a number" in e.value for e in at.error)


def two_collections(data: Path) -> Path:
    """Two collections of six topics, three of each leaked, and a model audited against a
    baseline, alone in `data`: `z`'s qrels judge nothing relevant (every grade 0)."""
    root = data / "two"
    files, pairs = {}, ["collection,test_qid,test_text,train_text,train_qid,similarity"]
    for collection, first, grade in (("c", 1, 1), ("z", 11, 0)):
        qids = range(first, first + 6)
        files[f"{collection}/t.txt"] = "".join(f"{q}\ttopic {q}\n" for q in qids)
        files[f"{collection}/q.txt"] = "".join(f"{q} 0 d{q} {grade}\n{q} 0 e{q} 0\n" for q in qids)
        for model, flip in (("bm25", 0), ("t5", 1)):
            files[f"runs/{collection}/{model}.run"] = "".join(
                f"{q} Q0 d{q} 1 {2 if (q + flip) % 2 else 1} x\n{q} Q0 e{q} 2 1.5 x\n" for q in qids
            )
        pairs += [f"{collection},{q},topic {q},topic {q},t{q},1.0" for q in qids[:3]]
    files["pairs.csv"] = "\n".join(pairs) + "\n"
    files["experiment.toml"] = (
        '[collections.c]\ntopics = "c/t.txt"\nqrels = "c/q.txt"\n'
        '[collections.z]\ntopics = "z/t.txt"\nqrels = "z/q.txt"\n'
        '[runs]\npattern = "runs/{collection}/{model}.run"\n'
        '[leakage]\ntable = "pairs.csv"\n[design]\nsystem = "model"\nbaseline = "bm25"\n'
    )
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


UNSCORED = (
    "leakeval: warning: z is left out of every figure: its qrels judge no document relevant "
    "at relevance level 1 (no grade of 1 or more), so none of its topics can be scored."
)


@pytest.mark.parametrize("page", PAGES)
def test_a_collection_with_nothing_relevant_is_a_notice_on_every_page(page, tmp_path, monkeypatch):
    """Its qrels judge no document relevant: every page says so at its top and draws the
    other collection, which is the only one it offers, even where the link names `z` (it
    once failed in plotly on the Condition comparison and in the Story). No unexpected
    error is logged (`server_log`)."""
    two_collections(tmp_path / "data")
    monkeypatch.setenv("LEAKEVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["collection"] = "z"
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.main.error, [e.value for e in at.main.error]
    assert [w.value for w in at.main.warning if " left out " in w.value] == [UNSCORED]
    offered = [s.options for s in at.selectbox if (s.key or "").endswith(":collection")]
    if not page.endswith(("datasets.py", "leakage.py")):  # those show z's topics and qrels
        assert offered == [["c"]]
    assert at.main.header or at.main.subheader  # the page drawn below the notice


def test_a_story_of_a_collection_with_nothing_relevant_is_refused_naming_it(tmp_path):
    from leakeval_core import api
    from leakeval_core.api import View, doors
    from leakeval_core.errors import LeakevalError

    root = two_collections(tmp_path)
    assert doors.scored_collections(root, View()) == ["c"]
    with pytest.raises(LeakevalError, match=r"^No story for this pair\. z is left out of every"):
        api.story(root, pair={"collection": "z", "model": "t5"})
