"""The Leakage overlap page in AppTest: thresholds, filters, detection quality and its way to the
drill-down."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest import detected, metric, open_tab, widget
from tests.support import ROOT

pytestmark = pytest.mark.demo


def test_a_named_method_not_installed_here_is_said(app, demo_dir, monkeypatch):
    """An experiment that names a method this machine lacks is read with the best installed
    one, and the leakage page says so: its flags may differ from the named method's."""
    from leakeval_core.api import terms
    from leakeval_core.leakage import detection_options as options

    installed = lambda: ("lexical", "semantic", "hybrid")  # noqa: E731
    monkeypatch.setattr(options, "available_methods", installed)
    monkeypatch.setattr(terms, "available_methods", installed)
    manifest = demo_dir / "experiment.toml"
    pinned = manifest.read_text(encoding="utf-8")
    try:
        manifest.write_text(pinned.replace('method = "hybrid"', 'method = "hybrid-mpnet"'))
        at = app("app_pages/leakage.py")
    finally:
        manifest.write_text(pinned)
    assert widget(at.selectbox, "method").value == "hybrid"
    assert any("names the method `hybrid-mpnet`" in w.value for w in at.warning)
    # the edited manifest is read again (the app once served it stale from its cache)
    assert not any("names the method" in w.value for w in app("app_pages/leakage.py").warning)


def test_leakage_threshold_refilters(app, demo_experiment, demo_cache):
    leakage = detected(demo_experiment, demo_cache)
    pairs = leakage.table
    at = app("app_pages/leakage.py")
    shown = (pairs.similarity >= leakage.threshold).sum()
    assert any(f"{shown:,} pairs shown" in c.value for c in at.caption)
    at.slider[0].set_value(0.9).run()
    assert any(f"{(pairs.similarity >= 0.9).sum():,} pairs shown" in c.value for c in at.caption)
    at.multiselect[1].set_value(["identical"]).run()
    expected = ((pairs.category == "identical") & (pairs.similarity >= 0.9)).sum()
    assert any(f"{expected:,} pairs shown" in c.value for c in at.caption)
    assert metric(at, "Precision vs ground truth") != ""


def test_drilldown_opened_from_leakage_page(app):
    at = app("app_pages/leakage.py")
    at.button[0].click().run()
    assert not at.exception
    assert at.header[0].value == "Per-query drill-down"


def test_open_in_drilldown_offers_the_filtered_topics_with_titles(app):
    """The defect: the picker ignored the table's filters and showed bare ids."""
    at = app("app_pages/leakage.py")
    at.multiselect[0].set_value(["robust04"]).run()  # the Collection filter
    at.text_input[0].set_value("wage").run()
    shown = at.dataframe[0].value
    expected = sorted(set(zip(shown.collection, shown.test_qid, strict=True)))
    picker = next(s for s in at.selectbox if s.label == "Topic")
    assert len(picker.options) == len(expected) > 0
    # the titles, read from the demo's source topic file (real Robust04 topics)
    source = (ROOT / "leakeval_core/demo/source/robust04-topics.txt").read_text()
    titles = dict(re.findall(r"<num> Number: (\d+)\s*<title>\s*(.*?)\s*\n", source))
    assert picker.options == [f"{c} · {q} · {titles[q]}" for c, q in expected]
    at.button[0].click().run()
    assert at.header[0].value == "Per-query drill-down"
    assert widget(at.selectbox, "qid").value == expected[0][1]


def test_detection_quality_tab_against_an_independent_auc(app, demo_experiment):
    """The demo ships labels of its planted pairs: the tab's ROC AUC equals the Mann-Whitney
    statistic computed here from the same labelled similarities, and its confusion matrix
    accounts for every labelled pair."""
    from scipy.stats import rankdata

    from leakeval_core.leakage.detection_options import is_hybrid, method_for
    from leakeval_core.leakage.detection_quality import evaluate_detection
    from leakeval_core.leakage.labels import read_labels

    at = app("app_pages/leakage.py")
    open_tab(at, "leakage_tab", "Detection quality")
    method = method_for(demo_experiment.detection_method)
    quality = evaluate_detection(read_labels(demo_experiment.labels), method)
    y, s = quality.scored.near_duplicate.to_numpy(), quality.scored.similarity.to_numpy()
    ranks = rankdata(s)
    positives, negatives = int(y.sum()), int((y == 0).sum())
    auc = (ranks[y == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives)
    assert metric(at, "ROC AUC") == f"{auc:.3f}"
    confusion = at.dataframe[0].value
    assert int(confusion.drop(columns="verdict").to_numpy().sum()) == len(y)
    # the demo's labels are development pairs the shipped hybrid saw: the tab says so
    warned = [w.value for w in at.warning if "in-sample" in w.value]
    if is_hybrid(method):
        assert len(warned) == 1 and warned[0].startswith("361 of these 361 labelled pairs")
    else:
        assert not warned


def test_a_log_too_large_to_detect_here_asks_for_dask_and_takes_the_table(tmp_path, monkeypatch):
    """The app does not detect in a log past APP_DETECTION_LIMIT; it names the command, and
    the table that command writes is then the experiment's [leakage] table."""
    import shlex

    from leakeval_core.api import terms
    from leakeval_core.cli import main

    experiment = tmp_path / "data" / "big"
    (experiment / "runs").mkdir(parents=True)
    (experiment / "t.txt").write_text("1\tsolar panels\n2\twind farms\n")
    (experiment / "q.txt").write_text("1 0 a 1\n2 0 c 1\n")
    for shard in range(3):
        lines = "".join(f"{shard}-{i}\tquery number {i} of shard {shard}\n" for i in range(5))
        (experiment / "log").mkdir(exist_ok=True)
        (experiment / "log" / f"part-{shard}.tsv").write_text(lines)
    (experiment / "log" / "part-1.tsv").write_text("9\tsolar panels\n" * 5)
    (experiment / "runs" / "bm25.run").write_text("1 Q0 a 1 2 x\n2 Q0 c 1 1 x\n")
    manifest = experiment / "experiment.toml"
    manifest.write_text(
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[training_queries]\npath = "log"\n[runs]\npattern = "runs/{model}.run"\n'
    )
    monkeypatch.setattr(terms, "APP_DETECTION_LIMIT", 10)
    monkeypatch.setenv("LEAKEVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    (message,) = [e.value for e in at.error if "holds more than 10 queries" in e.value]
    command = message.split("`")[1]
    assert command.startswith("leakeval leakage --experiment data/big") and "--dask" in command
    assert str(tmp_path) not in message  # its paths are written from the served folder
    monkeypatch.chdir(tmp_path)  # beside the served folder, where its paths start
    assert main(shlex.split(command)[1:]) == 0  # the command as the message gives it
    monkeypatch.chdir(ROOT)
    with manifest.open("a") as fh:
        fh.write('[leakage]\ntable = "pairs.csv"\n')
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.switch_page("app_pages/leakage.py").run()
    assert not at.exception and not at.error
    captions = [c.value for c in at.caption]
    assert "Pairs of test topic and training query from: **pairs.csv**." in captions
    assert any(
        c.startswith("1 pair shown;") for c in captions
    )  # "solar panels" in shard 1, found on Dask
