"""Text normalisation and the near-duplicate categories, shared by every detection method.

The categories follow the leakage study's annotators (Fröbe et al., SPIRE 2022): identical
means the same words up to order and inflection; a specialization adds a restriction; a
generalization drops one; a reformulation is the same need in other words. The rules below
were checked against their judgments (`leakeval leakage-eval`), which is why function words
("of", "the", "can") never count, inflections are folded, and question words ("what is",
"about", "list") make a reformulation rather than a restriction.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd

__all__ = ["CATEGORY_RULES", "categorize", "content_terms", "intent_terms", "normalize", "stem"]

_ABBREVIATION = re.compile(r"\b(?:[A-Za-z]\.){2,}")
_PUNCTUATION = re.compile(r"[^\w\s]|_", re.UNICODE)
_FUNCTION_WORDS = frozenset(
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
        "being",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "with",
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
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "we",
        "our",
        "you",
        "your",
        "i",
        "me",
        "my",
    ]
)
_INTENT_WORDS = frozenset(
    [
        "what",
        "how",
        "why",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "define",
        "definition",
        "definitions",
        "meaning",
        "means",
        "about",
        "list",
        "lists",
        "examples",
        "example",
        "info",
        "information",
        "facts",
    ]
)
_STOPWORDS = _FUNCTION_WORDS | _INTENT_WORDS
_NUMBERS = dict(
    zip(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
        map(str, range(1, 11)),
        strict=True,
    )
)
_INVARIANT = frozenset(["news", "series", "species", "gas", "bus", "lens", "us"])
"""Words that end in s without being plurals ('news' is not 'new')."""
_SUFFIXES = (
    "izations",
    "isations",
    "ization",
    "isation",
    "ational",
    "ations",
    "izing",
    "ising",
    "ation",
    "ings",
    "ness",
    "ment",
    "ized",
    "ised",
    "izes",
    "ises",
    "ize",
    "ise",
    "ing",
    "ers",
    "ies",
    "ied",
    "ed",
    "er",
    "al",
    "ly",
    "ic",
    "y",
)

CATEGORY_RULES = {
    "identical": "the same words up to order, inflection and function words",
    "specialization": "the training query adds a restriction (content words) to the topic text",
    "generalization": "the training query drops some of the topic text's content words",
    "reformulation": "the same need in other words, or asked as a question ('what is …')",
}


def normalize(texts: pd.Series) -> pd.Series:
    """NFKC, casefold, abbreviations joined (U.S. -> us), punctuation to spaces, whitespace
    collapsed."""
    out = texts.astype("str").str.normalize("NFKC")
    out = out.str.replace(_ABBREVIATION, lambda m: m.group(0).replace(".", ""), regex=True)
    out = out.str.casefold().str.replace(_PUNCTUATION, " ", regex=True)
    return out.str.split().str.join(" ").fillna("")


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A light suffix stripper: enough for 'cables'/'cable', 'legalizing'/'legalization',
    'educational'/'education', 'protesters'/'protests' to meet. Number words become digits."""
    if word in _NUMBERS:
        return _NUMBERS[word]
    if word in _INVARIANT:
        return word
    if len(word) > 4 and word.endswith("sses"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> frozenset[str]:
    """The stems of a normalised text's content words: what carries its need."""
    return frozenset(stem(t) for t in text.split() if t not in _STOPWORDS)


def intent_terms(text: str) -> frozenset[str]:
    """The words that say how a need is asked (what, how, define, list…), not what it is."""
    return frozenset(t for t in text.split() if t in _INTENT_WORDS)


def categorize(test_norm: str, train_norm: str) -> str:
    """How a training query relates to a topic text (both already normalised)."""
    test_terms, train_terms = content_terms(test_norm), content_terms(train_norm)
    if test_terms == train_terms:
        same_form = intent_terms(test_norm) == intent_terms(train_norm)
        return "identical" if same_form else "reformulation"
    if test_terms and test_terms < train_terms:
        return "specialization"
    if train_terms and train_terms < test_terms:
        return "generalization"
    return "reformulation"
