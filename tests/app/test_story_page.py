"""The Story page in AppTest: its headline's numbers, its pair, and where it sends the user."""

from __future__ import annotations

import pandas as pd
import pytest

from leakeval_core.evaluation.direction import Direction
from tests.app.apptest import detected, story_pair, widget
from tests.support import DAMAGED, INCOMPLETE, damaged_demo

pytestmark = pytest.mark.demo


def test_story_tells_the_numbers_the_inflation_tab_the_report_and_the_cli_show(
    app, demo_experiment, demo_scores, demo_cache
):
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.analysis.inflation import inflation
    from leakeval_core.leakage.table import leaked_qids

    at = app()  # the story is the landing page
    pair = story_pair(at)
    assert set(pair) == {"collection", "model", "train_size"}
    evidence = at.markdown[1].value
    cards = {m.label: m.value for m in at.metric}
    # the core function the report and `leakeval inflation` call, on every pair of conditions
    leakage = detected(demo_experiment, demo_cache)
    flags = leaked_qids(leakage, leakage.threshold)
    whole = inflation(
        per_query(demo_scores, "ndcg_cut_10"), flags, demo_experiment.design, Direction("higher")
    )
    summary = whole.table
    row = summary[(summary[list(pair)] == pd.Series(pair)).all(axis=1)].iloc[0]
    assert row.difference == summary.difference.max()  # the clearest case first
    assert cards[f"Gain on {row.leaked_topics} leaked topics"] == f"{row.gain_leaked:+.2f}"
    assert f"adjusted {row.p_adjusted:.2g} by Bonferroni over the 15 pairs" in evidence
    assert f"Verdict: {row.verdict}." in evidence and at.markdown[0].value.startswith("**Leaked")
    # the Inflation tab at the same levels shows the same adjusted p
    at.button[1].click().run()  # "All pairs, with their tests"
    assert not at.exception and at.header[0].value == "Condition comparison"
    tab = at.table[0].value
    shown = tab[(tab.train_size == str(pair["train_size"])) & (tab.model == pair["model"])]
    assert shown["Adjusted p"].iloc[0] == f"{row.p_adjusted:.2g}"
    assert shown.Verdict.iloc[0] == row.verdict
    assert len(tab) == row.family_size == 15


def test_story_pair_changes_and_opens_the_drilldown_on_it(app):
    at = app()
    widget(at.selectbox, "story_train_size").set_value(32000).run()
    assert not at.exception
    assert "train_size 32000" in at.header[0].value
    pair = story_pair(at)
    at.button[0].click().run()  # "Every topic's gain: drill-down"
    assert not at.exception and at.header[0].value == "Per-query drill-down"
    values = {s.key.split(":")[-1]: s.value for s in at.selectbox if s.key}
    assert values["a_leakage"] == "leaked" and values["b_leakage"] == "none"
    for factor in ("model", "train_size"):
        assert values[f"a_{factor}"] == values[f"b_{factor}"] == pair[factor]
    assert values["collection"] == pair["collection"]


def test_which_topics_leaked_opens_on_the_storys_collection(app):
    """The defect: from a Core17 story the leakage page listed every collection's pairs,
    Robust04's first."""
    at = app()
    widget(at.selectbox, "collection").set_value("core17").run()
    next(b for b in at.button if "Which topics leaked" in b.label).click().run()
    assert not at.exception and at.header[0].value == "Leakage overlap"
    assert at.multiselect[0].value == ["core17"]
    assert set(at.dataframe[0].value.collection) == {"core17"}


@pytest.mark.parametrize("how", ["deleted", "malformed"])
def test_an_incomplete_pair_is_said_so_instead_of_a_headline(
    how, open_app, demo_dir, demo_cache, tmp_path
):
    """The user study's defect: with one fold of colbert's leaked robust04 condition at 2000
    deleted, the Story read "worsens nDCG@10 from 0.601 to 0.573"; with a malformed fold it
    showed the error, then a story built without the file."""
    folder = damaged_demo(demo_dir, tmp_path / "data" / "demo", how)
    at = open_app(folder.parent, demo_cache.root)
    damaged = DAMAGED.format(1 if how == "deleted" else 2)
    said = " ".join(e.value for e in at.error)
    assert damaged in said and "left out of every figure" in said  # above every page
    assert story_pair(at) != {"collection": "robust04", "model": "colbert", "train_size": 2000}
    for name, level in INCOMPLETE.items():
        widget(at.selectbox, name if name == "collection" else f"story_{name}").set_value(level)
    at.run()
    assert not at.exception
    assert [h.value for h in at.header] == ["Story"]  # no headline
    (warning,) = [w.value for w in at.warning if "No story for this pair" in w.value]
    assert damaged in warning and ("incomplete" if how == "deleted" else "broken") in warning
    # computed anyway, at the reader's word: a headline, and how many queries it lacks
    widget(at.toggle, "allow_incomplete").set_value(True).run()
    assert not at.exception
    assert at.header[0].value.startswith("Leaked training")
    assert "on robust04 (model colbert, train_size 2000)" in at.header[0].value
    assert any("lacks 50 of its 250 queries" in w.value for w in at.warning)


@pytest.mark.parametrize("measure", ["ndcg_cut_10", "P_1", "recip_rank", "first_rel_rank"])
def test_the_story_opens_on_the_largest_oriented_difference_with_its_verdict(
    app, demo_dir, demo_cache, measure
):
    """The study's three measures and RR, MFR (lower is better) among them: the Story opens
    on the pair whose leaked topics gain most over the others in the better direction, and
    says that row's verdict, in words and figures of one direction."""
    from leakeval_core import api
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.present.story import amount

    at = app()
    widget(at.sidebar.selectbox, "measure").set_value(measure).run()
    assert not at.exception, [e.value for e in at.exception]
    study = api.Study.open(demo_dir, demo_cache)
    table = api.inflation(study, measure=measure).table
    row = table.sort_values("difference", ascending=False, kind="stable").iloc[0]
    pair = story_pair(at)
    assert pair == {f: row[f] for f in ("collection", "model", "train_size")}
    told = api.story(study, measure=measure)
    assert at.header[0].value == told.headline
    assert at.markdown[0].value == f"**{told.answer}**"
    assert f"Verdict: {row.verdict}." in at.markdown[1].value
    cards = {m.label: m.value for m in at.metric}
    assert cards["Leaked minus other"] == amount(row.difference, parse_measure(measure))
    if measure == "first_rel_rank":  # the case: robust04 / colbert / 2000, inflated
        assert pair == {"collection": "robust04", "model": "colbert", "train_size": 2000}
        assert row.verdict == "inflated" and "(lower is better)" in told.headline
        assert cards["Leaked minus other"].endswith(" better")


@pytest.mark.parametrize("experiment", ["demo_dir", "audit_dir"])
def test_the_first_page_and_its_numbers_import_neither_scipy_stats_nor_statsmodels(
    experiment, request, tmp_path
):
    """A cold start waits for what the Story imports: scipy.stats and statsmodels'
    multiple-testing module cost more than everything else beyond Streamlit and pandas, so
    the Story's path (the modules the server imports ahead, and the Story's computation)
    needs neither (`analysis.distributions`, `corrections.correct`), for twins and for an
    audit of models against a baseline."""
    folder = request.getfixturevalue(experiment)
    import os
    import subprocess
    import sys

    code = (
        "import importlib, sys; from leakeval_app import serve; "
        "[importlib.import_module(name) for name in serve.AHEAD]; "
        "from leakeval_core import api; "
        f"story = api.story({str(folder)!r}); assert story.headline; "
        "print(sorted(m for m in ('scipy.stats', 'statsmodels') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "LEAKEVAL_CACHE": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
