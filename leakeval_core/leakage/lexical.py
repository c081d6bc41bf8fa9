"""The lexical similarity: hashed TF-IDF over character 3-grams plus words.

Features are hashed (scikit-learn's HashingVectorizer), so there is no vocabulary to fit;
inverse document frequencies are fitted once, and every later transform is a pure function
of the text, which is what lets a log be compared chunk by chunk, anywhere.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["LexicalModel", "pair_similarity"]


class LexicalModel:
    """Hashed char-3-gram + word TF-IDF with IDF fitted once; a pure chunk transform after."""

    def __init__(self, n_features: int) -> None:
        from sklearn.feature_extraction.text import HashingVectorizer

        common = {
            "n_features": n_features,
            "alternate_sign": False,
            "norm": None,
            "lowercase": False,
            "dtype": np.float32,
        }
        self._chars = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 3), **common)
        self._words = HashingVectorizer(analyzer="word", token_pattern=r"\S+", **common)
        self._idf = np.ones(n_features * 2, dtype=np.float32)

    def fit(self, counts) -> None:
        """Inverse document frequencies from the rows of a count matrix."""
        df = np.bincount(counts.indices, minlength=counts.shape[1]).astype(np.float32)
        n = counts.shape[0]
        self._idf = (np.log((1 + n) / (1 + df)) + 1).astype(np.float32)

    def counts(self, texts: pd.Series):
        from scipy import sparse

        values = texts.tolist()
        return sparse.hstack(
            [self._chars.transform(values), self._words.transform(values)], format="csr"
        )

    def weigh(self, counts):
        """TF-IDF rows, unit length, from raw counts (left untouched)."""
        from sklearn.preprocessing import normalize as l2

        logged = counts.copy()
        logged.data = np.log1p(logged.data)  # sublinear tf: repeated n-grams count less
        return l2(logged.multiply(self._idf).tocsr())

    def transform(self, texts: pd.Series):
        return self.weigh(self.counts(texts))


def pair_similarity(
    left: pd.Series, right: pd.Series, fit_texts: pd.Series, n_features: int = 2**20
) -> np.ndarray:
    """Lexical cosine of each normalised (left[i], right[i]) pair, IDF fitted on `fit_texts`
    as `detect` fits it: for scoring given pairs (a labelled set) the way the detector would."""
    model = LexicalModel(n_features)
    model.fit(model.counts(fit_texts))
    products = model.transform(left).multiply(model.transform(right))
    return np.clip(np.asarray(products.sum(axis=1)).ravel(), 0.0, 1.0).astype(np.float64)
