"""The Leakage audit page in AppTest: the closer look, the leaderboard and uploads."""

from __future__ import annotations

import pytest

from tests.app.apptest import open_tab, widget

pytestmark = pytest.mark.demo


def test_the_audit_looks_closer_at_one_model_of_the_twins(app, demo_experiment, demo_cache):
    """With twins the audited factor has one level (leaked): the closer look names a whole
    condition (model and training size) and draws that one's bins, not every model's."""
    import json

    from leakeval_core import api

    design, experiment = demo_experiment.design, demo_experiment
    first_collection = next(iter(experiment.collections))  # the page opens on it
    at = app("app_pages/audit.py")
    assert not [b for b in at.selectbox if b.key and b.key.endswith(":audit_model")]  # lazy
    open_tab(at, "audit_tab", "Closer look")
    look = widget(at.selectbox, "audit_model")
    assert look.options[0].startswith(f"{design.system}=")
    assert f"{design.size}=" in look.options[0]
    chosen = look.options[1]
    look.set_value(chosen).run()
    assert not at.exception, [e.value for e in at.exception]
    charts = {
        json.loads(c.proto.spec)["layout"]["title"]["text"]: json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
    }
    # each bin's topic count is in its axis label, under the similarities
    labels = charts["Gain by how close the nearest training query is"]["data"][0]["x"]
    bins = [label.split("<br>")[1] for label in labels]
    everywhere = api.audit(demo_experiment)
    conditions = len(experiment.collections) * len(experiment.levels(design.system))
    conditions *= len(experiment.levels(design.size))
    assert len(everywhere.looks()) == len(everywhere.closer) == conditions  # named apart
    result = everywhere.at({"collection": first_collection})
    one = result.at(result.looks()[chosen])
    expected = one.dose
    assert bins == [f"{n} topics" for n in expected.topics]
    row = one.table[one.table.split == "leaked"].iloc[0]
    assert expected.topics.sum() == row.leaked_topics + row.other_topics  # each in one bin


def test_the_audit_leaderboard_is_its_own_tab(app, demo_experiment):
    """With the HSD groups and rank intervals of `Audit.board`, one leaderboard at a time
    (the first training size here), its chart's letters the table's."""
    import json

    from leakeval_core import api
    from leakeval_core.present.display import best_first, fixed, rank_interval

    clean = "Mean (clean topics)"  # the screen's header; the downloads keep clean_mean
    at = app("app_pages/audit.py")
    assert all(clean not in frame.value for frame in at.dataframe)  # lazy
    open_tab(at, "audit_tab", "Leaderboard")
    (board,) = [frame.value for frame in at.dataframe if clean in frame.value]
    first_collection = next(iter(demo_experiment.collections))  # the page opens on it
    whole = api.audit(demo_experiment).at({"collection": first_collection}).board
    chosen = widget(at.selectbox, "audit_board").value
    expected = best_first(whole.at(whole.places()[chosen]).table, whole.keys)  # as its chart
    assert chosen == next(iter(whole.places()))
    assert board["Mean (all topics)"].tolist() == [
        f"{fixed(v)} ({g})" for v, g in zip(expected["mean"], expected.group, strict=True)
    ]
    assert board[clean].tolist() == [
        f"{fixed(v)} ({g})" for v, g in zip(expected.clean_mean, expected.clean_group, strict=True)
    ]
    assert board["Ranks (all → clean)"].tolist() == [
        f"{rank_interval(a, b)} → {rank_interval(c, d)}"
        for a, b, c, d in zip(
            expected.rank_low,
            expected.rank_high,
            expected.clean_rank_low,
            expected.clean_rank_high,
            strict=True,
        )
    ]
    assert not [c for c in board.columns if c.startswith(("clean_", "ci_", "rank_"))]
    assert any("Kendall's τ" in c.value for c in at.caption)
    assert any("Tukey HSD" in c.value for c in at.caption)
    (chart,) = [
        json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if "Rank intervals" in json.loads(c.proto.spec)["layout"]["title"]["text"]
    ]
    letters = {  # the dots' text: each set's group per system
        trace["legendgroup"]: dict(
            zip([d[0] for d in trace["customdata"]], trace["text"], strict=True)
        )
        for trace in chart["data"]
        if trace.get("mode") == "markers+text"
    }
    assert letters["all"] == dict(zip(expected.system, expected.group, strict=True))
    assert letters["clean"] == dict(zip(expected.system, expected.clean_group, strict=True))
    assert "1 = best" in chart["layout"]["xaxis"]["title"]["text"]


def test_uploaded_runs_are_audited_against_a_condition(app, demo_dir, monkeypatch):
    """Kept with the uploads in the session: a rerun audits nothing again."""
    from leakeval_app import views

    at = app("app_pages/audit.py")
    open_tab(at, "audit_tab", "Audit uploaded runs")
    collection = widget(at.selectbox, "collection").value
    run = next((demo_dir / "runs" / collection).rglob("*.run")).read_bytes()
    at.file_uploader[0].set_value(("mine.run", run, "text/plain")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.get("plotly_chart") and not at.main.error
    shown = at.table[-1].value  # the experiment's models' table: the verdict up front
    assert list(shown.columns[:2]) == ["system", "Verdict"], list(shown.columns)
    assert shown.system.tolist() == ["mine.run"]
    audits = []
    audit = views._audit_upload
    monkeypatch.setattr(views, "_audit_upload", lambda *a: audits.append(1) or audit(*a))
    at.run()
    assert not at.exception and audits == []


def test_strata_are_offered_with_a_test_declared_to_keep_them(app):
    at = app("app_pages/audit.py")
    assert not [b for b in at.selectbox if b.key and b.key.endswith(":audit_strata")]
    assert any(
        "Test: Welch's t-test over topics" in c.value and "choose randomization test" in c.value
        for c in at.caption
    )
    at.session_state["settings_statistics"] = True  # open the sidebar's statistics
    at.run()
    widget(at.sidebar.selectbox, "test").set_value("randomization").run()
    assert (
        widget(at.selectbox, "audit_strata").options[1] == "within 4 strata of the baseline's score"
    )
