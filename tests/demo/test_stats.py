"""Statistics held against scipy / statsmodels on the demo's scores."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from leakeval_core.analysis.compare import compare_levels, paired
from leakeval_core.analysis.folds import PerQuery, per_query, select
from leakeval_core.analysis.inflation import inflation
from leakeval_core.analysis.rank_agreement import ranking_change
from leakeval_core.evaluation.direction import Direction
from leakeval_core.leakage.table import ground_truth, leaked_qids

HIGHER = Direction("higher")

pytestmark = pytest.mark.demo


def test_compare_levels_on_demo_against_scipy(demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    rows = compare_levels(table, "leakage", baseline="none")
    assert len(rows) == 3 * 3 * 5
    assert set(rows.a) == {"leaked"} and set(rows.b) == {"none"}
    row = rows[
        (rows.collection == "robust04") & (rows.model == "monot5") & (rows.train_size == 4000)
    ].iloc[0]
    wide = table.table.query(
        "collection == 'robust04' and model == 'monot5' and train_size == 4000"
    ).pivot(index="qid", columns="leakage", values="value")
    expected = sps.ttest_rel(wide.leaked, wide.none)
    assert row.n == 250
    assert row.p == pytest.approx(expected.pvalue, rel=1e-10)
    # the correction family is one collection's comparisons: 3 models x 5 sizes
    assert row.family_size == 15
    assert row.p_adjusted == pytest.approx(min(1.0, expected.pvalue * 15), rel=1e-10)
    assert row.delta == pytest.approx((wide.leaked - wide.none).mean())
    all_pairs = compare_levels(table, "model")
    assert len(all_pairs) == 3 * 2 * 5 * 3


def test_compare_levels_pairs_by_query_id_not_position(demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    shuffled = table.table.sample(frac=1.0, random_state=0)
    reordered = type(table)(shuffled, table.factors, table.fold_rule, table.missing)
    pd.testing.assert_frame_equal(
        compare_levels(reordered, "leakage"), compare_levels(table, "leakage")
    )


def test_inflation_on_demo_shrinks_with_train_size(demo_experiment, demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    flags = leaked_qids(ground_truth(demo_experiment), 0.0)  # the planted pairs
    result = inflation(table, flags, demo_experiment.design, HIGHER)
    by_size = result.table.groupby("train_size").gain_leaked.mean()
    assert by_size.is_monotonic_decreasing
    assert by_size.iloc[0] > 0.05
    at_2000 = result.table.query("train_size == 2000 and collection == 'robust04'")
    assert (at_2000.verdict == "inflated").all()  # 250 topics: every model
    quiet = result.table[result.table.verdict == "no evidence"]
    assert (quiet.mde > 0).all() and quiet.mde.notna().all()
    assert (result.top.groupby(["collection", "model", "train_size"]).size() <= 10).all()
    top = result.top.iloc[0]
    assert top.delta == pytest.approx(top.leaked - top.none)


def test_inflation_pairs_every_condition_as_compare_paired_pairs_one(demo_experiment, demo_scores):
    """One definition of a pair: inflation joins every leaked/clean pair in one pivot, the
    comparison page joins one pair with `compare.paired`; their deltas and leaked flags must be
    the same, pair by pair, also where one side did not score some queries."""
    design = demo_experiment.design
    full = per_query(demo_scores, "ndcg_cut_10")
    leaked_side = full.table[design.leakage] == design.leaked
    dropped = full.table[leaked_side].sample(frac=0.1, random_state=0).index
    table = PerQuery(full.table.drop(dropped), full.factors, full.fold_rule, full.missing)
    flags = leaked_qids(ground_truth(demo_experiment), 0.0)
    result = inflation(table, flags, design, HIGHER)
    others = [f for f in table.factors if f != design.leakage]
    one_sided = 0
    for row in result.table.itertuples():
        fixed = {f: getattr(row, f) for f in others}
        leaked, clean = (
            {**fixed, design.leakage: level} for level in (design.leaked, design.clean)
        )
        pair = paired(table, leaked, clean, flags)
        one_sided += pair.only_b
        on, off = pair.table[pair.table.leaked].delta, pair.table[~pair.table.leaked].delta
        assert (row.leaked_topics, row.other_topics) == (len(on), len(off))
        assert row.gain_leaked == pytest.approx(on.mean(), abs=1e-15)
        assert row.gain_other == pytest.approx(off.mean(), abs=1e-15)
    assert len(result.table) == full.table.groupby(others).ngroups
    assert one_sided == len(dropped)


def test_ranking_change_on_demo(demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    taus = ranking_change(table, "model", "leakage", ["collection", "train_size"], HIGHER)
    assert len(taus) == 3 * 5
    pooled = taus.groupby("train_size").tau.mean()
    assert pooled.loc[2000] < 1.0
    row = taus.iloc[0]
    assert -1.0 <= row.tau <= 1.0 and " > " in row["ranking (leaked)"]
    assert (taus.tau_low <= taus.tau + 1e-12).all() and (taus.tau <= taus.tau_high + 1e-12).all()


def test_an_outside_run_against_a_condition_splits_by_leaked_topics(demo_experiment, demo_scores):
    """The run is the leaked condition's own scores: against itself A − B is 0 everywhere;
    against the clean twin its split is the inflation table's, recomputed with scipy."""
    from leakeval_core.analysis.compare import versus_condition

    table = per_query(demo_scores, "ndcg_cut_10")
    at = {"collection": "robust04", "model": "monot5", "train_size": 2000}
    rows = table.table.set_index("qid")

    def scores(leakage: str) -> pd.Series:
        match = (rows[list(at)] == pd.Series(at)).all(axis=1) & (rows.leakage == leakage)
        return rows[match].value

    run, clean = scores("leaked"), scores("none")
    leaked = leaked_qids(ground_truth(demo_experiment), 0.0)
    same, only_run, only_condition = versus_condition(
        run, table, {**at, "leakage": "leaked"}, leaked
    )
    assert (only_run, only_condition) == (0, 0)
    assert same.topics.tolist() == ["all topics", "topics with a near-duplicate", "other topics"]
    assert (same.delta == 0).all() and (same.p == 1).all() and not same.significant.any()
    out, *_ = versus_condition(run, table, {**at, "leakage": "none"}, leaked)
    flags = run.index.isin(leaked.qid[leaked.collection == "robust04"])
    delta = run - clean.reindex(run.index)
    for group, mask in (("topics with a near-duplicate", flags), ("other topics", ~flags)):
        row = out[out.topics == group].iloc[0]
        assert row.n == mask.sum() and row.delta == pytest.approx(delta[mask].mean())
        p = sps.ttest_rel(run[mask], clean.reindex(run.index)[mask]).pvalue
        assert row.p == pytest.approx(p, rel=1e-10)
        assert row.p_adjusted == pytest.approx(min(1.0, 3 * p), rel=1e-10)  # this table's 3 rows
    assert (out.family_size == 3).all()
    assert out.n.iloc[0] == out.n.iloc[1] + out.n.iloc[2] == len(run)


def test_an_upload_that_covers_few_topics_gets_no_infinite_figure(demo_scores):
    """The defect: a run covering few topics had a near-duplicate row with n = 1 and an
    effect size of -Infinity."""
    from leakeval_core.analysis.compare import versus_condition

    table = per_query(demo_scores, "ndcg_cut_10")
    levels = {"collection": "core17", "model": "colbert", "leakage": "none", "train_size": 2000}
    condition = select(table.table, levels)
    values = condition.set_index("qid").value.head(3) + 0.1  # three topics only
    leaked = pd.DataFrame({"collection": "core17", "qid": [values.index[0]]})
    rows, only_run, only_condition = versus_condition(values, table, levels, leaked)
    assert (only_run, only_condition) == (0, len(condition) - 3)
    near = rows[rows.topics == "topics with a near-duplicate"].iloc[0]
    assert near.n == 1 and np.isnan(near.effect_size) and near.p == 1.0  # no evidence
    assert np.isfinite(rows.effect_size.dropna()).all()
