"""Score (topic, training query) pairs under a detection method: the one entry point that
detection and its evaluation share."""

from __future__ import annotations

import pandas as pd

from leakeval_core.leakage import hybrid
from leakeval_core.leakage.detection_options import encoder_of, is_hybrid
from leakeval_core.leakage.lexical import LexicalModel
from leakeval_core.leakage.similarity import base_similarity, categories, match

__all__ = ["score_pairs"]


def score_pairs(
    test_table: pd.DataFrame,
    topics: pd.DataFrame,
    pairs: pd.DataFrame,
    method: str,
    lexical: LexicalModel,
    model: hybrid.HybridModel | None = None,
    device: str = "auto",
) -> pd.DataFrame:
    """Similarity, matched field and text, and category of each pair under `method`.

    `test_table` is the test side's texts (TopicTexts.table), `topics` its whole topics
    (collection, test_qid, title, description, narrative) and `pairs` the candidates
    (collection, test_qid, train_text); `device` is where the method's encoder runs.
    Returns a frame aligned with `pairs`: similarity, field, test_text, category.
    """
    matches = match(test_table, pairs, method, lexical, device)
    if is_hybrid(method):
        features = hybrid.pair_features(matches, topics, pairs)
        similarity = hybrid.score(features, model or hybrid.MODELS[encoder_of(method)])
    else:
        similarity = base_similarity(matches, len(pairs))
    return categories(matches, pairs).assign(similarity=similarity)[
        ["similarity", "field", "test_text", "category"]
    ]
