"""Near-duplicate detection: test topics against a training query log, at log scale.

Candidates are found lexically (`search`: hashed TF-IDF over character 3-grams plus words),
chunk by chunk, so memory is bounded by the chunk size, not by the log; they are then scored
under the chosen method (`methods.score_pairs`). The candidate step is a pure function of
(test side, chunk) whose results merge in any order, which is what lets `distributed` map a
sharded log over a Dask cluster and get the same table.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.detection_options import METHODS, DetectionOptions
from leakeval_core.leakage.lexical import LexicalModel
from leakeval_core.leakage.search import (
    IDF_SAMPLE,
    TopicIndex,
    keep_best,
    no_candidates,
    search_chunk,
)
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
    "announce_scoring",
    "build_index",
    "detect",
    "pairs_from_candidates",
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
    _require_texts(test)
    if isinstance(training, pd.DataFrame):
        frame, total = training, len(training)
        training = (
            frame.iloc[start : start + options.chunk_size]
            for start in range(0, total, options.chunk_size)
        )
    chunks = iter(training)
    buffered: list[pd.DataFrame] = []
    while sum(len(c) for c in buffered) < IDF_SAMPLE:
        chunk = next(chunks, None)
        if chunk is None:
            break
        buffered.append(chunk.assign(norm=normalize(chunk.text)))
    index, sample_counts = build_index(test, [c.norm for c in buffered], options)
    best, seen = no_candidates(), 0
    for chunk in itertools.chain(buffered, chunks):
        counts = sample_counts[seen : seen + len(chunk)]
        known = counts.shape[0] == len(chunk)  # the chunk lies inside the IDF sample
        best = keep_best([best, search_chunk(index, chunk, counts if known else None)], index.k)
        seen += len(chunk)
        if progress:
            progress(seen, total or seen, "training queries compared")
    announce_scoring(progress, seen, total or seen, "training queries compared", options.method)
    return pairs_from_candidates(test, best, index, options)


def announce_scoring(
    progress: Callable[[int, int, str], None] | None,
    done: int,
    total: int,
    what: str,
    method: str,
) -> None:
    """Once the whole log is compared, say that its candidates are being scored: with mpnet
    that takes longer than the comparison, and a full bar alone looks stuck."""
    if progress and method != "lexical":
        progress(done, total, f"{what}; scoring the candidates ({method})…")


def build_index(
    test: TopicTexts, sample: Sequence[pd.Series], options: DetectionOptions
) -> tuple[TopicIndex, object]:
    """The test side of a search, IDF fitted on the test texts and the log's first
    IDF_SAMPLE (normalised) queries, whichever way the log is read; and the sample's
    counts (`TopicIndex.build`)."""
    norms = pd.concat(list(sample), ignore_index=True) if sample else pd.Series(dtype=str)
    if norms.empty:
        raise LeakevalError("the training query log is empty")
    return TopicIndex.build(
        test.table.norm,
        norms.iloc[:IDF_SAMPLE],
        options.candidates,
        options.min_similarity,
        options.n_features,
    )


def pairs_from_candidates(
    test: TopicTexts, candidates: pd.DataFrame, index: TopicIndex, options: DetectionOptions
) -> pd.DataFrame:
    """The LEAKAGE table from the merged candidates of the whole log: each topic's best
    training queries over all its texts, scored under the chosen method."""
    side = test.table.iloc[candidates.row.to_numpy()].reset_index(drop=True)
    pairs = pd.DataFrame(
        {
            "collection": side.collection,
            "test_qid": side.test_qid,
            "train_qid": candidates.train_qid.to_numpy(),
            "train_text": candidates.train_text.to_numpy(),
            "similarity": candidates.similarity.to_numpy(dtype=np.float64),
        }
    )
    pairs = pairs.sort_values(["similarity", "train_qid"], ascending=[False, True], kind="stable")
    pairs = pairs.drop_duplicates(["collection", "test_qid", "train_qid"])
    pairs = pairs.groupby(["collection", "test_qid"], sort=False).head(options.candidates)
    pairs = pairs.sort_values(["collection", "test_qid"], kind="stable").reset_index(drop=True)
    return rescore(test, pairs, options, index.model)


def rescore(
    test: TopicTexts, candidates: pd.DataFrame, options: DetectionOptions, lexical: LexicalModel
) -> pd.DataFrame:
    """Score lexical candidates under the chosen method (`methods.score_pairs`, as the
    evaluation against human judgments does), then keep the top K per topic."""
    from leakeval_core.leakage.methods import score_pairs

    scored = score_pairs(
        test.table,
        test.topics,
        candidates,
        options.method,
        lexical,
        device=options.device,
        encoder_floor=options.encoder_floor,
    )
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


def _require_texts(test: TopicTexts) -> None:
    if test.table.empty:
        raise LeakevalError("no test text to compare (empty topics?)")
