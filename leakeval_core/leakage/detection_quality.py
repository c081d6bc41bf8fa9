"""How well a detection method agrees with people: scored against labelled pairs.

Every method scores the labelled pairs exactly as detection scores candidates
(`methods.score_pairs`, the topic's title, description and variants as the test side). What
is fitted (the hybrid's weights, every threshold) is reported cross-validated: 5 folds grouped
by topic, so no topic is judged by a model or threshold that saw it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.leakage import hybrid
from leakeval_core.leakage.detect import topic_texts
from leakeval_core.leakage.detection_options import ENCODER_FLOOR, METHODS, encoder_of, is_hybrid
from leakeval_core.leakage.labels import RELATIONS, LabelledPairs
from leakeval_core.leakage.lexical import LexicalModel
from leakeval_core.leakage.similarity import (
    base_similarity,
    categories,
    lexical_similarity,
    match,
)
from leakeval_core.leakage.text import normalize

__all__ = [
    "TARGET_RECALL",
    "DetectionQuality",
    "at_threshold",
    "evaluate_detection",
    "labelled_scores",
    "recall_threshold",
]

TARGET_RECALL = 0.9
"""Default thresholds keep this share of the judged near-duplicates (the study's candidates
are the hard end: the rejected share of look-alikes at this recall is the figure to beat)."""


@dataclass(frozen=True)
class DetectionQuality:
    """One method against one labels file."""

    method: str
    pairs: int
    near_duplicates: int
    different: int
    topics: int
    roc_auc: float
    pr_auc: float
    rejected_at_90: float
    """Share of different-topic pairs scored below the similarity that keeps 90% of the
    near-duplicates."""
    rejected_at_95: float
    threshold: float
    """The method's threshold: the highest similarity that keeps 90% of all judged
    near-duplicates (the default it ships with)."""
    precision: float
    recall: float
    f1: float
    """At thresholds chosen on the other folds' topics (grouped cross-validation)."""
    category_agreement: float
    """Share of near-duplicates whose category equals the annotators' relation to the text
    they matched best (the variant, else the title)."""
    confusion: pd.DataFrame = field(repr=False)
    """Pairs by the method's verdict (rows: `different` below the threshold, else the
    category) and the annotators' relation (columns)."""
    scored: pd.DataFrame = field(repr=False)
    """Per pair: topic, train_text, near_duplicate, similarity (out of fold where fitted),
    field, test_text, category, relation, verdict, fold threshold."""
    cross_validated: bool
    folds: int

    def as_dict(self) -> dict:
        """Everything but the per-pair table, as JSON-able values."""
        out = {
            k: getattr(self, k)
            for k in (
                "method",
                "pairs",
                "near_duplicates",
                "different",
                "topics",
                "roc_auc",
                "pr_auc",
                "rejected_at_90",
                "rejected_at_95",
                "threshold",
                "precision",
                "recall",
                "f1",
                "category_agreement",
                "cross_validated",
                "folds",
            )
        }
        out["confusion"] = {
            str(row): {str(col): int(v) for col, v in values.items()}
            for row, values in self.confusion.to_dict("index").items()
        }
        return out


def labelled_scores(labels: LabelledPairs) -> tuple[pd.DataFrame, pd.DataFrame, LexicalModel]:
    """The labelled pairs as detection sees them: the test side's texts, the pairs, and a
    lexical model whose IDF is fitted on the topic texts and the labelled queries (the
    stand-in for the log sample detection fits it on)."""
    side = topic_texts(labels.topics, ("title", "description"), labels.variants)
    pairs = labels.table.rename(columns={"topic": "test_qid"}).assign(collection="")
    model = LexicalModel(2**20)
    model.fit(model.counts(pd.concat([side.table.norm, normalize(pairs.train_text)])))
    return side, pairs.reset_index(drop=True), model


def recall_threshold(scores: np.ndarray, positive: np.ndarray, recall: float) -> float:
    """The highest score that keeps at least `recall` of the positives at or above it."""
    ranked = np.sort(np.asarray(scores)[np.asarray(positive, bool)])[::-1]
    if not len(ranked):
        return 0.0
    return float(ranked[min(len(ranked) - 1, int(np.ceil(recall * len(ranked))) - 1)])


def evaluate_detection(labels: LabelledPairs, method: str, folds: int = 5) -> DetectionQuality:
    """Score `method` against the labels: ROC and PR AUC, rejection at 90/95% recall,
    cross-validated precision/recall/F1 at chosen thresholds, and category agreement."""
    from sklearn.metrics import average_precision_score, roc_auc_score
    from sklearn.model_selection import GroupKFold

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}")
    side, pairs, lexical = labelled_scores(labels)
    y = pairs.near_duplicate.to_numpy(dtype=int)
    groups = pairs.test_qid.to_numpy()
    n_folds = min(folds, len(np.unique(groups)))
    split = list(GroupKFold(n_splits=n_folds).split(pairs, y, groups))
    matches = match(side.table, pairs, method, lexical)
    if is_hybrid(method):
        features = hybrid.pair_features(matches, side.topics, pairs)
        similarity = np.zeros(len(pairs))
        for train, test in split:
            model = hybrid.fit(features.iloc[train], y[train])
            similarity[test] = hybrid.score(features.iloc[test], model)
        threshold_scores = hybrid.score(features, hybrid.fit(features, y))
    else:
        similarity = base_similarity(matches, len(pairs))
        threshold_scores = similarity
    if encoder_of(method) is not None:  # scored as detection scores it: unembedded, 0
        under = lexical_similarity(matches, len(pairs)) < ENCODER_FLOOR
        similarity = np.where(under, 0.0, similarity)
        threshold_scores = np.where(under, 0.0, threshold_scores)
    fold_threshold = np.zeros(len(pairs))
    for train, test in split:
        fold_threshold[test] = recall_threshold(similarity[train], y[train] == 1, TARGET_RECALL)
    predicted = similarity >= fold_threshold
    scored = pairs[["test_qid", "train_qid", "train_text", "near_duplicate"]].rename(
        columns={"test_qid": "topic"}
    )
    scored = pd.concat([scored, categories(matches, pairs)], axis=1)
    scored["similarity"] = similarity
    scored["relation"] = np.where(
        (scored.field == "variant") & (pairs.variant_relation != ""),
        pairs.variant_relation,
        pairs.title_relation,
    )
    scored["fold_threshold"] = fold_threshold
    scored["verdict"] = np.where(predicted, scored.category, "different")
    near = scored[scored.near_duplicate == 1]
    tp = int((predicted & (y == 1)).sum())
    precision = tp / max(int(predicted.sum()), 1)
    recall = tp / max(int((y == 1).sum()), 1)
    confusion = pd.crosstab(scored.verdict, scored.relation).reindex(
        index=list(RELATIONS), columns=list(RELATIONS), fill_value=0
    )
    return DetectionQuality(
        method=method,
        pairs=len(pairs),
        near_duplicates=int((y == 1).sum()),
        different=int((y == 0).sum()),
        topics=len(np.unique(groups)),
        roc_auc=_safe(roc_auc_score, y, similarity),
        pr_auc=_safe(average_precision_score, y, similarity),
        rejected_at_90=_rejected(similarity, y, 0.90),
        rejected_at_95=_rejected(similarity, y, 0.95),
        threshold=recall_threshold(threshold_scores, y == 1, TARGET_RECALL),
        precision=precision,
        recall=recall,
        f1=2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        category_agreement=float((near.category == near.relation).mean()) if len(near) else 0.0,
        confusion=confusion,
        scored=scored,
        cross_validated=is_hybrid(method),
        folds=n_folds,
    )


def at_threshold(quality: DetectionQuality, threshold: float) -> dict[str, float]:
    """Precision, recall and F1 of flagging pairs at `threshold` (the app's slider), on the
    same out-of-fold similarities the other figures use."""
    scored = quality.scored
    flagged = scored.similarity >= threshold
    positive = scored.near_duplicate == 1
    tp = int((flagged & positive).sum())
    precision = tp / int(flagged.sum()) if flagged.any() else float("nan")
    recall = tp / int(positive.sum()) if positive.any() else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"flagged": int(flagged.sum()), "precision": precision, "recall": recall, "f1": f1}


def _rejected(scores: np.ndarray, y: np.ndarray, recall: float) -> float:
    if not (y == 0).any():
        return float("nan")
    cut = recall_threshold(scores, y == 1, recall)
    return float((scores[y == 0] < cut).mean())


def _safe(metric, y: np.ndarray, scores: np.ndarray) -> float:
    return float(metric(y, scores)) if len(np.unique(y)) == 2 else float("nan")
