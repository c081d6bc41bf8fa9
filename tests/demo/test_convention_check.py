"""The convention check, against numbers computed here from the files and tables."""

import pandas as pd
import pytest

from leakeval_core.analysis.convention_check import convention_check
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.io.trec import read_qrels

pytestmark = pytest.mark.demo

CONDITIONS = [
    {"collection": "core17", "model": "monot5", "leakage": "leaked", "train_size": 2000},
    {"collection": "core17", "model": "monot5", "leakage": "none", "train_size": 2000},
]


@pytest.fixture(scope="module")
def audit(demo_experiment, demo_cache):
    return convention_check(demo_experiment, CONDITIONS, "ndcg_cut_10", Conventions(), demo_cache)


def test_current_means_match_the_scores_table(audit, demo_scores):
    table = demo_scores.table
    for levels in CONDITIONS:
        rows = table[
            (table.measure == "ndcg_cut_10")
            & (table[list(levels)] == pd.Series(levels)).all(axis=1)
        ]
        got = audit[(audit.leakage == levels["leakage"])]["mean (current)"]
        assert got.tolist() == pytest.approx([rows.value.mean()] * 4)


def test_relevance_level_two_keeps_only_queries_with_a_grade_two(audit, demo_experiment):
    qrels = read_qrels(demo_experiment.collections["core17"].qrels)
    with_grade_two = qrels[qrels.grade >= 2].qid.nunique()
    row = audit[audit.change.str.startswith("relevance_level")].iloc[0]
    assert row["queries (current)"] == 50
    assert row["queries (alternative)"] == with_grade_two


def test_every_alternative_is_reported_per_condition(audit):
    assert len(audit) == 4 * len(CONDITIONS)
    gain = audit[audit.change.str.startswith("gain")]
    assert (gain["queries that change"] > 0).all()  # graded qrels: exp gain moves nDCG
    missing = audit[audit.change.str.startswith("missing")]
    assert (missing["difference of means"] == 0).all()  # folds cover every core17 topic
    assert (
        audit["difference of means"] == audit["mean (alternative)"] - audit["mean (current)"]
    ).all()
