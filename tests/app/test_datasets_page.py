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
    widget(at.selectbox, "collection").set_value("core17").run()
    assert metric(at, "Topics") == "50"
    topics = at.dataframe[0].value
    assert len(topics) == 50 and {"judged", "relevant", "leaked"} <= set(topics.columns)
