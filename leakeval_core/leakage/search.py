"""Candidate search: the best training queries per test text, one piece of the log at a time.

The test side (texts weighed by a fitted `LexicalModel`) is built once; comparing it with a
chunk of the log is then a pure function of (test side, chunk), and the results of two
pieces merge by keeping the best K per test text. Candidates are ranked by a total order
(similarity, then training qid, then text), so the merge is associative and commutative:
the log can be cut into any chunks or shards, compared in any order, in one process or on
many machines, and the candidates come out the same, bit for bit.

A candidates frame has one row per (test text, training query): `row` (the test text's
position in `TopicTexts.table`), `similarity` (float32 cosine), `train_qid`, `train_text`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.lexical import LexicalModel
from leakeval_core.leakage.text import normalize

__all__ = [
    "CANDIDATE_DTYPES",
    "IDF_SAMPLE",
    "ShardResult",
    "TopicIndex",
    "keep_best",
    "no_candidates",
    "search_chunk",
    "search_shard",
]

CANDIDATE_DTYPES = {
    "row": np.int32,
    "similarity": np.float32,
    "train_qid": "str",
    "train_text": "str",
}
"""The candidates frame's columns and types (see the module docstring)."""

IDF_SAMPLE = 50_000
"""Training queries (from the start of the log) that inverse document frequencies come from:
a fixed sample, so results depend neither on the chunk size nor on how the log is split."""


@dataclass(frozen=True)
class TopicIndex:
    """The test side of a search: what every chunk is compared with. Small enough (the
    hashing model's IDF and the test texts' weights) to send to every worker once."""

    model: LexicalModel = field(repr=False)
    matrix: object = field(repr=False)
    """The test texts' TF-IDF rows (scipy CSR), in `TopicTexts.table` order."""
    k: int
    """Candidates kept per test text."""
    min_similarity: float

    @classmethod
    def build(
        cls,
        test_norms: pd.Series,
        sample_norms: pd.Series,
        k: int,
        min_similarity: float,
        n_features: int,
    ) -> tuple[TopicIndex, object]:
        """Fit IDF on the test texts plus the log's sample, and weigh the test texts.

        Also returns the sample's counts: hashing is most of a search's time, so whoever
        goes on to compare the sample itself need not hash it twice."""
        model = LexicalModel(n_features)
        counts = model.counts(pd.concat([test_norms, sample_norms], ignore_index=True))
        model.fit(counts)
        n = len(test_norms)
        return cls(model, model.weigh(counts[:n]), k, min_similarity), counts[n:]


def no_candidates() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=d) for c, d in CANDIDATE_DTYPES.items()})


def search_chunk(index: TopicIndex, chunk: pd.DataFrame, counts=None) -> pd.DataFrame:
    """The best K training queries of one chunk (qid, text) per test text; `counts` are the
    chunk's hashed counts when the caller has them already."""
    if chunk.empty:
        return no_candidates()
    if counts is None:
        counts = index.model.counts(chunk["norm"] if "norm" in chunk else normalize(chunk.text))
    block = (index.matrix @ index.model.weigh(counts).T).toarray()
    take = min(index.k, block.shape[1])
    # the K-th best value per row; every value tied with it stays, and the total order
    # (similarity, qid, text) decides among them in `keep_best`
    kth = np.partition(block, block.shape[1] - take, axis=1)[:, block.shape[1] - take]
    floor = np.maximum(kth, np.float32(index.min_similarity))[:, None]
    rows, cols = np.nonzero((block >= floor) & (block > 0))
    found = pd.DataFrame(
        {
            "row": rows.astype(np.int32),
            "similarity": block[rows, cols],
            "train_qid": chunk.qid.to_numpy()[cols],
            "train_text": chunk.text.to_numpy()[cols],
        }
    )
    return keep_best([found], index.k)


def keep_best(parts: Iterable[pd.DataFrame], k: int) -> pd.DataFrame:
    """Merge candidate frames, keeping the best K per test text by the total order."""
    frames = [p for p in parts if not p.empty]
    if not frames:
        return no_candidates()
    merged = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    merged = merged.sort_values(
        ["row", "similarity", "train_qid", "train_text"],
        ascending=[True, False, True, True],
        kind="stable",
    )
    merged = merged.drop_duplicates(["row", "train_qid", "train_text"])
    return merged.groupby("row", sort=False).head(k).reset_index(drop=True)


@dataclass(frozen=True)
class ShardResult:
    """What comparing one shard gave: its candidates, or why it could not be read."""

    shard: str
    candidates: pd.DataFrame = field(repr=False)
    queries: int
    error: str | None = None
    """`file:line: why` when the shard failed to parse; its candidates are then empty."""


def search_shard(index: TopicIndex, shard: str | os.PathLike[str], chunk_size: int) -> ShardResult:
    """Compare one whole shard, chunk by chunk. A shard that fails anywhere gives no
    candidates at all, so a skipped shard is skipped whole, never half-counted."""
    from leakeval_core.io.shards import iter_shard

    best, queries = no_candidates(), 0
    try:
        for chunk in iter_shard(shard, chunk_size):
            best = keep_best([best, search_chunk(index, chunk)], index.k)
            queries += len(chunk)
    except LeakevalError as exc:
        return ShardResult(str(shard), no_candidates(), queries, str(exc))
    return ShardResult(str(shard), best, queries)
