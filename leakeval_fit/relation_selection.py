"""Is a fitted relation better than the rule? Measured as detection quality is
(`detector_selection`): nested, topic-grouped CV.

For each outer fold the rule or the model (`fit_relation`) at one C is chosen by
inner agreement on the training topics; only the held-out topics' agreement is reported,
with an interval from resampling topics within folds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from leakeval_core.leakage.relations import FEATURES, RelationModel
from leakeval_fit.detector_selection import CS, grouped_folds, topic_resamples

__all__ = [
    "RelationResult",
    "agreement_interval",
    "choose_c",
    "fit_relation",
    "nested_relations",
]

RULE = "rule"


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
    model = fit_relation(features.iloc[train], truth[train], c)
    return model.predict(features.iloc[test])


def choose_c(
    features: pd.DataFrame,
    truth: np.ndarray,
    groups: np.ndarray,
    folds: int = 5,
    seed: int = 0,
    candidates: tuple[float | None, ...] | None = None,
) -> tuple[float | None, float]:
    """The candidate (None: the rule) with the best grouped out-of-fold agreement on these
    pairs (ties to the earlier: the rule first), and that agreement. Nested CV runs this
    inside each outer fold; run on every pair, it is the procedure whose outer figure is
    reported, so its choice is what ships."""
    candidates = (None, *CS) if candidates is None else candidates
    splits = grouped_folds(truth, groups, folds, seed + 1)
    agreement = []
    for c in candidates:
        hits = np.zeros(len(truth), dtype=bool)
        for fit, held in splits:
            hits[held] = _fit_predict(features, truth, c, fit, held) == truth[held]
        agreement.append(hits.mean())
    best = int(np.argmax(agreement))
    return candidates[best], float(agreement[best])


def nested_relations(
    features: pd.DataFrame,
    truth: np.ndarray,
    groups: np.ndarray,
    outer: int = 5,
    inner: int = 5,
    seed: int = 0,
    candidates: tuple[float | None, ...] | None = None,
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
        inside = features.iloc[train].reset_index(drop=True)
        best, _ = choose_c(inside, truth[train], groups[train], inner, seed, candidates)
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
