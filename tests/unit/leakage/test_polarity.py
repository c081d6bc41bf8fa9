"""`leakage.polarity`: a pair in which one text says the opposite of the other is never
identical, by the rule or by the title relation, while pairs that are the same words stay
identical."""

from __future__ import annotations

import pandas as pd
import pytest

from leakeval_core.leakage.polarity import compared_terms
from leakeval_core.leakage.relations import (
    TITLE_RELATION,
    categorize,
    relate,
    relation_features,
)
from leakeval_core.leakage.text import normalize, stem

TURNED = [
    (
        "Ethanol stress decreases the expression of IBP in bacteria.",
        "Ethanol stress increases the expression of IBP in bacteria.",
        {"decreases", "increases"},
    ),
    (
        "ALDH1 expression is associated with positive breast cancer outcomes.",
        "ALDH1 expression is associated with negative breast cancer outcomes.",
        {"positive", "negative"},
    ),
    (
        "Patients with diabetes have a higher risk of stroke.",
        "Patients without diabetes have a higher risk of stroke.",
        {"without"},
    ),
    ("Aspirin reduces the risk of stroke.", "Aspirin does not reduce the risk of stroke.", {"not"}),
    ("Aspirin reduces the risk of stroke.", "Aspirin doesn't reduce the risk of stroke.", {"not"}),
    (
        "Low saturated fat diets have adverse effects on the development of infants.",
        "Low saturated fat diets have no adverse effects on the development of infants.",
        {"no"},
    ),
    (
        "Higher plasma levels of IL-6 predict mortality.",
        "Lower plasma levels of IL-6 predict mortality.",
        {"higher", "lower"},
    ),
    ("More exercise improves sleep.", "Less exercise improves sleep.", {"more", "less"}),
    (
        "FOXO3 is upregulated in tumours.",
        "FOXO3 is downregulated in tumours.",
        {"upregulated", "downregulated"},
    ),
    ("Statins inhibit the enzyme.", "Statins activate the enzyme.", {"inhibit", "activate"}),
    ("Lung cancer in smokers", "lung cancer in nonsmokers", {"smokers", "nonsmokers"}),
    ("hypertension in adults", "hypotension in adults", {"hypertension", "hypotension"}),
    (
        "0-dimensional biomaterials show inductive properties.",
        "0-dimensional biomaterials lack inductive properties.",
        {"show", "lack"},
    ),
]


def _titles(tests: list[str], trains: list[str]) -> pd.DataFrame:
    return relation_features(normalize(pd.Series(tests)), normalize(pd.Series(trains)))


@pytest.mark.parametrize(("topic", "train", "words"), TURNED)
def test_a_negation_or_an_antonym_turns_the_pair_around(topic, train, words):
    test_norm, train_norm = normalize(pd.Series([topic, train])).tolist()
    *_, turning = compared_terms(test_norm, train_norm)
    assert turning == {stem(w) for w in words}  # after stemming: "decreases" meets "decreased"
    assert categorize(test_norm, train_norm) == "reformulation"


def test_a_turned_pair_is_never_identical_against_a_title_either():
    tests, trains, _ = zip(*TURNED, strict=True)
    features = _titles(list(tests), list(trains))
    assert features.opposed.all()
    assert list(relate(features, pd.Series(["title"] * len(TURNED)))) == ["reformulation"] * len(
        TURNED
    )
    # the fitted model alone would call some of these long claims identical: it is not asked
    unasked = TITLE_RELATION.predict(features.assign(opposed=False))
    assert "identical" in set(unasked)


@pytest.mark.parametrize(
    ("topic", "train"),
    [
        (
            "Ethanol stress decreases the expression of IBP",
            "the expression of IBP ethanol stress decreases",
        ),
        ("claims about vaccines", "claim about vaccine"),
        ("the risk of aspirin", "aspirin risks"),
        ("Aspirin does not reduce stroke", "aspirin doesn't reduce stroke"),
        ("Aspirin cannot reduce stroke", "aspirin can't reduce stroke"),
        ("no adverse effects of statins", "statins no adverse effects"),
    ],
)
def test_the_same_words_stay_identical(topic, train):
    test_norm, train_norm = normalize(pd.Series([topic, train])).tolist()
    assert not compared_terms(test_norm, train_norm)[2]
    assert categorize(test_norm, train_norm) == "identical"
    features = _titles([topic], [train])
    assert list(relate(features, pd.Series(["title"]))) == ["identical"]


@pytest.mark.parametrize(
    ("topic", "train", "category"),
    [
        # a negation whose word the other text lacks restricts rather than turns
        ("patients", "patients without diabetes", "specialization"),
        ("non-U.S. media bias", "media bias", "generalization"),
        # both sides name both poles: nothing turns
        ("pros and cons of dental implants", "pros of dental implants", "generalization"),
        # both sides negate the same word
        ("statins do not reduce stroke", "statins do not reduce stroke in women", "specialization"),
    ],
)
def test_what_does_not_turn_the_need_around_is_judged_by_its_words(topic, train, category):
    test_norm, train_norm = normalize(pd.Series([topic, train])).tolist()
    assert not compared_terms(test_norm, train_norm)[2]
    assert categorize(test_norm, train_norm) == category


def test_the_judged_pairs_turned_around_are_called_as_the_annotators_call_them():
    """On the study's judged titles one pair is turned around ("unhealthy"), and its
    annotators call it a reformulation; no judged variant is."""
    from tests.unit.leakage.test_detection_quality import dev_labels

    table = dev_labels().table
    near = table[table.near_duplicate == 1].reset_index(drop=True)
    for field in ("title", "variant"):
        rows = near[near[f"{field}_relation"] != ""].reset_index(drop=True)
        features = _titles(rows[field].tolist(), rows.train_text.tolist())
        turned = rows[features.opposed.to_numpy()]
        related = relate(features, pd.Series([field] * len(rows)))[features.opposed.to_numpy()]
        if field == "title":
            assert turned.train_text.tolist() == ["are eggs unhealthy"]
            assert list(related) == turned.title_relation.tolist() == ["reformulation"]
        else:
            assert turned.empty
