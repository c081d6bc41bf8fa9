"""Honest detection quality: every choice made inside training folds (nested cross-validation).

A detector whose signals, word list, regularisation and encoder are chosen on the same
labelled pairs that then measure it looks better than it is on judgments it has never seen.
Here a detector is a space of
*candidates* (a plain cosine, or a logistic model over some signals at some C). For each
outer fold (topics grouped), the candidate with the best inner grouped-CV ROC AUC on the
training topics is refitted on them and scores the held-out topics, and its threshold is
chosen from its inner out-of-fold scores. Only the outer scores are reported, with an
interval from resampling topics (pairs of one topic are not independent).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from leakeval_core.leakage import hybrid
from leakeval_core.leakage.detection_quality import TARGET_RECALL, labelled_scores, recall_threshold
from leakeval_core.leakage.labels import LabelledPairs
from leakeval_core.leakage.similarity import base_similarity, match
from leakeval_fit.encoder_floor import choose_floor

__all__ = [
    "Candidate",
    "NestedResult",
    "calibration",
    "candidate_space",
    "choose_candidate",
    "fold_auc",
    "grouped_folds",
    "nested_cross_validation",
    "signal_table",
    "topic_bootstrap",
    "topic_resamples",
]

WHAT_IS = r"^what (?:is|are|was|were|does|do)\b"
DEFINE_WORD = r"\b(?:define|definition|definitions|defined|meaning|means|mean)\b"
"""The two halves of `hybrid.ASKS_DEFINITION`: the selection may keep either, both or none,
which is as far as the word list can be re-chosen without writing new words from the labels."""

CS = (0.001, 0.01, 0.1, 1.0)
"""Regularisation strengths tried (sklearn's C: smaller is stronger)."""


@dataclass(frozen=True)
class Candidate:
    """One way to score pairs: a single signal as it is (`c` None), or a logistic model over
    `signals` at regularisation `c`."""

    signals: tuple[str, ...]
    c: float | None = None

    @property
    def embeds(self) -> bool:
        """Whether a signal comes from a sentence encoder (named `encoder:signal`)."""
        return any(":" in signal for signal in self.signals)

    @property
    def name(self) -> str:
        body = " + ".join(self.signals)
        return body if self.c is None else f"logistic({body}; C={self.c:g})"

    def fit_score(
        self, features: pd.DataFrame, y: np.ndarray, train: np.ndarray, test: np.ndarray
    ) -> np.ndarray:
        """Scores of the `test` rows, fitted on the `train` rows where there is anything to
        fit."""
        if self.c is None:
            return features[self.signals[0]].to_numpy(dtype=float)[test]
        model = hybrid.fit(features.iloc[train], y[train], self.c, self.signals)
        return hybrid.score(features.iloc[test], model)


@dataclass(frozen=True)
class NestedResult:
    """Outer-fold figures of one candidate space."""

    scores: np.ndarray
    """Each pair's P(near-duplicate) from the candidate chosen without its topic, calibrated
    on the training topics."""
    thresholds: np.ndarray
    """Each pair's threshold, chosen from the inner out-of-fold scores (90% recall)."""
    chosen: tuple[str, ...]
    """The candidate chosen in each outer fold."""
    y: np.ndarray
    groups: np.ndarray
    folds: np.ndarray
    """Each pair's outer fold."""

    def roc_auc(self) -> float:
        """The mean over outer folds of the ROC AUC within the fold."""
        return fold_auc(self.y, self.scores, self.folds)

    def brier(self) -> float:
        """Mean squared error of the probabilities: how far P(near-duplicate) can be read
        as one."""
        return float(np.mean((self.scores - self.y) ** 2))

    def rejected_at(self, recall: float) -> float:
        """Share of different needs below the cut that keeps `recall` of the near-duplicates,
        on the pooled calibrated outer scores."""
        cut = recall_threshold(self.scores, self.y == 1, recall)
        return float((self.scores[self.y == 0] < cut).mean())

    def at_fold_thresholds(self) -> dict[str, float]:
        """Precision and recall of flagging at thresholds chosen without the pair's topic."""
        flagged = self.scores >= self.thresholds
        positive = self.y == 1
        tp = int((flagged & positive).sum())
        return {
            "precision": tp / max(int(flagged.sum()), 1),
            "recall": tp / max(int(positive.sum()), 1),
            "different_rejected": float((~flagged[~positive]).mean()),
        }


def signal_table(labels: LabelledPairs, encoders: tuple[str, ...]) -> pd.DataFrame:
    """Every signal a candidate may use, per labelled pair: `lexical`, and per encoder E
    `E:cosine` (the semantic method's similarity, clipped to [0, 1] as it ships), the hybrid's
    `E:semantic`, `E:need_shift`, `E:title_coverage`, `E:matched_coverage`,
    `E:asks_definition` and its halves `E:what_is`, `E:define_word` (the coverage and word
    signals depend on the encoder through the topic text it matched best)."""
    from leakeval_core.leakage.text import normalize

    side, pairs, lexical = labelled_scores(labels)
    out = {"lexical": base_similarity(match(side.table, pairs, "lexical", lexical), len(pairs))}
    queries = normalize(pairs.train_text).reset_index(drop=True)
    for encoder in encoders:
        method = "hybrid" if encoder == "minilm" else f"hybrid-{encoder}"
        matches = match(side.table, pairs, method, lexical)
        features = hybrid.pair_features(matches, side.topics, pairs)
        out[f"{encoder}:cosine"] = base_similarity(matches, len(pairs))
        for name in hybrid.FEATURES:
            out[f"{encoder}:{name}"] = features[name].to_numpy()
        asks = features.asks_definition.to_numpy() > 0
        out[f"{encoder}:what_is"] = (asks & queries.str.contains(WHAT_IS)).to_numpy(float)
        out[f"{encoder}:define_word"] = (asks & queries.str.contains(DEFINE_WORD)).to_numpy(float)
    return pd.DataFrame(out)


def candidate_space(
    family: str, encoders: tuple[str, ...] = ("minilm", "mpnet")
) -> list[Candidate]:
    """The choices behind one method, made inside training folds.

    `lexical` and `semantic[-E]` are plain cosines: nothing to choose. `hybrid[-E]`: E's
    cosine plus any subset of need_shift, title_coverage, matched_coverage, with no
    definition signal, either half of the word list or both, at each C. `ensemble`: the
    MiniLM hybrid's space with the other encoders' cosines and need shifts added. `all`:
    every candidate of every family, the cosines through a one-signal logistic fit.
    """
    if family == "lexical":
        return [Candidate(("lexical",))]
    if family.startswith("semantic"):
        return [Candidate((f"{_encoder(family)}:cosine",))]
    if family.startswith("hybrid"):
        return _logistic_space(_encoder(family), ())
    if family == "ensemble":
        first, *others = encoders
        extra = tuple(f"{e}:{s}" for e in others for s in ("semantic", "need_shift"))
        return _logistic_space(first, extra)
    if family == "all":
        # every candidate a probability: outer folds that chose different candidates are
        # pooled, and a raw cosine is on another scale (a monotone fit keeps its ranking)
        cosines = [Candidate(("lexical",), 1.0)] + [
            Candidate((f"{e}:cosine",), 1.0) for e in encoders
        ]
        fitted = [f"hybrid{'' if e == 'minilm' else '-' + e}" for e in encoders]
        if len(encoders) > 1:
            fitted.append("ensemble")
        return cosines + [c for f in fitted for c in candidate_space(f, encoders)]
    raise ValueError(f"unknown family {family!r}")


def nested_cross_validation(
    candidates: list[Candidate],
    features: pd.DataFrame,
    y: np.ndarray,
    groups: np.ndarray,
    outer: int = 5,
    inner: int = 5,
    seed: int = 0,
    lexical: np.ndarray | None = None,
) -> NestedResult:
    """Outer grouped folds; inside each, the candidate with the best inner grouped-CV ROC AUC
    (ties to the earlier, simpler candidate) is refitted on the training topics.

    With the pairs' `lexical` similarity, a candidate that embeds is scored as detection
    scores it: a held-out pair under the encoder floor chosen on the training topics
    (`encoder_floor.choose_floor`) is never embedded, and scores 0."""
    y = np.asarray(y, dtype=int)
    groups = np.asarray(groups)
    scores = np.zeros(len(y))
    thresholds = np.zeros(len(y))
    fold_of = np.zeros(len(y), dtype=int)
    chosen = []
    for fold, (train, test) in enumerate(grouped_folds(y, groups, outer, seed)):
        fold_of[test] = fold
        best, inner_scores = choose_candidate(
            candidates, features.iloc[train], y[train], groups[train], inner, seed
        )
        chosen.append(best.name)
        calibrate = calibration(inner_scores, y[train])
        scores[test] = calibrate(best.fit_score(features, y, train, test))
        if lexical is not None and best.embeds:
            floor = choose_floor(lexical[train], y[train] == 1)
            scores[test[lexical[test] < floor]] = 0.0
        thresholds[test] = recall_threshold(calibrate(inner_scores), y[train] == 1, TARGET_RECALL)
    return NestedResult(scores, thresholds, tuple(chosen), y, groups, fold_of)


def calibration(scores: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Platt scaling fitted on out-of-fold scores: a monotone map to P(near-duplicate) among
    pairs like the judged ones. Outer folds may choose different candidates, on different
    scales (a cosine, a strongly regularised probability near 0.5); mapped to probabilities
    they can be pooled, and a threshold means the same in every fold."""
    from sklearn.linear_model import LogisticRegression

    y = np.asarray(y, int)
    model = LogisticRegression(C=1e6, max_iter=2000)
    model.fit(np.asarray(scores, float).reshape(-1, 1), y)
    if model.coef_[0, 0] < 0:  # a higher similarity never means less alike: no information
        return lambda s: np.full(len(s), y.mean())
    return lambda s: model.predict_proba(np.asarray(s, float).reshape(-1, 1))[:, 1]


def choose_candidate(
    candidates: list[Candidate],
    features: pd.DataFrame,
    y: np.ndarray,
    groups: np.ndarray,
    folds: int = 5,
    seed: int = 0,
) -> tuple[Candidate, np.ndarray]:
    """The candidate with the best grouped-CV ROC AUC on these pairs (ties to the earlier,
    simpler one) and its out-of-fold scores. Nested CV runs this inside each outer fold; run
    on every pair, it is the procedure whose outer figure is reported, so its choice is what
    may ship."""
    y, groups = np.asarray(y, dtype=int), np.asarray(groups)
    splits = grouped_folds(y, groups, folds, seed + 1)  # one split for every candidate
    scored = [_out_of_fold(c, features, y, splits) for c in candidates]
    best = int(np.argmax([_auc(y, s) for s in scored]))
    return candidates[best], scored[best]


def fold_auc(y: np.ndarray, scores: np.ndarray, folds: np.ndarray) -> float:
    """Mean ROC AUC within each fold. Each outer fold ranks its pairs by its own model; pooled
    across folds, the ranking would also depend on how each fold's model happened to be
    scaled, which no deployed model has (folds without both classes are left out)."""
    from sklearn.metrics import roc_auc_score

    values = [
        roc_auc_score(y[folds == f], scores[folds == f])
        for f in np.unique(folds)
        if len(np.unique(y[folds == f])) == 2
    ]
    return float(np.mean(values))


def topic_bootstrap(
    result: NestedResult,
    reps: int = 2000,
    seed: int = 0,
    against: NestedResult | None = None,
) -> tuple[float, float]:
    """95% percentile interval of `result.roc_auc()`, or of its difference from `against`'s
    on the same resampled topics (both on the same outer folds)."""
    y, folds = result.y, result.folds
    if against is not None and not np.array_equal(against.folds, folds):
        raise ValueError("a paired interval needs both results on the same outer folds")
    values = []
    for rows in topic_resamples(result.groups, folds, reps, seed):
        value = fold_auc(y[rows], result.scores[rows], folds[rows])
        if against is not None:
            value -= fold_auc(y[rows], against.scores[rows], folds[rows])
        values.append(value)
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def topic_resamples(
    groups: np.ndarray, folds: np.ndarray, reps: int, seed: int
) -> Iterator[np.ndarray]:
    """Row indices of `reps` bootstrap resamples that draw topics with replacement within
    each outer fold: a topic's pairs share its texts, so they are not independent draws."""
    topics, index = np.unique(groups, return_inverse=True)
    members = [np.flatnonzero(index == t) for t in range(len(topics))]
    fold_topics = [np.unique(index[folds == f]) for f in np.unique(folds)]
    rng = np.random.default_rng(seed)
    for _ in range(reps):
        yield np.concatenate([members[t] for ts in fold_topics for t in rng.choice(ts, len(ts))])


def _encoder(family: str) -> str:
    return family.split("-", 1)[1] if "-" in family else "minilm"


def _logistic_space(encoder: str, extra: tuple[str, ...]) -> list[Candidate]:
    optional = tuple(f"{encoder}:{s}" for s in ("need_shift", "title_coverage", "matched_coverage"))
    definitions = (
        (),
        (f"{encoder}:asks_definition",),
        (f"{encoder}:what_is",),
        (f"{encoder}:define_word",),
    )
    subsets = [s for k in range(len(optional) + 1) for s in combinations(optional, k)]
    return [
        Candidate((f"{encoder}:semantic", *extra, *subset, *words), c)
        for subset in subsets
        for words in definitions
        for c in CS
    ]


def grouped_folds(y: np.ndarray, groups: np.ndarray, n: int, seed: int) -> list:
    """n shuffled folds that keep each topic's pairs together (fewer with fewer topics)."""
    from sklearn.model_selection import GroupKFold

    n = min(n, len(np.unique(groups)))
    return list(GroupKFold(n_splits=n, shuffle=True, random_state=seed).split(y, y, groups))


def _out_of_fold(
    candidate: Candidate, features: pd.DataFrame, y: np.ndarray, splits: list
) -> np.ndarray:
    if candidate.c is None:
        return features[candidate.signals[0]].to_numpy(dtype=float)
    scores = np.zeros(len(y))
    for train, test in splits:
        scores[test] = candidate.fit_score(features, y, train, test)
    return scores


def _auc(y: np.ndarray, scores: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, scores)) if len(np.unique(y)) == 2 else float("-inf")
