"""The Dataset browser page in AppTest: its counts against the experiment's files."""

from __future__ import annotations

import pytest

from tests.app.apptest import detected, metric, widget

pytestmark = pytest.mark.demo


def test_dataset_browser_counts(app, demo_experiment, demo_cache):
    at = app("app_pages/datasets.py")
    assert metric(at, "Topics") == "250"
    assert metric(at, "Judged topics") == "250"
    leakage = detected(demo_experiment, demo_cache)
    pairs = leakage.table
    flagged = pairs[(pairs.collection == "robust04") & (pairs.similarity >= leakage.threshold)]
    n = flagged.test_qid.nunique()
    assert metric(at, "Topics with a near-duplicate") == f"{n} ({n / 250:.0%})"
    assert not [w.value for w in at.warning if w.value.startswith("leakeval: warning: ")]
    widget(at.selectbox, "collection").set_value("core17").run()
    assert metric(at, "Topics") == "50"
    topics = at.dataframe[0].value
    assert len(topics) == 50 and {"judged", "relevant", "leaked"} <= set(topics.columns)


def test_runs_the_qrels_hardly_judge_are_said_above_the_page_and_beside_an_upload(
    open_app, tmp_path
):
    """The experiment's run in another id space: its sentence above every page, as the
    command line says it. A run uploaded in the Dataset browser: its own, named after the
    upload, right where its scores are shown."""
    from leakeval_app.render import plain
    from tests.app.apptest import open_tab
    from tests.support import MISMATCHED, mismatched_experiment

    root = mismatched_experiment(tmp_path / "data" / "mismatched")
    at = open_app(root.parent, tmp_path / "cache", "app_pages/datasets.py")
    said = [w.value for w in at.warning if w.value.startswith("leakeval: warning: ")]
    assert said == [f"leakeval: warning: {plain(MISMATCHED)}"]
    open_tab(at, "datasets_tab", "Score your own run")
    upload = (root / "runs" / "mine.run").read_bytes()
    at.file_uploader[0].set_value(("student.txt", upload, "text/plain")).run()
    assert not at.exception, [e.value for e in at.exception]
    own = MISMATCHED.replace("runs/mine.run", "student.txt")
    said = [w.value for w in at.warning if w.value.startswith("leakeval: warning: ")]
    assert said == [
        f"leakeval: warning: {plain(MISMATCHED)}",
        f"leakeval: warning: {plain(own)}",
        f"leakeval: warning: {plain('student.txt: P_1 is 0 on all 12 queries.')}",
    ]


def test_judged_at_10_stands_beside_the_measure_in_the_runs_tab(app, demo_experiment):
    """Each condition's judged@10 beside its mean of the sidebar's measure: both the core's
    condition means, so a lower bound is read next to the score it bounds."""
    from leakeval_core import api
    from leakeval_core.api.comparison import condition_means
    from tests.app.apptest import open_tab

    at = open_tab(app("app_pages/datasets.py"), "datasets_tab", "Runs: judged@10")
    assert not at.exception, [e.value for e in at.exception]
    table = next(d.value for d in at.dataframe if "judged@10" in d.value.columns)
    assert list(table.columns[-4:]) == ["queries", "judged@10", "nDCG@10", "pooling"]
    study = api.Study.open(demo_experiment.root)
    factors = ["model", "leakage", "train_size"]
    for measure, column in (("judged_10", "judged@10"), ("ndcg_cut_10", "nDCG@10")):
        means = condition_means(
            study, api.View(measure=measure), factors, {"collection": "robust04"}
        )
        shown = table.merge(means, on=factors)
        assert len(shown) == len(table) == 30
        assert (shown[column] == shown["mean"]).all()
