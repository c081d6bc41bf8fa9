"""The Story on the demo, for every measure: its headline and evidence against the per-query scores,
scipy and the share of the gain computed by hand, in the measure's own direction."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from leakeval_core import api
from leakeval_core.analysis.folds import per_query
from leakeval_core.analysis.inflation import inflation
from leakeval_core.evaluation.direction import Direction
from leakeval_core.leakage.table import ground_truth, leaked_qids
from leakeval_core.present.story import amount

HIGHER = Direction("higher")

pytestmark = pytest.mark.demo


APP_MEASURES = [
    "ndcg_cut_10",
    "P_1",
    "first_rel_rank",
    "recip_rank",
    "map",
    "recall_100",
    "judged_10",
]


@pytest.fixture(scope="module")
def study(demo_dir, demo_cache):
    return api.Study.open(demo_dir, demo_cache)


def by_hand(study, story, measure: str):
    """The pair's per-topic deltas and leaked flags, from the per-query table."""
    design = study.design
    rows = study.per_query(measure, api.View().conventions).table
    for factor, level in story.pair.items():
        rows = rows[rows[factor] == level]
    wide = rows.pivot_table(index="qid", columns=design.leakage, values="value").dropna()
    leaked = study.leaked(api.View())
    flags = wide.index.isin(leaked.qid[leaked.collection == story.pair["collection"]])
    return wide, wide[design.leaked] - wide[design.clean], flags


@pytest.mark.parametrize("measure", APP_MEASURES)
def test_every_measure_tells_its_story_in_its_own_direction(study, measure):
    story = api.story(study, measure=measure)
    parsed = api.View(measure=measure).parsed_measure
    wide, delta, flags = by_hand(study, story, measure)
    sign = 1 if parsed.better == "higher" else -1
    on, off = sign * delta[flags], sign * delta[~flags]
    # the pair: the one whose leaked topics improve most over the others. The table's
    # difference is already oriented (positive: leaked topics gain more in the better
    # direction), so the largest is the clearest case for every measure, MFR included
    table = api.inflation(study, measure=measure).table
    row = table[np.isclose(table.difference, table.difference.max())].iloc[0]
    assert {f: row[f] for f in story.pair} == story.pair
    assert on.mean() - off.mean() == pytest.approx(row.difference)  # oriented by hand
    assert story.facts.verdict == row.verdict and f"Verdict: {row.verdict}." in story.evidence
    mean_a, mean_b = wide[study.design.leaked].mean(), wide[study.design.clean].mean()
    gained = (mean_a - mean_b) * sign
    if abs(gained) < 1e-12:  # re-ranking the same top 100: Recall@100 cannot move
        assert story.headline.startswith(f"Leaked training leaves {parsed.label}")
    else:
        verb = "improves" if gained > 0 else "worsens"
        assert story.headline.startswith(f"Leaked training {verb} {parsed.label}")
        assert f"from {mean_b:.3f} to {mean_a:.3f}" in story.headline
    assert f"{amount(on.mean(), parsed)} on the {len(on)} topics" in story.detail
    assert f"{amount(off.mean(), parsed)} on the {len(off)} without" in story.detail
    if parsed.better == "lower":
        assert "(lower is better)" in story.headline and "better on the" in story.detail
    p = min(1.0, sps.ttest_ind(delta[flags], delta[~flags], equal_var=False).pvalue * 15)
    assert f"adjusted {p:.2g} by Bonferroni over the 15 pairs of conditions of " in story.evidence


def test_the_share_of_the_gain_is_the_leaked_topics_sum_over_everyones(study):
    story = api.story(study, measure="ndcg_cut_10")
    _, delta, flags = by_hand(study, story, "ndcg_cut_10")
    share = delta[flags].sum() / delta.sum()
    assert f": {share:.0%} [" in story.detail
    facts = story.facts
    assert facts.share == pytest.approx(share)
    assert facts.share_low < share < facts.share_high


def test_trend_runs_along_the_size_factor_at_the_pairs_other_levels(study):
    story = api.story(study)
    assert story.x == "train_size"
    assert story.chart.train_size.tolist() == [2000, 4000, 8000, 16000, 32000]
    for factor, level in story.pair.items():
        if factor != "train_size":
            assert (story.chart[factor] == level).all()


def test_top_topics_carry_the_training_query_that_leaked_them(study, demo_experiment):
    story = api.story(study)
    truth = ground_truth(demo_experiment).table
    assert len(story.top) == 10 and story.top.gain.is_monotonic_decreasing
    first = story.top.iloc[0]
    known = truth[(truth.collection == first.collection) & (truth.test_qid == first.qid)]
    assert first["leaked training query"] in known.train_text.tolist() or first.similarity
    assert first.title and np.isclose(first["A (leaked)"] - first["B (clean)"], first.gain)


def test_inflation_adjusts_within_each_collection(demo_experiment, demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10")
    result = inflation(
        table, leaked_qids(ground_truth(demo_experiment), 0.0), demo_experiment.design, HIGHER
    )
    summary = result.table
    assert (summary.groupby("collection").family_size.first() == 15).all()
    core17 = summary[summary.collection == "core17"]
    expected = np.minimum(core17.p.to_numpy() * 15, 1.0)
    assert np.allclose(core17.p_adjusted, expected)
    # the interval is Welch's at the level Bonferroni tests each row at: dual to the mark
    row = core17.iloc[0]
    assert row.confidence == pytest.approx(1 - 0.05 / 15)
    assert (row.ci_low > 0) == (row.p_adjusted < 0.05)


@pytest.mark.parametrize("measure", ["ndcg_cut_10", "P_1", "recip_rank", "first_rel_rank"])
def test_the_storys_figures_are_its_row_of_leakeval_inflation(demo_dir, capsys, measure):
    """`leakeval story --json` and `leakeval inflation --format json` on the same settings:
    the story's row is inflation's row for its pair, every figure equal, and the sentences
    print that row's figures."""
    import json

    from leakeval_core.cli import main
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.present.story import interval_text

    main(["story", str(demo_dir), "--measure", measure, "--json"])
    story = json.loads(capsys.readouterr().out)
    main(["inflation", str(demo_dir), "--measure", measure, "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["inflation"]
    (row,) = [r for r in rows if all(str(r[f]) == v for f, v in story["pair"].items())]
    (told,) = story["answers"]
    assert told == row
    parsed = parse_measure(measure)
    assert row["difference"] == max(r["difference"] for r in rows)  # the clearest case
    assert story["verdict"] == row["verdict"]
    assert f"{amount(row['difference'], parsed)} " in story["evidence"]
    assert interval_text(row["ci_low"], row["ci_high"], parsed) in story["evidence"]
    assert f"p = {row['p']:.2g}, adjusted {row['p_adjusted']:.2g}" in story["evidence"]
    assert (
        f"{amount(row['gain_leaked'], parsed)} on the {row['leaked_topics']} topics"
        in (story["detail"])
    )


def test_topics_without_a_value_are_counted_and_said(study):
    """First relevant rank has no value where no relevant document is within depth: those
    topics are in neither count, and the Story says how many, so its counts add up to the
    topics the pair scored (the leaked rule counts them all)."""
    told = api.story(study, measure="first_rel_rank")
    wide, _, _ = by_hand(study, told, "first_rel_rank")
    facts = told.facts
    scored = study.per_query("first_rel_rank", api.View().conventions).table
    pair = scored[(scored[list(told.pair)] == pd.Series(told.pair)).all(axis=1)]
    assert facts.left_out == pair.qid.nunique() - len(wide) > 0
    assert facts.leaked_topics + facts.other_topics + facts.left_out == pair.qid.nunique()
    assert f" {facts.left_out} more topics have no First relevant rank on at least one side" in (
        told.detail
    )
    assert api.story(study, measure="ndcg_cut_10").facts.left_out == 0
