"""The similarity of (topic, training query) pairs under each method, and their category.

Detection finds candidates lexically, then scores them with `methods.score_pairs`; the
evaluation against human judgments scores the labelled pairs with it too, so the number it
reports is the detector's.

A pair is compared with each of the topic's texts (title, description, query variants; not
the narrative, which describes relevance rather than asking). Its similarity is the best
over those texts. Its category is taken against the short text (title or variant) that
shares the most words with it, whatever the method: the categories are defined by words
kept, added and dropped, and the annotators judged each pair against such a text; an
embedding's nearest text matched the annotators' relation less often (docs: leakage).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.leakage.detection_options import encoder_of
from leakeval_core.leakage.lexical import LexicalModel
from leakeval_core.leakage.relations import relate, relation_features
from leakeval_core.leakage.text import normalize

__all__ = [
    "SHORT_FIELDS",
    "Matches",
    "base_similarity",
    "categories",
    "lexical_similarity",
    "match",
    "pair_grid",
]

SHORT_FIELDS = ("title", "variant")
"""Topic texts that are queries themselves, so a category against them makes sense."""


def pair_grid(test_table: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per (pair, topic text): `pair` (the pair's position), the topic text's
    field, test_text and norm, and the pair's train_text and train_norm."""
    texts = test_table[test_table.field != "narrative"][
        ["collection", "test_qid", "field", "test_text", "norm"]
    ]
    side = pairs[["collection", "test_qid", "train_text"]].assign(
        pair=np.arange(len(pairs)), train_norm=normalize(pairs.train_text).to_numpy()
    )
    grid = side.merge(texts, on=["collection", "test_qid"], how="inner", sort=False)
    return grid.sort_values(["pair", "field"], kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class Matches:
    """Each pair's comparison with each of its topic's texts, and its best matches."""

    grid: pd.DataFrame = field(repr=False)
    best: pd.DataFrame = field(repr=False)
    """Per pair (index), the best grid row over every compared text."""
    short: pd.DataFrame = field(repr=False)
    """Per pair, the best grid row among the short texts (title, variants)."""
    base: str
    """The similarity the matches were chosen by: `lexical` or `semantic`."""
    encoder: str | None = None
    """The sentence encoder of the `semantic` column, if any (`semantic.ENCODERS`)."""
    device: str = "auto"
    """Where that encoder runs (`devices.DEVICES`); the hybrid's features embed there too."""


def match(
    test_table: pd.DataFrame,
    pairs: pd.DataFrame,
    method: str,
    lexical: LexicalModel,
    device: str = "auto",
) -> Matches:
    """Compare every pair with its topic's texts under the method's base similarity, its
    encoder (if any) running on `device`."""
    grid = pair_grid(test_table, pairs)
    grid["lexical"] = _lexical(grid, lexical)
    encoder = encoder_of(method)
    base = "lexical" if encoder is None else "semantic"
    grid["semantic"] = _semantic(grid, encoder, device) if encoder else np.nan
    best, short = _best(grid, base, None), _best(grid, base, SHORT_FIELDS)
    return Matches(grid, best, short, base, encoder, device)


def base_similarity(matches: Matches, n: int) -> np.ndarray:
    """The best similarity of each pair over its topic's texts, in [0, 1]."""
    values = matches.best[matches.base].reindex(pd.RangeIndex(n))
    return values.fillna(0.0).clip(0.0, 1.0).to_numpy()


def lexical_similarity(matches: Matches, n: int) -> np.ndarray:
    """The best lexical similarity of each pair over its topic's texts, whatever the base:
    what an encoder's floor is compared with (`detection_options.ENCODER_FLOOR`)."""
    values = matches.grid.groupby("pair").lexical.max().reindex(pd.RangeIndex(n))
    return values.fillna(0.0).clip(0.0, 1.0).to_numpy()


def categories(matches: Matches, pairs: pd.DataFrame) -> pd.DataFrame:
    """Per pair: the short text sharing the most words with it (field, test_text) and its
    category against that text."""
    worded = _best(matches.grid, "lexical", SHORT_FIELDS)
    matched = worded.reindex(pd.RangeIndex(len(pairs)))
    category = np.full(len(pairs), "reformulation", dtype=object)  # no short text to judge by
    found = matched.norm.notna().to_numpy()
    if found.any():
        features = relation_features(matched.norm[found], matched.train_norm[found])
        category[found] = relate(features, matched.field[found].reset_index(drop=True))
    return pd.DataFrame(
        {
            "field": matched.field.fillna("title").to_numpy(),
            "test_text": matched.test_text.fillna("").to_numpy(),
            "category": category,
        }
    )


def _lexical(grid: pd.DataFrame, model: LexicalModel) -> np.ndarray:
    """Cosine of each grid row's topic text and training query, each text weighed once."""
    texts = pd.Series(pd.unique(pd.concat([grid.norm, grid.train_norm], ignore_index=True)))
    if texts.empty:
        return np.zeros(0)
    matrix = model.transform(texts)
    index = pd.Index(texts)
    left = matrix[index.get_indexer(grid.norm)]
    right = matrix[index.get_indexer(grid.train_norm)]
    return np.clip(np.asarray(left.multiply(right).sum(axis=1)).ravel(), 0.0, 1.0)


def _semantic(grid: pd.DataFrame, encoder: str, device: str) -> np.ndarray:
    from leakeval_core.leakage.semantic import cosine_pairs

    return cosine_pairs(grid.test_text.tolist(), grid.train_text.tolist(), encoder, device)


def _best(grid: pd.DataFrame, column: str, fields: tuple[str, ...] | None) -> pd.DataFrame:
    """Per pair, the grid row with the highest `column` (among `fields` when given);
    ties go to the title, then the earlier text."""
    rows = grid if fields is None else grid[grid.field.isin(fields)]
    ordered = rows.sort_values(["pair", column], ascending=[True, False], kind="stable")
    return ordered.drop_duplicates("pair").set_index("pair")
