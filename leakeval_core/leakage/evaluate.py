"""Measuring the near-duplicate methods on labelled (topic, training query) pairs."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from leakeval_core.io.queries import read_queries, read_topics
from leakeval_core.leakage import hybrid
from leakeval_core.leakage.detect import IDF_SAMPLE
from leakeval_core.leakage.lexical import pair_similarity
from leakeval_core.leakage.text import normalize

__all__ = ["cross_validated_auc", "labelled_features", "read_labels"]


def read_labels(path: str | os.PathLike[str]) -> pd.DataFrame:
    """test_qid, train_qid, train_text, near_duplicate (0/1), source."""
    return pd.read_csv(path, sep="\t", dtype={"test_qid": str, "train_qid": str})


def labelled_features(
    topics_path: str | os.PathLike[str],
    labels_path: str | os.PathLike[str],
    log_path: str | os.PathLike[str],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The labelled pairs and their hybrid signals, lexical IDF fitted as `detect` fits it
    (topic texts plus the start of the log)."""
    topics = read_topics(topics_path)
    labels = read_labels(labels_path)
    log = read_queries(log_path)
    topic = topics.set_index("qid").loc[labels.test_qid]
    fit = pd.concat(
        [normalize(topics.title), normalize(topics.description), normalize(log.text[:IDF_SAMPLE])]
    )
    query = normalize(labels.train_text)
    lexical = np.maximum(
        pair_similarity(normalize(topic.title).set_axis(labels.index), query, fit),
        pair_similarity(normalize(topic.description).set_axis(labels.index), query, fit),
    )
    return labels, hybrid.pair_features(topic.reset_index(drop=True), labels.train_text, lexical)


def cross_validated_auc(
    labels: pd.DataFrame, features: pd.DataFrame, folds: int = 5, hard_only: bool = False
) -> dict[str, float]:
    """ROC AUC of each method's similarity; the hybrid is refitted on each training fold and
    scored on the held-out topics only.

    `hard_only` keeps the positives and only the negatives written to share the topic's
    entity but not its need (source "written"), the kind the held-out judgments are made of.
    """
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    y = labels.near_duplicate.to_numpy()
    hybrid_scores = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=folds).split(features, y, labels.test_qid):
        weights, intercept = hybrid.fit_weights(features.iloc[train], y[train])
        hybrid_scores[test] = hybrid.score(features.iloc[test], weights, intercept)
    semantic = features[["semantic_title", "semantic_description"]].max(axis=1).to_numpy()
    keep = (y == 1) | (labels.source.to_numpy() == "written") if hard_only else y >= 0
    return {
        "lexical": float(roc_auc_score(y[keep], features.lexical.to_numpy()[keep])),
        "semantic": float(roc_auc_score(y[keep], semantic[keep])),
        "hybrid": float(roc_auc_score(y[keep], hybrid_scores[keep])),
    }


def demo_auc(experiment) -> dict[str, float]:
    """Each method's ROC AUC on the demo's lexical candidates, planted pairs positive.

    The hybrid keeps its shipped weights (fitted on the Robust04 set only), so this is a
    held-out check on another distribution of topics and queries.
    """
    from sklearn.metrics import roc_auc_score

    from leakeval_core.leakage.detect import DetectionOptions, detect
    from leakeval_core.leakage.table import experiment_topic_texts, ground_truth

    side = experiment_topic_texts(experiment)
    pairs = detect(side, read_queries(experiment.training_queries), DetectionOptions())
    truth = ground_truth(experiment).table[["collection", "test_qid", "train_qid"]]
    planted = pairs.merge(truth.assign(planted=1), how="left", on=list(truth.columns))
    y = planted.planted.fillna(0).to_numpy(dtype=int)
    topics = pairs[["collection", "test_qid"]].merge(
        side.topics, on=["collection", "test_qid"], how="left"
    )
    features = hybrid.pair_features(topics, pairs.train_text, pairs.similarity.to_numpy())
    semantic = features[["semantic_title", "semantic_description"]].max(axis=1)
    return {
        "pairs": len(y),
        "planted": int(y.sum()),
        "lexical": float(roc_auc_score(y, features.lexical)),
        "semantic": float(roc_auc_score(y, semantic)),
        "hybrid": float(roc_auc_score(y, hybrid.score(features))),
    }
