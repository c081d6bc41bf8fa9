"""Test collections: topics and qrels from local files or from an ir_datasets id.

ir_datasets is imported only when a collection names it (`experiment.irds`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.aliases import ALIASES, resolve_alias
from leakeval_core.experiment.digests import collection_digest
from leakeval_core.experiment.irds import expected_files, load_dataset
from leakeval_core.experiment.manifest import CollectionSpec
from leakeval_core.io import beir, query_files, trec
from leakeval_core.io.shards import find_shards, iter_shard

__all__ = [
    "ALIASES",
    "Collection",
    "document_text",
    "load_collection",
    "log_size",
    "resolve_alias",
    "topics_from",
    "training_chunks",
]


@dataclass(frozen=True)
class Collection:
    name: str
    topics: pd.DataFrame = field(repr=False)
    qrels: pd.DataFrame = field(repr=False)
    digest: str
    """Content hash of topics + qrels: scores cached against it go stale when either changes."""
    source: str
    documents: Path | None = None
    """A BEIR folder whose `corpus.jsonl` holds the documents' text, where there is one."""


def load_collection(spec: CollectionSpec) -> Collection:
    digest = collection_digest(spec)
    if spec.beir is not None:
        return _from_beir(spec, digest)
    if not spec.judged:
        return Collection(
            spec.name,
            query_files.read_topics(spec.topics),
            pd.DataFrame(
                {
                    "qid": pd.Series(dtype="str"),
                    "docid": pd.Series(dtype="str"),
                    "grade": pd.Series(dtype="int64"),
                }
            ),
            digest,
            f"{spec.topics.name} (no qrels: its runs are published per-query values)",
        )
    if spec.ir_datasets is None:
        return Collection(
            spec.name,
            query_files.read_topics(spec.topics),
            trec.read_qrels(spec.qrels),
            digest,
            f"{spec.topics.name} + {spec.qrels.name}",
        )
    return _from_ir_datasets(spec.name, resolve_alias(spec.ir_datasets), digest)


def _from_beir(spec: CollectionSpec, digest: str) -> Collection:
    """A BEIR folder's split: its qrels, and of its queries (every split's) those judged."""
    qrels = trec.decoded_frame(beir.read_beir_qrels(spec.beir, spec.split))
    topics = query_files.read_topics(spec.beir, split=spec.split)
    topics = topics[topics.qid.isin(set(qrels.qid))].reset_index(drop=True)
    return Collection(
        spec.name,
        topics,
        qrels,
        digest,
        f"BEIR {spec.beir.name} ({spec.split})",
        documents=spec.beir,
    )


def _from_ir_datasets(name: str, dataset_id: str, digest: str) -> Collection:
    dataset = load_dataset(dataset_id)
    if not (dataset.has_queries() and dataset.has_qrels()):
        raise LeakevalError(f"ir_datasets {dataset_id!r} has no topics and qrels")
    with _offline_errors(dataset_id, dataset.queries_handler(), dataset.qrels_handler()):
        topics = pd.DataFrame(
            [
                (
                    q.query_id,
                    getattr(q, "title", None) or getattr(q, "text", ""),
                    " ".join(str(getattr(q, "description", "")).split()),
                    " ".join(str(getattr(q, "narrative", "")).split()),
                )
                for q in dataset.queries_iter()
            ],
            columns=["qid", "title", "description", "narrative"],
        )
        qrels = _trec_qrels_file(dataset.qrels_handler())
        if qrels is None:
            qrels = pd.DataFrame(
                [(q.query_id, q.doc_id, int(q.relevance)) for q in dataset.qrels_iter()],
                columns=["qid", "docid", "grade"],
            )
    qrels = qrels.astype({"qid": "str", "docid": "str", "grade": "int64"})
    topics = topics.astype("str")
    return Collection(name, topics, qrels, digest, f"ir_datasets:{dataset_id}")


def _trec_qrels_file(handler: object) -> pd.DataFrame | None:
    """An ir_datasets qrels file in TREC's four columns, read by leakeval's reader: the rows
    ir_datasets' iterator gives, a tenth of the time (Robust04's 311k judgments, read in
    every process that opens the collection). None for any other qrels (several files,
    three columns, another format, or a line the reader refuses), which are iterated."""
    from ir_datasets.formats import TrecQrels

    if type(handler) is not TrecQrels or getattr(handler, "_format_3col", True):
        return None
    if isinstance(getattr(handler, "_qrels_dlc", None), list):
        return None
    try:
        return trec.read_qrels(handler.qrels_path())[["qid", "docid", "grade"]]
    except (LeakevalError, OSError, NotImplementedError, AttributeError):
        return None


@contextmanager
def _offline_errors(dataset_id: str, *handlers: object) -> Iterator[None]:
    """Turn ir_datasets' failed downloads into one actionable line.

    Without a network a download fails within a second; the message names every file the
    dataset expects and the exact place under IR_DATASETS_HOME to put it.
    """
    # ir_datasets makes its loggers lazily at INFO; its retry chatter would bury our message
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    except (RuntimeError, OSError, ConnectionError) as exc:
        missing = [p for h in handlers for p in expected_files(h) if not Path(p).exists()]
        where = "; ".join(missing) if missing else "(see ir_datasets' documentation)"
        raise LeakevalError(
            f"ir_datasets {dataset_id!r} needs files that are not on this machine and could "
            f"not be downloaded ({type(exc).__name__}). Place them at: {where}"
        ) from None
    finally:
        logging.disable(previous)


def document_text(collection: Collection, docid: str) -> str | None:
    """A document's text when the user has the collection's documents locally, else None.

    Never downloads: licensed collections (Robust04, Core17/18) have no public copy, and an
    unattended multi-GB download from a dashboard click would be worse than no text. A BEIR
    folder's text comes from its `corpus.jsonl`.
    """
    if collection.documents is not None:
        return beir.corpus_text(collection.documents, docid)
    if not collection.source.startswith("ir_datasets:"):
        return None
    dataset = load_dataset(collection.source.removeprefix("ir_datasets:"))
    if not dataset.has_docs():
        return None
    files = expected_files(dataset.docs_handler())
    if not files or not all(Path(p).exists() for p in files):
        return None
    try:
        with _offline_errors(collection.source, dataset.docs_handler()):
            doc = dataset.docs_store().get(docid)
    except (LeakevalError, KeyError):
        return None
    return None if doc is None else str(getattr(doc, "text", None) or doc.default_text())


def topics_from(source: str) -> pd.DataFrame:
    """Topics from a file, or from an ir_datasets id or alias (`robust04`)."""
    if Path(source).exists():
        return query_files.read_topics(source)
    return load_collection(CollectionSpec(name=source, ir_datasets=source)).topics


def log_size(source: str | Path, at_most: int) -> int | None:
    """How many queries a training log holds, counted no further than `at_most` + 1: enough
    to tell a log the app may detect in before anyone waits. None when it cannot be told
    (an ir_datasets id without a published count)."""
    shards = find_shards(source)
    if shards is None and not Path(source).exists():
        dataset = load_dataset(resolve_alias(str(source)))
        count = dataset.queries_count() if dataset.has_queries() else 0
        return None if count is None else int(count)
    total = 0
    for shard in shards or [Path(source)]:
        total += _count_rows(shard, at_most + 1 - total)
        if total > at_most:
            break
    return total


def _count_rows(path: Path, limit: int) -> int:
    """Rows of one query file (a CSV's header not counted), stopping past `limit`."""
    from leakeval_core.io.compressed import open_input
    from leakeval_core.io.formats import detect_format

    if detect_format(path) in ("jsonl", "hf", "beir"):  # read in frames, counted as read
        total = 0
        for chunk in query_files.iter_queries(path, min(limit, 100_000) or 1):
            total += len(chunk)
            if total > limit:
                break
        return total
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    rows, header, last = 0, None, b"\n"
    with open_input(str(path), open(path, "rb")) as fh:
        while rows <= limit and (block := fh.read(1 << 20)):
            if header is None:
                header = b"\t" not in block.split(b"\n", 1)[0]
            rows += block.count(b"\n")
            last = block[-1:]
    rows += last != b"\n"  # a last line without its newline
    return max(rows - bool(header), 0)


def training_chunks(source: str | Path, chunk_size: int = 100_000) -> Iterator[pd.DataFrame]:
    """A training query log as a stream of (qid, text) frames: a file, a sharded log (a
    folder or glob, read in shard order) or an ir_datasets id."""
    shards = find_shards(source)
    if shards is not None:
        for shard in shards:
            yield from iter_shard(shard, chunk_size)
        return
    if Path(source).exists():
        yield from query_files.iter_queries(source, chunk_size)
        return
    dataset_id = resolve_alias(str(source))
    dataset = load_dataset(dataset_id)
    if not dataset.has_queries():
        raise LeakevalError(f"ir_datasets {dataset_id!r} has no queries")
    batch: list[tuple[str, str]] = []
    with _offline_errors(dataset_id, dataset.queries_handler()):
        for query in dataset.queries_iter():
            text = getattr(query, "text", None) or getattr(query, "title", "")
            batch.append((query.query_id, text))
            if len(batch) == chunk_size:
                yield pd.DataFrame(batch, columns=["qid", "text"])
                batch = []
    if batch:
        yield pd.DataFrame(batch, columns=["qid", "text"])
