"""`leakage.relations`: the features the fitted relation sees, and the mechanics of its nested
selection (`leakeval_fit.relation_selection`; written examples only test mechanics, quality
figures come from the bench on the real labels)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leakeval_core.leakage.relations import relate, relation_features
from leakeval_core.leakage.text import normalize
from leakeval_fit.relation_selection import agreement_interval, nested_relations


def test_features_count_what_each_side_lacks():
    features = relation_features(
        normalize(
            pd.Series(["bacterial infection", "child labor", "black bear attacks worldwide"])
        ),
        normalize(
            pd.Series(["bacteria infection", "what is child labor", "black bear attacks 2018"])
        ),
    )
    first, second, third = features.to_dict("records")
    # 'bacterial' and 'bacteria' stem apart, but share their first four letters
    assert (first["missing"], first["extra"], first["variant_pairs"]) == (1, 1, 1)
    assert first["rule"] == "reformulation" and first["rule_reformulation"] == 1.0
    assert (second["missing"], second["extra"], second["common"]) == (0, 0, 2)
    assert second["train_question"] == 1.0 and second["same_intent"] == 0.0
    assert second["rule"] == "reformulation"  # same content words, asked as a question
    assert third["extra_year"] == 1 and third["missing"] == 1
    assert third["rule"] == "specialization"  # a year restricts, whatever else it drops


def _written(n_topics: int = 30, seed: int = 0):
    """Pairs whose true relation is the rule's answer but for one feature the rule ignores."""
    rng = np.random.default_rng(seed)
    tests, trains, truth, groups = [], [], [], []
    for topic in range(n_topics):
        for year in (False, True):
            tests.append(f"topic{topic} words")
            trains.append(f"topic{topic} words {'2018' if year else 'w' + str(rng.integers(99))}")
            truth.append("specialization" if year else "reformulation")
            groups.append(topic)
    return (
        relation_features(normalize(pd.Series(tests)), normalize(pd.Series(trains))),
        np.array(truth),
        np.array(groups),
    )


def test_a_model_is_chosen_only_where_it_beats_the_rule_inside_the_folds():
    features, truth, groups = _written()
    rule = nested_relations(features, truth, groups, candidates=(None,))
    chosen = nested_relations(features, truth, groups)
    # the rule calls every added word a specialization: half right
    assert rule.agreement() == pytest.approx(0.5)
    assert set(rule.chosen) == {"rule"}
    # the year feature tells the two apart, and only the training folds chose the model
    assert chosen.agreement() == pytest.approx(1.0)
    assert all(c.startswith("logistic") for c in chosen.chosen)
    low, high = agreement_interval(chosen, reps=200, against=rule)
    assert low == pytest.approx(0.5) and high == pytest.approx(0.5)


def test_agreement_is_the_mean_over_outer_folds():
    features, truth, groups = _written(n_topics=10)
    result = nested_relations(features, truth, groups, outer=2, candidates=(None,))
    hits = result.predicted == result.truth
    by_fold = [hits[result.folds == f].mean() for f in (0, 1)]
    assert result.agreement() == pytest.approx(np.mean(by_fold))


@pytest.mark.detection
def test_the_shipped_title_relation_is_the_fit_on_the_judged_titles():
    """TITLE_RELATION is the fitting procedure's output on the development labels (its C
    chosen by grouped CV), rounded: it relates every judged pair as a fresh fit does."""
    from leakeval_core.leakage.relations import TITLE_RELATION, relate
    from leakeval_fit.relation_selection import choose_c, fit_relation
    from tests.unit.leakage.test_detection_quality import dev_labels

    table = dev_labels().table
    rows = table[(table.near_duplicate == 1) & (table.title_relation != "")]
    rows = rows.reset_index(drop=True)
    features = relation_features(normalize(rows.title), normalize(rows.train_text))
    truth = rows.title_relation.to_numpy()
    c, _ = choose_c(features, truth, rows.topic.to_numpy())
    assert c == 0.01
    fresh = fit_relation(features, truth, c)
    shipped = relate(features, pd.Series(["title"] * len(rows)))
    assert (shipped == fresh.predict(features)).all()
    assert TITLE_RELATION.classes == fresh.classes
    # in sample, so above the nested 0.67-0.68 the docs report; the rule: 0.62
    assert (shipped == truth).mean() == pytest.approx(0.699, abs=5e-4)
    assert (features.rule == truth).mean() == pytest.approx(0.616, abs=5e-4)


def test_a_title_is_related_by_the_model_a_variant_by_the_rule():
    features = relation_features(
        normalize(pd.Series(["child labor", "child labor", "child labor child labor"])),
        normalize(pd.Series(["child labor today", "child labor today", "child labor"])),
    )
    out = relate(features, pd.Series(["title", "variant", "title"]))
    assert out[1] == features.rule[1] == "specialization"
    assert out[2] == "identical"  # the same words asked the same way: by definition
