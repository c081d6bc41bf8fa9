"""Is a fitted relation (identical, reformulation, specialization, generalization) better than
the rule? Measured as detection quality is (`selection`): nested, topic-grouped CV.

`text.categorize` is a rule written while reading the development labels, so its agreement
on them is optimistic. The alternative here is a multinomial logistic model over what the
rule looks at (its own answer, which content words each side lacks, question form) plus
signs the rule ignores (a missing word and an added one sharing a stem's first letters, an
added year). For each outer fold the rule or the model at one C is chosen by inner agreement
on the training topics; only the held-out topics' agreement is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leakeval_core.leakage.selection import CS, grouped_folds, topic_resamples
from leakeval_core.leakage.text import categorize, content_terms, intent_terms, normalize

__all__ = [
    "RELATIONS",
    "RelationResult",
    "agreement_interval",
    "nested_relations",
    "relation_features",
]

RELATIONS = ("identical", "reformulation", "specialization", "generalization")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_QUESTION = re.compile(r"^(?:what|how|why|when|where|which|who)\b")
RULE = "rule"


def relation_features(test_texts: pd.Series, train_texts: pd.Series) -> pd.DataFrame:
    """One row per (topic text, training query): the rule's relation and the word-level
    differences between the two."""
    tests, trains = (
        normalize(test_texts.reset_index(drop=True)),
        normalize(train_texts.reset_index(drop=True)),
    )
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
    for relation in RELATIONS:
        table[f"rule_{relation}"] = (table.rule == relation).astype(float)
    return table


@dataclass(frozen=True)
class RelationResult:
    predicted: np.ndarray
    truth: np.ndarray
    groups: np.ndarray
    folds: np.ndarray
    chosen: tuple[str, ...]
    """Per outer fold: `rule` or `logistic(C=…)`."""

    def agreement(self, rows: np.ndarray | None = None) -> float:
        """Mean over outer folds of the share of pairs whose relation is the annotators'."""
        rows = np.arange(len(self.truth)) if rows is None else rows
        hit, folds = self.predicted[rows] == self.truth[rows], self.folds[rows]
        return float(np.mean([hit[folds == f].mean() for f in np.unique(folds)]))


def _fit_predict(features: pd.DataFrame, truth: np.ndarray, c: float | None, train, test):
    if c is None:
        return features.rule.to_numpy()[test]
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = features.drop(columns="rule").to_numpy(dtype=float)
    scale = StandardScaler().fit(x[train])
    model = LogisticRegression(C=c, max_iter=5000).fit(scale.transform(x[train]), truth[train])
    return model.predict(scale.transform(x[test]))


def nested_relations(
    features: pd.DataFrame,
    truth: np.ndarray,
    groups: np.ndarray,
    outer: int = 5,
    inner: int = 5,
    seed: int = 0,
    candidates: tuple[float | None, ...] = (None, *CS),
) -> RelationResult:
    """Outer topic-grouped folds; in each, the candidate (None: the rule; a C: the logistic
    model) with the best inner out-of-fold agreement (ties to the earlier: the rule first)
    predicts the held-out topics."""
    truth, groups = np.asarray(truth), np.asarray(groups)
    predicted = np.empty(len(truth), dtype=object)
    fold_of = np.zeros(len(truth), dtype=int)
    chosen = []
    for fold, (train, test) in enumerate(grouped_folds(truth, groups, outer, seed)):
        fold_of[test] = fold
        splits = grouped_folds(truth[train], groups[train], inner, seed + 1)
        inner_agreement = []
        for c in candidates:
            hits = np.zeros(len(train), dtype=bool)
            for fit, held in splits:
                guess = _fit_predict(features, truth, c, train[fit], train[held])
                hits[held] = guess == truth[train[held]]
            inner_agreement.append(hits.mean())
        best = candidates[int(np.argmax(inner_agreement))]
        chosen.append(RULE if best is None else f"logistic(C={best:g})")
        predicted[test] = _fit_predict(features, truth, best, train, test)
    return RelationResult(predicted, truth, groups, fold_of, tuple(chosen))


def agreement_interval(
    result: RelationResult,
    reps: int = 2000,
    seed: int = 0,
    against: RelationResult | None = None,
) -> tuple[float, float]:
    """95% percentile interval of the agreement (or of its difference from `against`'s, on
    the same outer folds), resampling topics within each outer fold."""
    values = [
        result.agreement(rows) - (against.agreement(rows) if against is not None else 0.0)
        for rows in topic_resamples(result.groups, result.folds, reps, seed)
    ]
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)
