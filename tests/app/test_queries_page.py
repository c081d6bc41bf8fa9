"""The Per-query drill-down page in AppTest: its means, its tabs and the one-query view, against the
scores table and the run files."""

from __future__ import annotations

import pytest

from tests.app.apptest import detected, metric, open_tab, widget

pytestmark = pytest.mark.demo


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
    level = audit[audit.change.str.startswith("relevance_level")]
    assert (level["queries that change"] == 0).all()  # nDCG@10 gains every positive grade
    assert any(
        "The relevance level moves P, R, RR" in c.value and "not nDCG, RBP" in c.value
        for c in at.caption
    )
    current = audit[audit.leakage == "leaked"]["mean (current)"]
    assert f"{current.iloc[0]:.4f}" == metric(at, "Mean nDCG@10, A")


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


def test_with_first_relevant_rank_the_picker_puts_a_largest_fall_first(app, demo_scores):
    """Lower is better: A's gain over B is B − A, so the query whose first relevant rank
    falls most under A comes first, and the caption says how A − B reads."""
    from leakeval_core.analysis.folds import per_query

    at = app("app_pages/queries.py")
    widget(at.sidebar.selectbox, "measure").set_value("first_rel_rank").run()
    at = open_tab(at, "queries_tab", "One query")
    values = {s.key.split(":")[-1]: s.value for s in at.selectbox if s.key}
    table = per_query(demo_scores, "first_rel_rank").table
    rows = table[(table.collection == values["collection"]) & (table.model == values["a_model"])]
    rows = rows[rows.train_size == values["a_train_size"]]
    wide = rows.set_index(["qid", "leakage"]).value.unstack("leakage")
    fall = (wide[values["b_leakage"]] - wide[values["a_leakage"]]).rename("fall").reset_index()
    expected = fall.sort_values(["fall", "qid"], ascending=[False, True]).qid.tolist()
    options = widget(at.selectbox, "qid").options
    assert [o.split(":")[0] for o in options] == expected  # no rank on a side: last
    unranked = set(fall.qid[fall.fall.isna()])
    assert unranked and all(("(A − B –" in o) == (o.split(":")[0] in unranked) for o in options)
    assert not any("A − B nan" in o or "A − B +nan" in o for o in options)
    assert any(
        "First relevant rank, lower is better: a positive A − B means A is worse" in c.value
        for c in at.caption
    )


def test_the_top_leaked_gains_are_called_inflation_only_where_the_pair_is(app, demo_dir):
    """The words beside the top leaked topics follow the pair's own leaked-minus-other
    verdict, which is the inflation table's uncorrected test of the same contrast."""
    from leakeval_core import api
    from leakeval_core.api import doors
    from leakeval_core.api.view import View

    def note(at) -> str:
        return next(c.value for c in at.caption if c.value.startswith("Leaked topics where A"))

    rows = api.inflation(str(demo_dir), view=View()).table.set_index(["collection", "model"])
    at = app("app_pages/queries.py")
    assert at.subheader[0].value == "Leaked topics with A's largest gains"
    for collection, verdict in (("robust04", "inflated"), ("core17", "no evidence")):
        widget(at.selectbox, "collection").set_value(collection).run()
        row = rows.loc[(collection, "colbert")].query("train_size == 2000").iloc[0]
        a = {"collection": collection, "model": "colbert", "train_size": 2000}
        pairs = doors.paired(
            str(demo_dir), View(), {**a, "leakage": "leaked"}, a | {"leakage": "none"}
        )
        answer = doors.pair_answer(pairs, View())
        assert answer["p"] == pytest.approx(row.p)
        assert answer["verdict"] == verdict
        said = note(at)
        assert f"{verdict}, leaked minus other" in said
        if verdict == "inflated":
            assert "carry that inflation" in said and "not evidence" not in said
        else:
            assert "not evidence that leakage inflates A's mean" in said


def test_with_first_relevant_rank_the_pair_answer_is_the_inflation_tables(app, demo_dir):
    """Lower is better: the pair's answer is on gains in the better direction, the inflation
    table's own row (its difference, uncorrected p and verdict), and the caption says it."""
    from leakeval_core import api
    from leakeval_core.api import doors
    from leakeval_core.api.view import View

    view = View(measure="first_rel_rank")
    rows = api.inflation(str(demo_dir), view=view).table
    row = rows[(rows.collection == "robust04") & (rows.model == "colbert")]
    row = row[row.train_size == 2000].iloc[0]
    a = {"collection": "robust04", "model": "colbert", "train_size": 2000}
    pairs = doors.paired(str(demo_dir), view, {**a, "leakage": "leaked"}, a | {"leakage": "none"})
    answer = doors.pair_answer(pairs, view)
    assert (answer["difference"], answer["p"]) == pytest.approx((row.difference, row.p))
    assert answer["verdict"] == row.verdict
    at = app("app_pages/queries.py")
    widget(at.selectbox, "measure").set_value("first_rel_rank").run()
    note = next(c.value for c in at.caption if c.value.startswith("Leaked topics where A"))
    assert f"{row.verdict}, leaked minus other" in note
