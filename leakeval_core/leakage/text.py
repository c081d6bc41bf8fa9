"""Text normalisation and the near-duplicate categories, shared by every detection method.

Kept apart from the detectors so that the hybrid method and the demo generator can use the
same definition of a content word without importing a detector.
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["CATEGORY_RULES", "categorize", "content_terms", "normalize"]

_PUNCTUATION = re.compile(r"[^\w\s]|_", re.UNICODE)
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "for",
        "to",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "what",
        "how",
        "why",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "does",
        "do",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "with",
        "about",
        "from",
        "by",
        "as",
        "at",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
    ]
)
CATEGORY_RULES = {
    "identical": "same text after normalisation (NFKC, casefold, punctuation, whitespace)",
    "specialization": "the training query adds content terms to the topic's",
    "generalization": "the training query drops some of the topic's content terms",
    "reformulation": "anything else above the threshold: other words, order or form",
}


def normalize(texts: pd.Series) -> pd.Series:
    """NFKC, casefold, punctuation to spaces, whitespace collapsed."""
    out = texts.astype("str").str.normalize("NFKC").str.casefold()
    out = out.str.replace(_PUNCTUATION, " ", regex=True)
    return out.str.split().str.join(" ").fillna("")


def content_terms(text: str) -> frozenset[str]:
    """The words of a normalised text that carry its need (stopwords dropped)."""
    return frozenset(t for t in text.split() if t not in _STOPWORDS)


def categorize(test_norm: str, train_norm: str) -> str:
    """How a training query relates to a topic text (both already normalised)."""
    if test_norm == train_norm:
        return "identical"
    test_terms, train_terms = content_terms(test_norm), content_terms(train_norm)
    if test_terms and test_terms < train_terms:
        return "specialization"
    if train_terms and train_terms < test_terms:
        return "generalization"
    return "reformulation"
