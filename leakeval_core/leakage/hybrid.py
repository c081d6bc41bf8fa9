"""The hybrid near-duplicate score: lexical and semantic similarity plus two term signals.

Why more than one similarity: the hard negatives in a query log share the topic title's
words but not its need ("hubble telescope location" against "Hubble Telescope
Achievements"). Character n-grams and sentence embeddings both score those high. What
separates them is whether the training query's other words belong to the topic's need, which
the description and narrative spell out, and whether the query covers the title at all.

Signals, each in [0, 1], for one (topic, training query) pair:
- `lexical`: TF-IDF cosine (char 3-grams + words), max over title and description;
- `semantic_title`, `semantic_description`: MiniLM cosine to the title and to the description;
- `novel_terms`: share of the query's content words found nowhere in the topic's title,
  description or narrative (a query about something else);
- `title_coverage`: share of the title's content words the query contains.

They are combined by logistic regression, whose probability is the hybrid `similarity`.
Its default threshold is the detector's 0.8, not the balanced 0.5: near-duplicates are
rare in a real log, so precision matters more than on the labelled set (23% positive).
Cross-validated on that set, 0.8 gives precision 0.98 and recall 0.71; 0.5 gives 0.78 /
0.92 and flags 12 Robust04 topics against the real MS MARCO sample, mostly on definitional
queries ("what is rap", "medical definition of obesity"), where 0.8 flags two: the one
real match ("how to layer a compost pile") and "who are the balkans".

The weights below were fitted by `fit_weights` on `labels/robust04-msmarco.tsv` (see
`bench/hybrid_bench.py`, which also reports the cross-validated AUC of each method).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakeval_core.leakage.text import content_terms, normalize

__all__ = ["FEATURES", "INTERCEPT", "WEIGHTS", "fit_weights", "pair_features", "score"]

FEATURES = ("lexical", "semantic_title", "semantic_description", "novel_terms", "title_coverage")
WEIGHTS = {
    "lexical": 0.219,
    "semantic_title": 2.461,
    "semantic_description": 6.560,
    "novel_terms": -2.108,
    "title_coverage": 0.468,
}
INTERCEPT = -5.335


def _stems(text: str) -> frozenset[str]:
    """Content words with a plural 's' dropped: enough for 'tires' to meet 'tire'."""
    return frozenset(t[:-1] if len(t) > 3 and t.endswith("s") else t for t in content_terms(text))


def pair_features(topics: pd.DataFrame, train_text: pd.Series, lexical: np.ndarray) -> pd.DataFrame:
    """The hybrid's signals for each pair.

    `topics` holds each pair's topic (title, description, narrative), row-aligned with
    `train_text`; `lexical` is each pair's lexical similarity (the detector's, max over the
    topic's texts).
    """
    from leakeval_core.leakage.semantic import cosine_pairs

    title = normalize(topics.title)
    need = normalize(topics.title + " " + topics.description + " " + topics.narrative)
    query_terms = [_stems(q) for q in normalize(train_text)]
    novel = [
        len(q - _stems(n)) / len(q) if q else 0.0 for q, n in zip(query_terms, need, strict=True)
    ]
    coverage = [
        len(_stems(t) & q) / len(_stems(t)) if _stems(t) else 0.0
        for t, q in zip(title, query_terms, strict=True)
    ]
    queries = train_text.tolist()
    return pd.DataFrame(
        {
            "lexical": np.asarray(lexical, dtype=np.float64),
            "semantic_title": cosine_pairs(topics.title.tolist(), queries),
            "semantic_description": cosine_pairs(topics.description.tolist(), queries),
            "novel_terms": novel,
            "title_coverage": coverage,
        }
    )


def score(
    features: pd.DataFrame,
    weights: dict[str, float] | None = None,
    intercept: float | None = None,
) -> np.ndarray:
    """The hybrid similarity in [0, 1]: the logistic model's probability of a near-duplicate."""
    weights = WEIGHTS if weights is None else weights
    intercept = INTERCEPT if intercept is None else intercept
    z = features[list(FEATURES)].to_numpy() @ np.array([weights[f] for f in FEATURES])
    return 1.0 / (1.0 + np.exp(-(z + intercept)))


def fit_weights(features: pd.DataFrame, labels: np.ndarray) -> tuple[dict[str, float], float]:
    """Logistic-regression weights (L2, C=1, classes balanced) for the signals."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)
    model.fit(features[list(FEATURES)].to_numpy(), np.asarray(labels, dtype=int))
    weights = {f: float(w) for f, w in zip(FEATURES, model.coef_[0], strict=True)}
    return weights, float(model.intercept_[0])
