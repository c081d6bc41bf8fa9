"""The hybrid near-duplicate score: a logistic model over five signals, fitted on people's
judgments (the leakage study's development labels), never on written examples.

What the labels teach: every judged pair already looks alike (its candidate had a sentence-
embedding cosine of at least 0.9 to one of the topic's query variants), so what separates a
near-duplicate from another need is whether the query keeps the topic's specific aspect.
"quilts to make" matches the variant "quilts" exactly, yet the topic asks how quilts earn
income. The signals, for one (topic, training query) pair:

- `semantic`: the sentence encoder's cosine (MiniLM, or mpnet for hybrid-mpnet), the best
  over the title, description and variants;
- `need_shift`: cosine of the query to the description minus cosine of the text it matched
  to the description: does the query stay as close to the need as the matched text does?
- `title_coverage`: share of the title's content words (stemmed) the query contains;
- `matched_coverage`: share of the matched text's words the query contains;
- `asks_definition`: the query asks what something is or means ("what is cyanide",
  "cyanide define") where neither the title nor the matched text does. People judged such
  queries another need than the topic's specific aspect far more often than near-duplicates.

Few judged pairs are different needs, so few signals are kept, and their choice is itself
measured: `bench/detection_bench.py --nested` makes every choice (signals, the word list's
halves, C) inside training folds (`leakeval_fit.detector_selection`), and the docs' leakage
page reports that figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from hashlib import blake2b
from importlib import resources

import numpy as np
import pandas as pd

from leakeval_core.leakage.similarity import Matches
from leakeval_core.leakage.text import normalize, paired_terms

__all__ = [
    "ASKS_DEFINITION",
    "FEATURES",
    "MODELS",
    "HybridModel",
    "asks_definition",
    "fit",
    "pair_features",
    "pair_keys",
    "score",
    "seen_in_fitting",
]

FEATURES = ("semantic", "need_shift", "title_coverage", "matched_coverage", "asks_definition")

ASKS_DEFINITION = re.compile(
    r"^what (is|are|was|were|does|do)\b"
    r"|\b(define|definition|definitions|defined|meaning|means|mean)\b"
)
"""A (normalised) text that asks what something is or means: "what is cyanide", "cyanide
define"; not "what has the hubble telescope discovered", which asks for the topic's aspect."""


@dataclass(frozen=True)
class HybridModel:
    """A logistic regression on standardised signals."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    signals: tuple[str, ...] = FEATURES
    """The feature columns the weights apply to, in order."""

    def probability(self, features: pd.DataFrame) -> np.ndarray:
        x = (features[list(self.signals)].to_numpy(dtype=float) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(x @ np.asarray(self.weights) + self.intercept)))


MODELS = {
    "minilm": HybridModel(
        mean=(0.9473, -0.0174, 0.6930, 0.8220, 0.0389),
        scale=(0.0535, 0.0453, 0.3074, 0.2400, 0.1934),
        weights=(0.3383, 0.2622, 0.2475, 0.2725, -0.2563),
        intercept=0.4506,
    ),
    "mpnet": HybridModel(
        mean=(0.9244, -0.0222, 0.6930, 0.8167, 0.0389),
        scale=(0.0835, 0.0612, 0.3074, 0.2413, 0.1934),
        weights=(0.3939, 0.3317, 0.2218, 0.2315, -0.2171),
        intercept=0.5263,
    ),
}
"""One model per sentence encoder (`semantic` and `need_shift` are cosines on its scale),
each fitted by `fit` on all 411 development pairs (`bench/detection_bench.py --fit`)."""

FITTED_PAIRS = "hybrid_fitted_pairs.txt"
"""Keys (`pair_keys`) of the pairs MODELS were fitted on, written beside it by the bench: the
labels themselves stay outside the project, but a labelled file can be checked against them."""


def pair_keys(topics: pd.Series, train_texts: pd.Series) -> pd.Series:
    """A short digest of each (topic id, normalised training query) pair."""
    texts = normalize(pd.Series(train_texts))
    return pd.Series(
        [
            blake2b(f"{t}\t{q}".encode(), digest_size=8).hexdigest()
            for t, q in zip(topics, texts, strict=True)
        ],
        index=topics.index,
    )


def seen_in_fitting(topics: pd.Series, train_texts: pd.Series) -> int:
    """How many of these labelled pairs MODELS were fitted on: its quality measured on them is
    in-sample, however the measurement refits."""
    fitted = set(resources.files(__package__).joinpath(FITTED_PAIRS).read_text().split())
    return int(pair_keys(topics, train_texts).isin(fitted).sum())


def fit(
    features: pd.DataFrame,
    labels: np.ndarray,
    c: float = 0.01,
    signals: tuple[str, ...] = FEATURES,
) -> HybridModel:
    """L2 logistic regression on standardised signals, classes balanced (different needs are
    a small minority of the judged pairs); strong regularisation, since the labels are few."""
    from sklearn.linear_model import LogisticRegression

    x = features[list(signals)].to_numpy(dtype=float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=2000)
    model.fit((x - mean) / scale, np.asarray(labels, dtype=int))
    return HybridModel(
        tuple(map(float, mean)),
        tuple(map(float, scale)),
        tuple(map(float, model.coef_[0])),
        float(model.intercept_[0]),
        tuple(signals),
    )


def score(features: pd.DataFrame, model: HybridModel) -> np.ndarray:
    """The hybrid similarity in [0, 1]: the model's probability of a near-duplicate."""
    return model.probability(features)


def asks_definition(queries: pd.Series, matched: pd.Series, titles: pd.Series) -> list[float]:
    """1.0 where a (normalised) query asks what something is or means and neither the text
    it matched nor the topic's title does: a shift from the topic's aspect to a definition."""
    return [
        float(bool(ASKS_DEFINITION.search(q)) and not any(map(ASKS_DEFINITION.search, (m, t))))
        for q, m, t in zip(queries, matched, titles, strict=True)
    ]


def pair_features(matches: Matches, topics: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """The signals (FEATURES) per pair, from its semantic matches with the topic's texts.

    `topics` holds collection, test_qid, title, description; `pairs` collection, test_qid,
    train_text.
    """
    from leakeval_core.leakage.semantic import cosine_pairs

    grid, best, short = matches.grid, matches.best, matches.short
    index = pd.RangeIndex(len(pairs))
    frame = pairs[["collection", "test_qid", "train_text"]].reset_index(drop=True)
    topic = frame.merge(
        topics[["collection", "test_qid", "title", "description"]].drop_duplicates(
            ["collection", "test_qid"]
        ),
        on=["collection", "test_qid"],
        how="left",
    ).fillna("")
    matched = short.reindex(index)
    matched_text = matched.test_text.fillna(topic.title).astype(str)
    description = grid[grid.field == "description"].drop_duplicates("pair").set_index("pair")
    query_to_need = description.semantic.reindex(index).to_numpy()
    text_to_need = cosine_pairs(
        matched_text.tolist(), topic.description.tolist(), matches.encoder, matches.device
    )
    has_need = (topic.description.str.strip() != "").to_numpy() & ~np.isnan(query_to_need)
    queries = normalize(frame.train_text)
    matched_texts = normalize(matched_text)
    titles = normalize(topic.title)
    title_and_query = [paired_terms(t, q) for t, q in zip(titles, queries, strict=True)]
    matched_words = [set(t.split()) for t in matched_texts]
    return pd.DataFrame(
        {
            "semantic": best.semantic.reindex(index).fillna(0.0).to_numpy(),
            "need_shift": np.where(has_need, np.nan_to_num(query_to_need) - text_to_need, 0.0),
            "title_coverage": [len(t & q) / len(t) if t else 0.0 for t, q in title_and_query],
            "matched_coverage": [
                len(set(q.split()) & m) / len(m) if m else 0.0
                for q, m in zip(queries, matched_words, strict=True)
            ],
            "asks_definition": asks_definition(queries, matched_texts, titles),
        }
    )
