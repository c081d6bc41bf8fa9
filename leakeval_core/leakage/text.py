"""Text normalisation and the words the near-duplicate categories compare, shared by every
detection method.

The categories (`relations`) follow the leakage study's annotators (Fröbe et al., SPIRE
2022): identical means the same words up to order and inflection. The folding below was
checked against their judgments (`leakeval leakage-eval`), which is why function words
("of", "the", "can") never count, inflections are folded, and question words ("what is",
"about", "list") say how a need is asked rather than what it is. People also call the same
words written apart or together ("health care", "healthcare"), in digits or letters ("20",
"twenty") and the United States by any of its names identical.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd

__all__ = [
    "YEAR",
    "content_terms",
    "intent_terms",
    "normalize",
    "paired_terms",
    "stem",
]

YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
"""A word that is a year: a training query that adds one restricts the need in time."""
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
        "s",  # what is left of a possessive ("china's" normalises to "china s")
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
_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
)
_TENS = "thirty forty fifty sixty seventy eighty ninety"
_NUMBERS = {
    **{word: str(n) for n, word in enumerate(_NUMBER_WORDS.split(), start=1)},
    **{word: str(n) for n, word in zip(range(30, 100, 10), _TENS.split(), strict=True)},
}
_COUNTRY_NAMES = re.compile(r"\b(?:united states(?: of america)?|usa)\b")
"""Names of the United States that mean 'us' (a normalised 'U.S.' is already 'us')."""
_IRREGULAR_PLURALS = {
    "children": "child",
    "women": "woman",
    "men": "man",
    "people": "person",
    "teeth": "tooth",
    "feet": "foot",
    "mice": "mouse",
    "geese": "goose",
}
_INVARIANT = frozenset(["news", "series", "species", "gas", "bus", "lens", "us"])
"""Words that end in s without being plurals ('news' is not 'new')."""
_TRACES = {"y": "i", "ic": "i"}
"""What a stripped suffix leaves behind: an i, so that 'story' and 'store', 'policy' and
'police', 'party' and 'part' stay apart once a final e is dropped, while 'countries' and
'country', 'economy' and 'economic' still meet."""
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
    'educational'/'education', 'protesters'/'protests', 'countries'/'country',
    'taxes'/'tax', 'children'/'child', 'replacing'/'replacement' to meet. Number words become
    digits. A whole stemmer (Porter's, Snowball's) does no better on the judged pairs and
    splits British from American spellings ('legalisation'), which people call identical."""
    if word in _NUMBERS:
        return _NUMBERS[word]
    word = _IRREGULAR_PLURALS.get(word, word)
    if word in _INVARIANT:
        return word
    if len(word) > 4 and word.endswith(("sses", "xes")):
        word = word[:-2]
    elif len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 4 and word.endswith("ie"):
        word = word[:-2] + "y"
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)] + _TRACES.get(suffix, "")
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def content_terms(text: str, joined: frozenset[str] = frozenset()) -> frozenset[str]:
    """The stems of a normalised text's content words: what carries its need. Two adjacent
    words written as one word in `joined` count as that word ('health care', 'healthcare')."""
    words = _COUNTRY_NAMES.sub("us", text).split()
    if joined:
        words = _join_compounds(words, joined)
    return frozenset(stem(t) for t in words if t not in _STOPWORDS)


def _join_compounds(words: list[str], joined: frozenset[str]) -> list[str]:
    out, i = [], 0
    while i < len(words):
        if i + 1 < len(words) and words[i] + words[i + 1] in joined:
            out.append(words[i] + words[i + 1])
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


def paired_terms(test_norm: str, train_norm: str) -> tuple[frozenset[str], frozenset[str]]:
    """The content terms of two normalised texts, each with the compounds the other writes
    as one word joined."""
    return (
        content_terms(test_norm, frozenset(train_norm.split())),
        content_terms(train_norm, frozenset(test_norm.split())),
    )


def intent_terms(text: str) -> frozenset[str]:
    """The words that say how a need is asked (what, how, define, list…), not what it is."""
    return frozenset(t for t in text.split() if t in _INTENT_WORDS)
