"""How a training query relates to a topic text: identical, reformulation, specialization or
generalization.

`text.categorize` is a rule written while reading the development labels. Against a title it
agrees with the annotators on 59% of pairs, so there a multinomial logistic model decides,
over what the rule looks at (its own answer, which content words each side lacks, question
form) and signs the rule ignores (a missing word and an added one sharing their first
letters, an added year). `relation_selection` measures both on held-out topics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leakeval_core.leakage.text import categorize, content_terms, intent_terms

__all__ = [
    "CATEGORIES",
    "FEATURES",
    "HOW_RELATED",
    "TITLE_RELATION",
    "RelationModel",
    "fit_relation",
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
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_QUESTION = re.compile(r"^(?:what|how|why|when|where|which|who)\b")


def relation_features(test_norm: pd.Series, train_norm: pd.Series) -> pd.DataFrame:
    """One row per (topic text, training query), both already normalised (`text.normalize`,
    as detection's pair grid holds them): the rule's relation and the word-level differences
    between the two."""
    tests, trains = test_norm.reset_index(drop=True), train_norm.reset_index(drop=True)
    rows = []
    for test, train in zip(tests, trains, strict=True):
        a, b = content_terms(test), content_terms(train)
        missing, extra = a - b, b - a
        rows.append(
            {
                "rule": categorize(test, train),
                "missing": len(missing),
                "extra": len(extra),
                "common": len(a & b),
                "variant_pairs": sum(any(m[:4] == e[:4] for e in extra) for m in missing),
                "extra_year": sum(bool(_YEAR.match(e)) for e in extra),
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
    same content words asked the same way it says identical, by definition, and the model is
    not asked."""

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
        return np.where(rule == "identical", rule, guess)


TITLE_RELATION = RelationModel(
    mean=(
        0.8656,
        0.8844,
        1.8118,
        0.0618,
        0.0134,
        0.9086,
        0.0457,
        0.0000,
        0.3898,
        0.2392,
        0.4946,
        0.1398,
        0.1263,
    ),
    scale=(
        0.8696,
        0.9919,
        0.9052,
        0.2723,
        0.1152,
        0.2882,
        0.2088,
        1.0000,
        0.4877,
        0.4266,
        0.5000,
        0.3468,
        0.3322,
    ),
    weights=(
        (
            0.4188,
            -0.4045,
            0.1307,
            0.0744,
            -0.0323,
            -0.0366,
            0.0528,
            0.0000,
            -0.0443,
            -0.1970,
            0.0618,
            -0.3116,
            0.4852,
        ),
        (
            -0.5473,
            -0.1741,
            0.1475,
            0.3556,
            -0.0619,
            0.1981,
            0.0378,
            0.0000,
            -0.1780,
            0.8176,
            -0.2959,
            -0.2860,
            -0.3061,
        ),
        (
            -0.2158,
            0.0931,
            -0.1284,
            -0.3025,
            -0.0931,
            -0.1735,
            -0.0953,
            0.0000,
            -0.0120,
            -0.3149,
            0.1507,
            -0.0172,
            0.1955,
        ),
        (
            0.3443,
            0.4856,
            -0.1498,
            -0.1275,
            0.1873,
            0.0120,
            0.0047,
            0.0000,
            0.2343,
            -0.3057,
            0.0834,
            0.6149,
            -0.3747,
        ),
    ),
    intercepts=(
        -0.2701,
        -0.2135,
        0.3633,
        0.1202,
    ),
    classes=("generalization", "identical", "reformulation", "specialization"),
)
"""How a training query relates to a topic's title, fitted on the 372 judged title relations
of the development labels (C chosen by grouped CV, `bench/detection_bench.py --fit-relation`).
Against a variant the rule stays: there a fitted relation gained nothing (README)."""


def relate(features: pd.DataFrame, fields: pd.Series) -> np.ndarray:
    """Each pair's relation: TITLE_RELATION's where the text is a title, else the rule's."""
    titled = fields.to_numpy() == "title"
    out = features.rule.to_numpy().astype(object)
    if titled.any():
        out[titled] = TITLE_RELATION.predict(features[titled])
    return out


def fit_relation(features: pd.DataFrame, truth: np.ndarray, c: float) -> RelationModel:
    """The model at regularisation `c` (sklearn's C) fitted on these pairs."""
    from sklearn.linear_model import LogisticRegression

    x = features[list(FEATURES)].to_numpy(dtype=float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)  # a feature constant here adds nothing
    model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, truth)
    weights, intercepts = model.coef_, model.intercept_
    if len(model.classes_) == 2:  # one row, for the second class: the first's logit is 0
        weights = np.vstack([np.zeros_like(weights[0]), weights[0]])
        intercepts = np.r_[0.0, intercepts]
    return RelationModel(
        tuple(map(float, mean)),
        tuple(map(float, scale)),
        tuple(tuple(map(float, row)) for row in weights),
        tuple(map(float, intercepts)),
        tuple(map(str, model.classes_)),
    )
