"""Score (topic, training query) pairs under a detection method: the one entry point that
detection and its evaluation share."""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakeval_core.leakage import hybrid
from leakeval_core.leakage.detection_options import ENCODER_FLOOR, encoder_of, is_hybrid
from leakeval_core.leakage.lexical import LexicalModel
from leakeval_core.leakage.similarity import (
    base_similarity,
    categories,
    lexical_similarity,
    match,
)

__all__ = ["score_pairs"]


def score_pairs(
    test_table: pd.DataFrame,
    topics: pd.DataFrame,
    pairs: pd.DataFrame,
    method: str,
    lexical: LexicalModel,
    model: hybrid.HybridModel | None = None,
    device: str = "auto",
    encoder_floor: float = ENCODER_FLOOR,
) -> pd.DataFrame:
    """Similarity, matched field and text, and category of each pair under `method`.

    `test_table` is the test side's texts (TopicTexts.table), `topics` its whole topics
    (collection, test_qid, title, description, narrative) and `pairs` the candidates
    (collection, test_qid, train_text); `device` is where the method's encoder runs. A
    method with an encoder scores only the pairs whose lexical similarity reaches
    `encoder_floor`; the others score 0, unembedded. Returns a frame aligned with `pairs`:
    similarity, field, test_text, category (the category is read from words, whatever the
    method).
    """
    worded = match(test_table, pairs, "lexical", lexical)
    scored = categories(worded, pairs).assign(similarity=lexical_similarity(worded, len(pairs)))
    encoder = encoder_of(method)
    if encoder is not None:
        reached = scored.similarity.to_numpy() >= encoder_floor
        similarity = np.zeros(len(pairs))
        if reached.any():
            chosen = pairs[reached].reset_index(drop=True)
            matches = match(test_table, chosen, method, lexical, device)
            if is_hybrid(method):
                features = hybrid.pair_features(matches, topics, chosen)
                similarity[reached] = hybrid.score(features, model or hybrid.MODELS[encoder])
            else:
                similarity[reached] = base_similarity(matches, len(chosen))
        scored["similarity"] = similarity
    return scored[["similarity", "field", "test_text", "category"]]
