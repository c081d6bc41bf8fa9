"""Near-duplicate detection: test topics against a training query log, at log scale.

The lexical method is TF-IDF over character 3-grams plus word unigrams. Features are hashed
(scikit-learn's HashingVectorizer), so there is no vocabulary to fit; inverse document
frequencies are fitted once, on the test texts plus the first chunk of the log. Each chunk
step is then a pure function of (test side, one chunk of training queries), which is what
lets a log too big for one machine be mapped over a cluster later without a redesign.

Only a (test texts × chunk) block is ever dense; the top K per test text is merged across
chunks, so memory is bounded by the chunk size, not by the log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.lexical import LexicalModel
from leakeval_core.leakage.options import METHODS, DetectionOptions
from leakeval_core.leakage.text import normalize

LEAKAGE_COLUMNS = [
    "collection",
    "test_qid",
    "field",
    "test_text",
    "train_qid",
    "train_text",
    "method",
    "similarity",
    "category",
]
"""The LEAKAGE table: one row per (test topic, training query) candidate pair."""

__all__ = [
    "LEAKAGE_COLUMNS",
    "METHODS",
    "DetectionOptions",
    "TopicTexts",
    "detect",
    "topic_texts",
]


@dataclass(frozen=True)
class TopicTexts:
    """The test texts: one row per (topic, field, text)."""

    table: pd.DataFrame = field(repr=False)
    """collection, test_qid, field, test_text, norm."""
    topics: pd.DataFrame = field(repr=False)
    """collection, test_qid, title, description, narrative: the whole topic, which the
    hybrid method reads the need from."""

    @classmethod
    def concat(cls, parts: Sequence[TopicTexts]) -> TopicTexts:
        """Several collections' topics as one test side."""
        return cls(
            pd.concat([p.table for p in parts], ignore_index=True),
            pd.concat([p.topics for p in parts], ignore_index=True),
        )


def topic_texts(
    topics: pd.DataFrame,
    fields: Sequence[str] = ("title", "description"),
    variants: pd.DataFrame | None = None,
    collection: str = "",
) -> TopicTexts:
    """Collect each topic's texts: chosen topic fields plus optional query variants."""
    names = {"title": "title", "description": "description", "narrative": "narrative"}
    rows = []
    for name in fields:
        if name not in names:
            raise LeakevalError(f"unknown topic field {name!r}; use title, description, narrative")
        part = topics[["qid", names[name]]].rename(
            columns={"qid": "test_qid", names[name]: "test_text"}
        )
        rows.append(part.assign(field=name))
    if variants is not None:
        rows.append(
            variants.rename(columns={"qid": "test_qid", "text": "test_text"}).assign(
                field="variant"
            )
        )
    table = pd.concat(rows, ignore_index=True)
    table["norm"] = normalize(table.test_text)
    table = table[table.norm.str.len() > 0].drop_duplicates(["test_qid", "norm"])
    table.insert(0, "collection", collection)
    whole = topics.rename(columns={"qid": "test_qid"})[
        ["test_qid", "title", "description", "narrative"]
    ].assign(collection=collection)
    return TopicTexts(table.reset_index(drop=True), whole)


IDF_SAMPLE = 50_000
"""Training queries (from the start of the log) that inverse document frequencies come from."""


def _chunks(frame: pd.DataFrame, size: int) -> Iterator[pd.DataFrame]:
    for start in range(0, len(frame), size):
        yield frame.iloc[start : start + size]


def detect(
    test: TopicTexts,
    training: pd.DataFrame | Iterable[pd.DataFrame],
    options: DetectionOptions = DetectionOptions(),
    progress: Callable[[int, int, str], None] | None = None,
    total: int | None = None,
) -> pd.DataFrame:
    """Top-K training queries per topic by lexical similarity: the LEAKAGE table.

    `training` is a frame (qid, text) or an iterable of such chunks (a streamed log).
    Similarity is the maximum cosine over the topic's texts, in [0, 1].
    """
    if test.table.empty:
        raise LeakevalError("no test text to compare (empty topics?)")
    if isinstance(training, pd.DataFrame):
        total = len(training)
        training = _chunks(training, options.chunk_size)
    chunks = iter(training)
    # IDF comes from a fixed sample (the test texts and the log's first IDF_SAMPLE queries),
    # so results do not depend on the chunk size.
    buffered: list[pd.DataFrame] = []
    while sum(len(c) for c in buffered) < IDF_SAMPLE:
        chunk = next(chunks, None)
        if chunk is None:
            break
        buffered.append(chunk.assign(norm=normalize(chunk.text)))
    if not buffered or all(c.empty for c in buffered):
        raise LeakevalError("the training query log is empty")
    sample = pd.concat([c.norm for c in buffered]).iloc[:IDF_SAMPLE]
    model = LexicalModel(options.n_features)
    fit_counts = model.counts(pd.concat([test.table.norm, sample]))
    model.fit(fit_counts)
    # the test texts and the sample are counted once: for the IDF and for their own weights
    test_matrix = model.weigh(fit_counts[: len(test.table)])
    sample_counts = fit_counts[len(test.table) :]
    k = options.candidates
    best_sim = np.full((len(test.table), 0), -1.0, dtype=np.float32)
    best_rows: list[pd.DataFrame] = []
    best_idx = np.zeros((len(test.table), 0), dtype=np.int64)
    seen = 0
    for chunk in _prepend(buffered, chunks):
        if "norm" not in chunk:
            chunk = chunk.assign(norm=normalize(chunk.text))
        counts = (
            sample_counts[seen : seen + len(chunk)]
            if seen + len(chunk) <= sample_counts.shape[0]
            else model.counts(chunk.norm)
        )
        block = (test_matrix @ model.weigh(counts).T).toarray()
        take = min(k, block.shape[1])
        top = np.argpartition(-block, take - 1, axis=1)[:, :take]
        sims = np.take_along_axis(block, top, axis=1)
        best_rows.append(chunk[["qid", "text", "norm"]])
        offset = sum(len(r) for r in best_rows[:-1])
        best_sim = np.concatenate([best_sim, sims], axis=1)
        best_idx = np.concatenate([best_idx, top + offset], axis=1)
        if best_sim.shape[1] > k:  # keep the running top K only
            keep = np.argpartition(-best_sim, k - 1, axis=1)[:, :k]
            best_sim = np.take_along_axis(best_sim, keep, axis=1)
            best_idx = np.take_along_axis(best_idx, keep, axis=1)
        best_rows = _compact(best_rows, best_idx)
        best_idx = _reindex(best_idx)
        seen += len(chunk)
        if progress:
            progress(seen, total or seen, "training queries compared")
    pool = pd.concat(best_rows, ignore_index=True)
    candidates = _candidates(test, pool, best_sim, best_idx, options)
    return rescore(test, candidates, options, model)


def rescore(
    test: TopicTexts, candidates: pd.DataFrame, options: DetectionOptions, lexical: LexicalModel
) -> pd.DataFrame:
    """Score lexical candidates under the chosen method (`methods.score_pairs`, as the
    evaluation against human judgments does), then keep the top K per topic."""
    from leakeval_core.leakage.methods import score_pairs

    scored = score_pairs(test.table, test.topics, candidates, options.method, lexical)
    out = candidates.drop(columns=["field", "test_text", "similarity", "category"], errors="ignore")
    out = pd.concat([out.reset_index(drop=True), scored], axis=1).assign(method=options.method)
    out = out[out.similarity >= options.min_similarity]
    out = out.sort_values(
        ["collection", "test_qid", "similarity", "train_qid"],
        ascending=[True, True, False, True],
        kind="stable",
    )
    out = out.groupby(["collection", "test_qid"], sort=False).head(options.top_k)
    return out[LEAKAGE_COLUMNS].reset_index(drop=True)


def _prepend(first: list[pd.DataFrame], rest: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    yield from first
    yield from rest


def _compact(rows: list[pd.DataFrame], idx: np.ndarray) -> list[pd.DataFrame]:
    """Keep only the training rows some test text still has in its top K."""
    pool = pd.concat(rows, ignore_index=True)
    used = np.unique(idx)
    return [pool.iloc[used].reset_index(drop=True)]


def _reindex(idx: np.ndarray) -> np.ndarray:
    _, inverse = np.unique(idx, return_inverse=True)
    return inverse.reshape(idx.shape)


def _candidates(
    test: TopicTexts,
    pool: pd.DataFrame,
    sims: np.ndarray,
    idx: np.ndarray,
    options: DetectionOptions,
) -> pd.DataFrame:
    """The lexical candidates: one row per (topic, training query), the best K per topic."""
    n_test, k = sims.shape
    flat = pd.DataFrame(
        {
            "row": np.repeat(np.arange(n_test), k),
            "similarity": sims.ravel(),
            "pool": idx.ravel(),
        }
    )
    flat = flat[flat.similarity >= options.min_similarity]
    side = test.table.iloc[flat.row].reset_index(drop=True)
    train = pool.iloc[flat.pool].reset_index(drop=True)
    pairs = pd.DataFrame(
        {
            "collection": side.collection,
            "test_qid": side.test_qid,
            "train_qid": train.qid,
            "train_text": train.text,
            "similarity": flat.similarity.to_numpy(dtype=np.float64),
        }
    )
    pairs = pairs.sort_values(["similarity", "train_qid"], ascending=[False, True], kind="stable")
    pairs = pairs.drop_duplicates(["collection", "test_qid", "train_qid"])
    pairs = pairs.groupby(["collection", "test_qid"], sort=False).head(options.candidates)
    return pairs.sort_values(["collection", "test_qid"], kind="stable").reset_index(drop=True)
