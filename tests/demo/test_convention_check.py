"""The convention check, against numbers computed here from the files and tables."""

import pandas as pd
import pytest

from leakeval_core.analysis.convention_check import convention_check
from leakeval_core.evaluation.conventions import Conventions

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


def test_the_relevance_level_leaves_ndcg_as_it_is_and_says_so(audit):
    """nDCG gains every positive grade at any level (trec_eval's rule): at level 2 the same
    50 topics are scored, none moves, and the row names what the level does move."""
    row = audit[audit.change.str.startswith("relevance_level")].iloc[0]
    assert row["queries (current)"] == row["queries (alternative)"] == 50
    assert row["queries that change"] == 0
    assert row["change"] == "relevance_level: 1 → 2"  # what it moves: the caption beside it


def test_every_alternative_is_reported_per_condition(audit):
    assert len(audit) == 4 * len(CONDITIONS)
    gain = audit[audit.change.str.startswith("gain")]
    assert (gain["queries that change"] > 0).all()  # graded qrels: exp gain moves nDCG
    missing = audit[audit.change.str.startswith("missing")]
    assert (missing["difference of means"] == 0).all()  # folds cover every core17 topic
    assert (
        audit["difference of means"] == audit["mean (alternative)"] - audit["mean (current)"]
    ).all()
