"""The story's headline and evidence, against the per-query scores and scipy directly."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from leakeval_core.analysis.folds import per_query
from leakeval_core.analysis.inflation import inflation
from leakeval_core.analysis.options import Statistics
from leakeval_core.api.results import Inflation
from leakeval_core.evaluation.measures import parse_measure
from leakeval_core.experiment.collections import load_collection
from leakeval_core.leakage.table import ground_truth, leaked_qids
from leakeval_core.present.story import default_pair, tell


@pytest.fixture(scope="module")
def told(demo_experiment, demo_scores):
    design = demo_experiment.design
    table = per_query(demo_scores, "ndcg_cut_10")
    truth = ground_truth(demo_experiment)
    flags = leaked_qids(truth, 0.0)
    split = inflation(table, flags, design)
    measure = parse_measure("ndcg_cut_10")
    result = Inflation(split.table, split.top, 0.0, "the planted pairs", measure)
    factors = [f for f in demo_experiment.condition_factors if f != design.leakage]
    pair = default_pair(result.table, factors)
    titles = pd.concat(
        [
            load_collection(spec).topics[["qid", "title"]].assign(collection=name)
            for name, spec in demo_experiment.collections.items()
        ]
    )
    story = tell(
        result,
        pair,
        design,
        parse_measure("ndcg_cut_10"),
        Statistics(),
        truth.table,
        titles,
    )
    return story, table, flags, result


def test_the_default_pair_shows_the_largest_inflation(told):
    story, _, _, result = told
    best = result.table.sort_values("difference", ascending=False).iloc[0]
    assert all(best[f] == level for f, level in story.pair.items())


def test_headline_numbers_are_the_per_query_means(told, demo_experiment):
    story, table, flags, _ = told
    design = demo_experiment.design
    rows = table.table
    for factor, level in story.pair.items():
        rows = rows[rows[factor] == level]
    wide = rows.pivot_table(index="qid", columns=design.leakage, values="value")
    delta = wide[design.leaked] - wide[design.clean]
    leaked = delta.index.isin(flags[flags.collection == story.pair["collection"]].qid)
    on, off = delta[leaked], delta[~leaked]
    assert f"{on.mean():+.2f} on the {len(on)} topics" in story.headline.replace(" nDCG@10", "")
    assert f"{off.mean():+.2f} on the {len(off)} without" in story.headline
    # Welch's t-test from scipy, Bonferroni over the 15 pairs of this collection (3 models
    # x 5 sizes), as the report and the CLI adjust it
    p = min(1.0, sps.ttest_ind(on, off, equal_var=False).pvalue * 15)
    assert f"p = {p:.2g} after Bonferroni over the 15 pairs of conditions of " in story.evidence
    assert f"{on.mean() - off.mean():+.2f} nDCG@10, significant" in story.evidence


def test_trend_runs_along_the_size_factor_at_the_pairs_other_levels(told):
    story, _, _, result = told
    assert story.x == "train_size"
    assert story.trend.train_size.tolist() == sorted(result.table.train_size.unique())
    for factor, level in story.pair.items():
        if factor != "train_size":
            assert (story.trend[factor] == level).all()


def test_top_topics_carry_the_training_query_that_leaked_them(told, demo_experiment):
    story, *_ = told
    truth = ground_truth(demo_experiment).table
    assert len(story.top) == 10 and story.top.inflation.is_monotonic_decreasing
    first = story.top.iloc[0]
    known = truth[(truth.collection == first.collection) & (truth.test_qid == first.qid)]
    assert first["leaked training query"] in known.train_text.tolist()
    assert first.title and np.isclose(first.leaked - first.none, first.inflation)


def test_inflation_adjusts_within_each_collection(demo_experiment, demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    result = inflation(
        table, leaked_qids(ground_truth(demo_experiment), 0.0), demo_experiment.design
    )
    summary = result.table
    assert (summary.groupby("collection").family_size.first() == 15).all()
    core17 = summary[summary.collection == "core17"]
    expected = np.minimum(core17.p_difference.to_numpy() * 15, 1.0)
    assert np.allclose(core17.p_difference_adjusted, expected)
