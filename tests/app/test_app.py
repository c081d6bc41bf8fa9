"""AppTest: every page's logic, driven through its widgets, against values computed here."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT

PAGES = [
    "app_pages/story.py",
    "app_pages/datasets.py",
    "app_pages/leakage.py",
    "app_pages/queries.py",
    "app_pages/conditions.py",
    "app_pages/audit.py",
]


@pytest.fixture
def app(demo_dir, demo_cache, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_DATA", str(demo_dir.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    monkeypatch.chdir(ROOT)

    def open_page(page: str | None = None) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return open_page


def key_of(name: str, page: str) -> str:
    """The widget key a page gives a view value (`leakeval_app.state.widget_key`)."""
    return f"w:{page}:{name}"


def widget(elements, name: str):
    """The widget of view value `name` among `elements`, whichever page drew it."""
    return next(
        e for e in elements if e.key and e.key.startswith("w:") and e.key.endswith(f":{name}")
    )


def open_tab(at: AppTest, name: str, label: str) -> AppTest:
    """Click a tab: only the open tab's content runs (lazy tabs)."""
    at.session_state[key_of(name, name.removesuffix("_tab"))] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_without_error(app, page):
    at = app(page)
    assert not at.error
    assert at.header[0].value
    assert any("Simulated data" in w.value for w in at.sidebar.warning)
    assert any("Conventions" in c.value for c in at.sidebar.caption)


def detected(experiment, cache):
    """The LEAKAGE table the app shows: the experiment's method (conftest pins one), its own
    threshold."""
    from leakeval_core.leakage.table import load_leakage

    return load_leakage(experiment, cache)


def test_a_named_method_not_installed_here_is_said(app, demo_dir, monkeypatch):
    """An experiment that names a method this machine lacks is read with the best installed
    one, and the leakage page says so: its flags may differ from the named method's."""
    from leakeval_core.api import terms
    from leakeval_core.leakage import options

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
    assert not any(
        "names the method" in w.value for w in app("app_pages/leakage.py").warning
    )


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


def test_drilldown_means_match_the_scores_table(app, demo_scores, demo_experiment, demo_cache):
    at = app("app_pages/queries.py")
    table = demo_scores.table
    condition = table[
        (table.collection == "robust04")
        & (table.model == "colbert")
        & (table.train_size == 2000)
        & (table.measure == "ndcg_cut_10")
    ]
    mean_a = condition[condition.leakage == "leaked"].value.mean()
    mean_b = condition[condition.leakage == "none"].value.mean()
    assert metric(at, "Mean nDCG@10, A") == f"{mean_a:.4f}"
    assert metric(at, "Mean nDCG@10, B") == f"{mean_b:.4f}"
    assert metric(at, "Mean A − B, all") == f"{mean_a - mean_b:.4f}"
    from leakeval_core.leakage.table import leaked_qids

    flags = set(
        leaked_qids(
            detected(demo_experiment, demo_cache), detected(demo_experiment, demo_cache).threshold
        )
        .query("collection == 'robust04'")
        .qid
    )
    wide = condition.pivot_table(index="qid", columns="leakage", values="value")
    delta = wide.leaked - wide.none
    on = delta[delta.index.isin(flags)]
    off = delta[~delta.index.isin(flags)]
    assert metric(at, f"A − B, {len(on)} leaked") == f"{on.mean():.4f}"
    assert metric(at, f"A − B, {len(off)} other") == f"{off.mean():.4f}"
    widget(at.selectbox, "b_model").set_value("monot5").run()
    other = condition[condition.leakage == "none"]  # still colbert: B changed model only
    assert metric(at, "Mean nDCG@10, B") != f"{other.value.mean():.4f}"


def test_drilldown_all_measures_tab_matches_the_scores_table(app, demo_scores):
    at = open_tab(app("app_pages/queries.py"), "queries_tab", "All measures per query")
    table = demo_scores.table
    condition = table[
        (table.collection == "robust04") & (table.model == "colbert") & (table.train_size == 2000)
    ]
    p1 = condition[condition.measure == "P_1"].pivot_table(
        index="qid", columns="leakage", values="value"
    )
    assert any(f"on the {len(p1.dropna())} queries of robust04" in c.value for c in at.caption)
    shown = at.dataframe[0].value.set_index("qid")
    assert shown["P@1 A"].to_dict() == pytest.approx(p1.leaked.to_dict())
    assert shown["P@1 B"].to_dict() == pytest.approx(p1.none.to_dict())


def test_drilldown_audit_opens_and_recomputes_a_and_b(app):
    at = app("app_pages/queries.py")
    assert "audit_queries" not in [b.key for b in at.button]  # closed: not drawn
    at.session_state["queries_audit"] = True  # open the lazy expander
    at.run()
    at.button(key="audit_queries").click().run()
    assert not at.exception, [e.value for e in at.exception]
    audit = at.dataframe[-1].value
    assert len(audit) == 2 * 4  # A and B, four alternative conventions each
    current = audit[audit.leakage == "leaked"]["mean (current)"]
    assert f"{current.iloc[0]:.4f}" == metric(at, "Mean nDCG@10, A")


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
        "paired t-test between conditions, Welch's t-test over topics for leaked minus other, "
        "Bonferroni, α = 0.01"
    ) in captions
    assert "relevant: grade ≥ 2" in at.sidebar.caption[-1].value

    at.session_state["settings_statistics"] = True
    at.run()
    widget(at.sidebar.selectbox, "correction").set_value("holm").run()
    at.session_state["settings_statistics"] = False
    at.run()
    assert len(at.sidebar.selectbox) == 2  # experiment and measure only
    assert (
        "paired t-test between conditions, Welch's t-test over topics for leaked minus other, "
        "Holm, α = 0.01"
    ) in [c.value for c in at.sidebar.caption]
    assert at.query_params["correction"] == "holm"


def test_comparison_inflation_tab(app):
    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Inflation")
    summary = at.dataframe[0].value
    assert {"gain_leaked", "gain_other", "p_adjusted", "mde", "verdict"} <= set(summary.columns)
    assert summary.groupby("train_size").gain_leaked.mean().is_monotonic_decreasing


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
        assert any("broken.run:2: score 'oops' is not a number" in e for e in errors)
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)


@pytest.mark.parametrize("value", ["../../etc", "/etc", "demo/../..", "nope"])
def test_url_cannot_open_an_experiment_outside_the_data_root(app, value):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["experiment"] = value
    at.run()
    assert not at.exception
    assert widget(at.sidebar.selectbox, "experiment").value == "demo"


def test_upload_size_limit(monkeypatch, demo_experiment):
    from leakeval_app import views
    from leakeval_app.context import AppContext
    from leakeval_core.api import Study, View
    from leakeval_core.errors import LeakevalError

    monkeypatch.setenv("LEAKEVAL_MAX_UPLOAD_MB", "0.001")
    study = Study(demo_experiment)
    context = AppContext(study, (str(demo_experiment.root), "size-limit-test"), View())
    with pytest.raises(LeakevalError, match="over the upload limit of 0 MB"):
        views.score_upload(context, "core17", "big.run", b"307 Q0 d 1 1.0 x\n" * 200)


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
        assert any(expected in e.value for e in at.error), (page, [e.value for e in at.error])


def test_figure_digest_sees_every_value():
    """Figures are cached by a digest of their inputs: one changed value must miss."""
    import pandas as pd

    from leakeval_app.render import _digest

    frame = pd.DataFrame({"qid": ["1", "2"], "value": [0.5, 0.25]})
    same = _digest((frame.copy(), 0.8), {})
    assert _digest((frame, 0.8), {}) == same
    assert _digest((frame.assign(value=[0.5, 0.2500001]), 0.8), {}) != same
    assert _digest((frame, 0.81), {}) != same
    assert _digest((frame.rename(columns={"value": "v"}), 0.8), {}) != same


def test_one_query_tab_ranks_condition_a_like_the_run_file(app, demo_dir):
    """The ranked list against an independent sort of the run file (score ↓, docid ↑)."""
    from leakeval_core.experiment.manifest import load_experiment
    from leakeval_core.io.trec import read_qrels, read_run

    at = open_tab(app("app_pages/queries.py"), "queries_tab", "One query")
    qid = widget(at.selectbox, "qid").value
    lists = [d.value for d in at.dataframe if "moved" in d.value.columns]
    assert len(lists) == 2
    experiment = load_experiment(demo_dir)
    levels = {
        f: widget(at.selectbox, "collection" if f == "collection" else f"a_{f}").value
        for f in experiment.condition_factors
    }
    conditions = experiment.conditions
    for factor, level in levels.items():
        conditions = conditions[conditions[factor] == level]
    run = next(r for r in map(read_run, conditions.path) if (r.qid == qid).any())
    expected = run[run.qid == qid].sort_values(["score", "docid"], ascending=[False, True])
    assert lists[0].docid.tolist() == expected.docid.head(20).tolist()
    qrels = read_qrels(experiment.collections[levels["collection"]].qrels)
    grades = dict(zip(qrels[qrels.qid == qid].docid, qrels[qrels.qid == qid].grade, strict=True))
    shown = [str(grades[d]) if d in grades else "unjudged" for d in lists[0].docid]
    assert lists[0].grade.tolist() == shown


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
    the app must not generate through it, delete what it points to, or crash."""
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
    assert any("a symlink is in the way" in e.value for e in at.error)
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
    assert "without a relevant document: scored 0" in caption
    results = score_experiment(
        demo_experiment, ["ndcg_cut_10"], Conventions.trec_eval(), cache=demo_cache
    )
    table = per_query(results, "ndcg_cut_10").table
    a = table.query(
        "collection == 'robust04' and model == 'colbert' and train_size == 2000 "
        "and leakage == 'leaked'"
    )
    assert metric(at, "Mean nDCG@10, A") == f"{a.value.mean():.4f}"


def test_detection_quality_tab_against_an_independent_auc(app, demo_experiment):
    """The demo ships labels of its planted pairs: the tab's ROC AUC equals the Mann-Whitney
    statistic computed here from the same labelled similarities, and its confusion matrix
    accounts for every labelled pair."""
    from scipy.stats import rankdata

    from leakeval_core.leakage.evaluate import evaluate_detection
    from leakeval_core.leakage.labels import read_labels
    from leakeval_core.leakage.options import is_hybrid, method_for

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
    assert command.startswith("leakeval leakage --experiment") and "--dask" in command
    assert main(shlex.split(command)[1:]) == 0  # the command as the message gives it
    with manifest.open("a") as fh:
        fh.write('[leakage]\ntable = "pairs.csv"\n')
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.switch_page("app_pages/leakage.py").run()
    assert not at.exception and not at.error
    captions = [c.value for c in at.caption]
    assert "Pairs of test topic and training query from: **pairs.csv**." in captions
    assert "1 pair shown." in captions  # "solar panels" in shard 1, found on Dask


def _story_pair(at: AppTest) -> dict:
    return {
        s.label: s.value
        for s in at.selectbox
        if s.key and (":story_" in s.key or s.key == "w:story:collection")
    }


def test_story_tells_the_numbers_the_inflation_tab_the_report_and_the_cli_show(
    app, demo_experiment, demo_scores, demo_cache
):
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.analysis.inflation import inflation
    from leakeval_core.leakage.table import leaked_qids

    at = app()  # the story is the landing page
    pair = _story_pair(at)
    assert set(pair) == {"collection", "model", "train_size"}
    evidence = at.markdown[1].value
    cards = {m.label: m.value for m in at.metric}
    # the core function the report and `leakeval inflation` call, on every pair of conditions
    leakage = detected(demo_experiment, demo_cache)
    flags = leaked_qids(leakage, leakage.threshold)
    whole = inflation(per_query(demo_scores, "ndcg_cut_10"), flags, demo_experiment.design)
    summary = whole.table
    row = summary[(summary[list(pair)] == pd.Series(pair)).all(axis=1)].iloc[0]
    assert row.difference == summary.difference.max()  # the clearest case first
    assert cards[f"Gain on {row.leaked_topics} leaked topics"] == f"{row.gain_leaked:+.2f}"
    assert f"adjusted {row.p_adjusted:.2g} by Bonferroni over the 15 pairs" in evidence
    assert f"Verdict: {row.verdict}." in evidence and at.markdown[0].value.startswith("**Leaked")
    # the Inflation tab at the same levels shows the same adjusted p
    at.button[1].click().run()  # "All pairs, with their tests"
    assert not at.exception and at.header[0].value == "Condition comparison"
    tab = at.dataframe[0].value
    shown = tab[tab.train_size == pair["train_size"]].iloc[0]
    assert shown.p_adjusted == pytest.approx(row.p_adjusted)
    assert shown.verdict == row.verdict
    assert shown.family_size == 15


def test_story_pair_changes_and_opens_the_drilldown_on_it(app):
    at = app()
    widget(at.selectbox, "story_train_size").set_value(32000).run()
    assert not at.exception
    assert "train_size 32000" in at.header[0].value
    pair = _story_pair(at)
    at.button[0].click().run()  # "Every topic's gain: drill-down"
    assert not at.exception and at.header[0].value == "Per-query drill-down"
    values = {s.key.split(":")[-1]: s.value for s in at.selectbox if s.key}
    assert values["a_leakage"] == "leaked" and values["b_leakage"] == "none"
    for factor in ("model", "train_size"):
        assert values[f"a_{factor}"] == values[f"b_{factor}"] == pair[factor]
    assert values["collection"] == pair["collection"]


def test_presentation_mode_hides_the_controls(app):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception
    assert at.header[0].value.startswith("Leaked training")
    assert not _story_pair(at)  # the pair comes from the URL or the default
    assert not at.selectbox and not at.toggle and not at.button  # no control is drawn
    assert at.session_state[key_of("present", "story")] is True


def test_one_query_view_shows_a_b_and_its_course_along_the_size(app, demo_scores):
    from leakeval_core.analysis.folds import per_query

    at = open_tab(app("app_pages/queries.py"), "queries_tab", "One query")
    values = {s.key.split(":")[-1]: s.value for s in at.selectbox if s.key}
    qid = values["qid"]
    table = per_query(demo_scores, "ndcg_cut_10").table
    rows = table[(table.collection == values["collection"]) & (table.qid == qid)]
    rows = rows[rows.model == values["a_model"]]

    def value(leakage: str, size: int) -> float:
        return rows[(rows.leakage == leakage) & (rows.train_size == size)].value.iloc[0]

    size = values["a_train_size"]
    a, b = value(values["a_leakage"], size), value(values["b_leakage"], size)
    shown = {m.label: m.value for m in at.metric}  # the page's means come first
    assert (shown["nDCG@10, A"], shown["nDCG@10, B"]) == (f"{a:.4f}", f"{b:.4f}")
    assert shown["A − B"] == f"{a - b:.4f}" and shown["Leaked topic"] in ("yes", "no")
    along = next(d.value for d in at.dataframe if "train_size" in d.value.columns)
    assert along.train_size.tolist() == [2000, 4000, 8000, 16000, 32000]
    for row in along.itertuples():
        assert abs(row.A - value(values["a_leakage"], row.train_size)) < 1e-12
        assert abs(row.B - value(values["b_leakage"], row.train_size)) < 1e-12
    # the query picker says each query's A − B, largest gain first
    label = next(o for o in widget(at.selectbox, "qid").options if o.startswith(f"{qid}:"))
    assert f"(A − B {a - b:+.3f}" in label


def test_a_copied_link_reopens_the_open_tab(app):
    at = open_tab(app("app_pages/queries.py"), "queries_tab", "One query")
    assert at.query_params["queries_tab"] == "One query"
    link = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    link.query_params["conditions_tab"] = "Inflation"
    link.switch_page("app_pages/conditions.py").run()
    assert not link.exception
    assert any("gain_leaked" in d.value.columns for d in link.dataframe)


def test_the_report_download_stays_after_a_rerun(app):
    at = open_tab(
        app("app_pages/conditions.py"), "conditions_tab", "Audit & downloads"
    )
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
    assert any("gain_leaked" in d.value.columns for d in at.dataframe)  # Inflation is open
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


def test_which_topics_leaked_opens_on_the_storys_collection(app):
    """The defect: from a Core17 story the leakage page listed every collection's pairs,
    Robust04's first."""
    at = app()
    widget(at.selectbox, "collection").set_value("core17").run()
    next(b for b in at.button if "Which topics leaked" in b.label).click().run()
    assert not at.exception and at.header[0].value == "Leakage overlap"
    assert at.multiselect[0].value == ["core17"]
    assert set(at.dataframe[0].value.collection) == {"core17"}


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
    from leakeval_core import api
    from leakeval_core.present.display import fixed

    clean = "Mean (clean topics)"  # the screen's header; the downloads keep clean_mean
    at = app("app_pages/audit.py")
    assert all(clean not in frame.value for frame in at.dataframe)  # lazy
    open_tab(at, "audit_tab", "Leaderboard")
    (board,) = [frame.value for frame in at.dataframe if clean in frame.value]
    first_collection = next(iter(demo_experiment.collections))  # the page opens on it
    expected = api.audit(demo_experiment).at({"collection": first_collection}).leaderboard
    assert board[clean].tolist() == [fixed(v) for v in expected["clean_mean"]]
    assert not [c for c in board.columns if c.startswith(("clean_", "ci_", "rank_"))]
    assert any("Kendall's τ" in c.value for c in at.caption)
