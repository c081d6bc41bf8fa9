"""Scoring the demo experiment: the SCORES table, its cache and its folds."""

import numpy as np
import pytest

from leakeval_core.analysis.folds import per_query
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_run
from leakeval_core.io.trec import read_qrels, read_run

pytestmark = pytest.mark.demo


def test_demo_scores_match_direct_scoring(demo_experiment, demo_scores):
    """A known value from `leakeval scores`, recomputed straight from the files."""
    row = demo_experiment.conditions.iloc[0]
    spec = demo_experiment.collections[row.collection]
    qrels = PreparedQrels(read_qrels(spec.qrels), Conventions(missing="drop"))
    direct = score_run(read_run(row.path), qrels, "ndcg_cut_10")
    assert direct.diagnostics.queries_scored == 10  # one fold of core17's 50 topics
    table = demo_scores.table
    ours = table[(table.run_id == row.run_id) & (table.measure == "ndcg_cut_10")]
    np.testing.assert_allclose(
        ours.sort_values("qid").value.to_numpy(),
        direct.table.sort_values("qid").value.to_numpy(),
        atol=1e-12,
    )
    assert demo_scores.failures.empty
    assert demo_scores.scoring_warnings(limit=None) == ()  # every run is well judged


def test_demo_folds_split_topics(demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    assert table.fold_rule == "split"
    assert table.missing.missing.sum() == 0
    sizes = table.table.groupby(["collection", "model", "leakage", "train_size"]).size()
    assert set(sizes.xs("robust04", level="collection")) == {250}
    assert set(sizes.xs("core17", level="collection")) == {50}


@pytest.mark.parametrize("measure", ["nope_measure"])
def test_unknown_measure(demo_scores, measure):
    with pytest.raises(Exception, match="not scored"):
        per_query(demo_scores, measure)
