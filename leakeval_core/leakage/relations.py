"""How a training query relates to a topic text: identical, reformulation, specialization or
generalization.

`categorize` is a rule written while reading the development labels: identical is the same
content words (`text.paired_terms`) asked the same way; a specialization adds a restriction,
and a query that adds a year is one whatever else it changes; a generalization drops one;
anything else is a reformulation, and so is a pair in which one text says the opposite of
the other (`polarity`: "increases" / "decreases", "not" inserted), never identical. Against
a title the rule agrees with the annotators on 62% of pairs, so there a multinomial
logistic model decides, over what the rule looks at (its own answer, which content words
each side lacks, question form) and signs the rule ignores (a missing word and an added
one sharing their first letters, an added year).
`leakeval_fit.relation_selection` fits the model and measures both on held-out topics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leakeval_core.leakage.polarity import compared_terms
from leakeval_core.leakage.text import YEAR, intent_terms

__all__ = [
    "CATEGORIES",
    "CATEGORY_RULES",
    "FEATURES",
    "HOW_RELATED",
    "TITLE_RELATION",
    "RelationModel",
    "categorize",
    "relate",
    "relation_features",
]

CATEGORIES = ("identical", "reformulation", "specialization", "generalization")
"""How a training query can relate to a topic text (a fifth, different, is no near-duplicate)."""
HOW_RELATED = (
    "Against a query variant by these rules; against a title by a model fitted on the "
    "leakage study's judged titles, which agrees with its annotators more often there."
)
"""What a reader of the categories is told about where they come from."""
CATEGORY_RULES = {
    "identical": "the same words up to order, inflection, compounding and function words",
    "specialization": "the training query adds a restriction (content words, a year) to the "
    "topic text",
    "generalization": "the training query drops some of the topic text's content words",
    "reformulation": "the same need in other words, asked as a question ('what is …'), or "
    "turned around by a negation or an antonym ('increases' / 'decreases')",
}
_QUESTION = re.compile(r"^(?:what|how|why|when|where|which|who)\b")


def categorize(test_norm: str, train_norm: str) -> str:
    """How a training query relates to a topic text (both already normalised)."""
    return _judge(test_norm, train_norm, *compared_terms(test_norm, train_norm))


def _judge(
    test_norm: str,
    train_norm: str,
    test_terms: frozenset[str],
    train_terms: frozenset[str],
    turning: frozenset[str],
) -> str:
    """The rule, on the content terms of both texts and those by which one turns the other
    around. A pair so turned is a reformulation, whatever else it changes: the same subject
    asked the other way round, neither narrower nor broader (the study's annotators call
    "are eggs unhealthy" a reformulation of "eggs in a healthy diet")."""
    if turning:
        return "reformulation"
    if test_terms == train_terms:
        same_form = intent_terms(test_norm) == intent_terms(train_norm)
        return "identical" if same_form else "reformulation"
    if (test_terms and test_terms < train_terms) or _adds_year(test_terms, train_terms):
        return "specialization"
    if train_terms and train_terms < test_terms:
        return "generalization"
    return "reformulation"


def _adds_year(test_terms: frozenset[str], train_terms: frozenset[str]) -> bool:
    """The training query names a year the topic text does not and drops none: it restricts
    the need in time, whatever other words it changes."""
    return any(map(YEAR.match, train_terms - test_terms)) and not any(
        map(YEAR.match, test_terms - train_terms)
    )


def relation_features(test_norm: pd.Series, train_norm: pd.Series) -> pd.DataFrame:
    """One row per (topic text, training query), both already normalised (`text.normalize`,
    as detection's pair grid holds them): the rule's relation, whether one turns the other
    around (`polarity`), and the word-level differences between the two."""
    tests, trains = test_norm.reset_index(drop=True), train_norm.reset_index(drop=True)
    rows = []
    for test, train in zip(tests, trains, strict=True):
        a, b, turning = compared_terms(test, train)
        missing, extra = a - b, b - a
        rows.append(
            {
                "rule": _judge(test, train, a, b, turning),
                "opposed": bool(turning),
                "missing": len(missing),
                "extra": len(extra),
                "common": len(a & b),
                "variant_pairs": sum(any(m[:4] == e[:4] for e in extra) for m in missing),
                "extra_year": sum(bool(YEAR.match(e)) for e in extra),
                "same_intent": float(intent_terms(test) == intent_terms(train)),
                "train_question": float(bool(_QUESTION.match(train))),
                "test_question": float(bool(_QUESTION.match(test))),
                "longer": float(len(train.split()) > len(test.split())),
            }
        )
    table = pd.DataFrame(rows)
    for relation in CATEGORIES:
        table[f"rule_{relation}"] = (table.rule == relation).astype(float)
    return table


FEATURES = (
    "missing",
    "extra",
    "common",
    "variant_pairs",
    "extra_year",
    "same_intent",
    "train_question",
    "test_question",
    "longer",
    *(f"rule_{relation}" for relation in CATEGORIES),
)
"""The columns of `relation_features` a fitted relation weighs, in order."""


@dataclass(frozen=True)
class RelationModel:
    """A multinomial logistic regression on standardised features. Where the rule finds the
    same content words asked the same way it says identical, by definition, and where one
    text says the opposite of the other (`polarity`) it is never identical, so in both cases
    the rule answers and the model is not asked: fitted on titles that hold no such pair, it
    called most of SciFact's claims and their negations identical."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]
    """One row per class, in `classes` order."""
    intercepts: tuple[float, ...]
    classes: tuple[str, ...]

    def predict(self, features: pd.DataFrame) -> np.ndarray:
        x = (features[list(FEATURES)].to_numpy(dtype=float) - self.mean) / self.scale
        logits = x @ np.asarray(self.weights).T + np.asarray(self.intercepts)
        guess = np.asarray(self.classes, dtype=object)[np.argmax(logits, axis=1)]
        rule = features.rule.to_numpy()
        return np.where((rule == "identical") | features.opposed.to_numpy(bool), rule, guess)


TITLE_RELATION = RelationModel(
    mean=(
        0.8172,
        0.8414,
        1.8387,
        0.0457,
        0.0134,
        0.9086,
        0.0457,
        0.0000,
        0.3898,
        0.2554,
        0.4677,
        0.1559,
        0.1210,
    ),
    scale=(
        0.8731,
        0.9723,
        0.8985,
        0.2754,
        0.1152,
        0.2882,
        0.2088,
        1.0000,
        0.4877,
        0.4361,
        0.4990,
        0.3628,
        0.3261,
    ),
    weights=(
        (
            0.1615,
            -0.1144,
            0.0120,
            0.0882,
            -0.0184,
            -0.0357,
            0.0280,
            0.0000,
            -0.0858,
            -0.1359,
            0.0112,
            -0.1177,
            0.2955,
        ),
        (
            -0.2396,
            -0.1652,
            0.1099,
            0.0651,
            -0.0311,
            0.0791,
            -0.0255,
            0.0000,
            -0.0969,
            0.4788,
            -0.1951,
            -0.1481,
            -0.1770,
        ),
        (
            -0.0194,
            0.0072,
            -0.0182,
            -0.0619,
            -0.0373,
            -0.0819,
            -0.0053,
            0.0000,
            0.0197,
            -0.1717,
            0.1447,
            -0.0339,
            0.0459,
        ),
        (
            0.0974,
            0.2725,
            -0.1037,
            -0.0914,
            0.0867,
            0.0384,
            0.0028,
            0.0000,
            0.1629,
            -0.1712,
            0.0392,
            0.2997,
            -0.1644,
        ),
    ),
    intercepts=(
        -0.2737,
        -0.0936,
        0.1073,
        0.2600,
    ),
    classes=("generalization", "identical", "reformulation", "specialization"),
)
"""How a training query relates to a topic's title, fitted on the 372 judged title relations
of the development labels (C chosen by grouped CV, `bench/detection_bench.py --fit-relation`).
Against a variant the rule stays: there a fitted relation gained nothing (docs: leakage)."""


def relate(features: pd.DataFrame, fields: pd.Series) -> np.ndarray:
    """Each pair's relation: TITLE_RELATION's where the text is a title, else the rule's."""
    titled = fields.to_numpy() == "title"
    out = features.rule.to_numpy().astype(object)
    if titled.any():
        out[titled] = TITLE_RELATION.predict(features[titled])
    return out
