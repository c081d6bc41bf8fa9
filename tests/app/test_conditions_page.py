"""The Condition comparison page in AppTest: its tables, significance, inflation, ranking change and
downloads, against values computed here."""

from __future__ import annotations

import re

import pytest

from tests.app.apptest import metric, open_tab, widget

pytestmark = pytest.mark.demo


def test_conditions_table_matches_the_scores_table(app, demo_scores):
    at = app("app_pages/conditions.py")
    means = at.dataframe[0].value
    first = means.iloc[0]
    table = demo_scores.table
    assert first.collection == "robust04"  # the collection chosen on the first page is kept
    rows = table[
        (table.collection == "robust04")
        & (table.model == first.model)
        & (table.leakage == first.leakage)
        & (table.train_size == first.train_size)
        & (table.measure == "ndcg_cut_10")
    ]
    assert first["mean"] == pytest.approx(rows.value.mean(), abs=1e-12)
    assert first["queries"] == 250


def test_measure_switch_changes_axis(app):
    at = app("app_pages/conditions.py")
    widget(at.sidebar.selectbox, "measure").set_value("first_rel_rank").run()
    assert not at.exception
    assert "lower is better" in at.get("plotly_chart")[0].proto.spec


def test_comparison_significance_follows_sidebar(app, demo_scores):
    from scipy import stats as sps

    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Significance")
    tests = at.dataframe[0].value  # only the open tab runs
    assert len(tests) == 15  # robust04: 3 models x 5 sizes, leakage levels compared
    row = tests[(tests.model == "monot5") & (tests.train_size == 2000)].iloc[0]
    table = demo_scores.table
    part = table[
        (table.collection == "robust04")
        & (table.model == "monot5")
        & (table.train_size == 2000)
        & (table.measure == "ndcg_cut_10")
    ]
    wide = part.pivot_table(index="qid", columns="leakage", values="value")
    p = sps.ttest_rel(wide.leaked, wide.none).pvalue
    assert row.p == pytest.approx(p, rel=1e-10)
    assert row.p_adjusted == pytest.approx(min(1.0, 15 * p), rel=1e-10)
    delta = (wide.leaked - wide.none).to_numpy()

    def t_half(alpha: float) -> float:  # the t interval by hand, at a given level
        return sps.t.ppf(1 - alpha / 2, len(delta) - 1) * delta.std(ddof=1) / len(delta) ** 0.5

    # the interval is tested as the mark is: Bonferroni's 0.05 / 15
    assert (row.ci_low, row.ci_high) == pytest.approx(
        (delta.mean() - t_half(0.05 / 15), delta.mean() + t_half(0.05 / 15)), rel=1e-9
    )
    assert any("at 99.67% confidence" in c.value for c in at.caption)
    at.session_state["settings_statistics"] = True  # open the sidebar's statistics
    at.run()
    widget(at.sidebar.selectbox, "correction").set_value("none").run()
    uncorrected = at.dataframe[0].value
    assert uncorrected.p_adjusted.tolist() == pytest.approx(uncorrected.p.tolist())
    row = uncorrected[(uncorrected.model == "monot5") & (uncorrected.train_size == 2000)].iloc[0]
    assert row.ci_high - row.ci_low == pytest.approx(2 * t_half(0.05), rel=1e-9)
    excludes_zero = (uncorrected.ci_low > 0) | (uncorrected.ci_high < 0)
    assert (excludes_zero == uncorrected.significant).all()


def test_the_app_and_its_report_show_the_same_significance(app):
    """The defect: a comparison starred in the app read "no" in the report."""
    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Significance")
    shown = at.dataframe[0].value
    at = open_tab(at, "conditions_tab", "Audit & downloads")
    next(b for b in at.button if b.label == "Prepare the HTML meeting report").click().run()
    report = at.session_state["report"][1]
    section = report[report.index("<h2>Significance</h2>") :]
    table = section[: section.index("</table>")]
    header = re.findall(r"<th>(.*?)</th>", table)
    rows = [
        dict(zip(header, re.findall(r"<td>(.*?)</td>", r), strict=True))
        for r in re.findall(r"<tr>(.*?)</tr>", table)[1:]
    ]
    reported = {(r["model"], r["train_size"]): r for r in rows if r["collection"] == "robust04"}
    assert len(reported) == len(shown) == 15
    assert shown.significant.any()  # else the comparison below would prove little
    for row in shown.itertuples():
        line = reported[(row.model, str(row.train_size))]
        assert line["significant"] == ("yes" if row.significant else "no")
        assert line["family_size"] == str(row.family_size) == "15"
        p = row.p_adjusted
        assert line["p_adjusted"] == (f"{p:.2e}" if p < 1e-3 else f"{p:.4f}")
        assert (line["ci_low"], line["ci_high"]) == (f"{row.ci_low:.4f}", f"{row.ci_high:.4f}")
    assert "robust04: paired differences in nDCG@10" in report


def test_comparison_inflation_tab(app):
    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Inflation")
    shown = at.table[0].value  # every column as text, wrapped to the page's width
    assert {"Verdict", "Gain, leaked", "Gain, other", "Adjusted p", "mde"} <= set(shown.columns)
    assert "collection" not in shown  # one collection: a column that never varies is left out
    gains = shown["Gain, leaked"].map(float).groupby(shown.train_size.map(int)).mean()
    assert gains.is_monotonic_decreasing


def test_ranking_change_follows_the_collection_and_carries_its_uncertainty(app):
    """The defects: tau over 3 systems shown bare, and for every collection whatever the
    collection selector said."""
    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Ranking change")
    assert set(at.dataframe[0].value.collection) == {"robust04"}
    widget(at.selectbox, "collection").set_value("core18").run()
    taus = at.dataframe[0].value
    assert set(taus.collection) == {"core18"} and len(taus) == 5
    assert {"tau_low", "tau_high", "p_same"} <= set(taus.columns)
    assert ((taus.tau_low <= taus.tau) & (taus.tau <= taus.tau_high)).all()


def test_the_same_level_as_leaked_and_clean_is_a_message_not_a_traceback(app):
    at = app("app_pages/conditions.py")
    open_tab(at, "conditions_tab", "Inflation")
    widget(at.selectbox, "inflation_clean").set_value("leaked").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("the leaked and the clean level are both 'leaked'" in e.value for e in at.error)
    assert at.query_params["inflation_clean"] == "leaked"  # the pickers are in the URL


def test_trec_eval_preset_scores_with_its_conventions(app, demo_experiment, demo_cache):
    """The sidebar's trec_eval 10 preset: docid-descending ties, queries without relevant
    documents averaged in; the means on screen are the core's under Conventions.trec_eval."""
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.evaluation.conventions import Conventions
    from leakeval_core.experiment.scores import score_experiment

    at = app("app_pages/queries.py")
    at.session_state["settings_conventions"] = True  # open the lazy expander
    at.run()
    widget(at.sidebar.radio, "preset").set_value("trec_eval 10").run()
    assert not at.exception, [e.value for e in at.exception]
    caption = next(c.value for c in at.sidebar.caption if "Conventions." in c.value)
    assert "depth 1000" in caption and "docid descending" in caption
    assert "queries with no positive grade: scored 0" in caption
    results = score_experiment(
        demo_experiment, ["ndcg_cut_10"], Conventions.trec_eval(), cache=demo_cache
    )
    table = per_query(results, "ndcg_cut_10").table
    a = table.query(
        "collection == 'robust04' and model == 'colbert' and train_size == 2000 "
        "and leakage == 'leaked'"
    )
    assert metric(at, "Mean nDCG@10, A") == f"{a.value.mean():.4f}"


def test_condensed_lists_score_as_the_core_does_and_the_captions_say_so(
    app, demo_experiment, demo_cache
):
    """The sidebar's condensed switch: the means on screen are the core's under
    `Conventions(condensed=True)`, not the plain ones, and both captions name it."""
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.evaluation.conventions import Conventions
    from leakeval_core.experiment.scores import score_experiment

    at = app("app_pages/queries.py")
    at.session_state["settings_conventions"] = True  # open the lazy expander
    at.run()
    widget(at.sidebar.toggle, "condensed").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["condensed"] == "1"
    captions = [c.value for c in at.sidebar.caption]
    assert any(c.endswith("linear gain, condensed lists") for c in captions)
    assert any("Conventions.** condensed lists (unjudged documents removed)" in c for c in captions)
    means = {}
    for condensed in (True, False):
        results = score_experiment(
            demo_experiment, ["ndcg_cut_10"], Conventions(condensed=condensed), cache=demo_cache
        )
        table = per_query(results, "ndcg_cut_10").table
        a = table.query(
            "collection == 'robust04' and model == 'colbert' and train_size == 2000 "
            "and leakage == 'leaked'"
        )
        means[condensed] = f"{a.value.mean():.4f}"
    assert means[True] != means[False]
    assert metric(at, "Mean nDCG@10, A") == means[True]


def test_the_report_download_stays_after_a_rerun(app):
    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Audit & downloads")
    assert not [d for d in at.get("download_button") if d.proto.label == "Download report.html"]
    next(b for b in at.button if b.label == "Prepare the HTML meeting report").click().run()
    assert not at.exception, [e.value for e in at.exception]

    def report_buttons() -> list:
        return [d for d in at.get("download_button") if d.proto.label == "Download report.html"]

    assert len(report_buttons()) == 1
    at.run()  # what a download (or any other rerun) does: the report is still there
    assert len(report_buttons()) == 1
    widget(at.sidebar.selectbox, "measure").set_value("P_1").run()  # built for other settings
    assert not report_buttons()


def test_the_condition_comparison_has_a_leaderboard_of_all_and_clean_topics(app, demo_experiment):
    """The groups `le.leaderboard` gives at the page's levels, the first leaderboard there."""
    from leakeval_core import api
    from leakeval_core.present.display import best_first

    at = app("app_pages/conditions.py")
    open_tab(at, "conditions_tab", "Leaderboard")
    (board,) = [frame.value for frame in at.dataframe if "Ranks (all → clean)" in frame.value]
    page_levels = {
        ("collection" if b.key.endswith(":collection") else b.key.split(":fix_")[1]): b.value
        for b in at.selectbox
        if b.key and (b.key.endswith(":collection") or ":fix_" in b.key)
    }
    whole = api.leaderboard(demo_experiment).at(page_levels)
    chosen = widget(at.selectbox, "conditions_board").value
    expected = best_first(whole.at(whole.places()[chosen]).table, whole.keys)
    assert board["System"].tolist() == expected.system.tolist()
    assert expected["rank"].is_monotonic_increasing  # best first, as the chart lists them
    groups = [cell.rsplit("(", 1)[1].rstrip(")") for cell in board["Mean (all topics)"]]
    assert groups == expected.group.tolist()
    assert any("Rank intervals" in c.proto.spec for c in at.get("plotly_chart"))


def test_a_collections_declared_level_is_named_in_the_sidebar(
    open_app, demo_dir, demo_cache, tmp_path
):
    """robust04 declares relevance level 2 in experiment.toml: the sidebar says it beside
    the conventions, and the Story's captions too."""
    from tests.support import DECLARED, declared_demo

    out = declared_demo(demo_dir, tmp_path / "data" / "demo")
    at = open_app(out.parent, demo_cache.root)
    assert f"**Collection.** {DECLARED}" in [c.value for c in at.sidebar.caption]
    assert DECLARED in [c.value for c in at.caption]


def test_an_upload_is_scored_under_its_collections_declared_level(
    open_app, demo_dir, demo_cache, tmp_path
):
    """robust04 declares relevance level 2: a run uploaded against it scores P@1 as
    `api.score` does at level 2, as the experiment's own runs are, not at level 1."""
    from leakeval_core import api
    from leakeval_core.evaluation.conventions import Conventions
    from tests.app.apptest import open_tab
    from tests.support import declared_demo

    out = declared_demo(demo_dir, tmp_path / "data" / "demo")
    at = open_tab(
        open_app(out.parent, demo_cache.root, "app_pages/datasets.py"),
        "datasets_tab",
        "Score your own run",
    )
    path = out / "runs" / "robust04" / "colbert" / "leaked" / "2000" / "fold1.run"
    at.file_uploader[0].set_value(("fold1.run", path.read_bytes(), "text/plain")).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = next(d.value for d in at.dataframe if list(d.value.columns) == ["measure", "mean"])
    qrels = out / "collections" / "robust04" / "qrels.txt"
    means = {
        level: api.score(str(qrels), {"r": str(path)}, ["P_1"], Conventions(relevance_level=level))
        .means()
        .loc["r", "P_1"]
        for level in (1, 2)
    }
    assert means[1] != means[2]
    assert shown.set_index("measure")["mean"]["P@1"] == pytest.approx(means[2], abs=1e-12)
