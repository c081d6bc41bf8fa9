"""Test collections: topics and qrels from local files or from an ir_datasets id.

ir_datasets is imported only when a collection names it: importing it creates folders under
its home, which a user who only scores local files should never see.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import trec
from .errors import LeakevalError
from .experiment import CollectionSpec

__all__ = [
    "ALIASES",
    "Collection",
    "collection_digest",
    "load_collection",
    "resolve_alias",
    "source_digest",
    "topics_from",
    "training_chunks",
]

ALIASES = {
    "robust04": "disks45/nocr/trec-robust-2004",
    "core17": "nyt/trec-core-2017",
    "core18": "wapo/v2/trec-core-2018",
    "msmarco-train": "msmarco-document/train",
    "orcas": "msmarco-document/orcas",
}


def resolve_alias(name: str) -> str:
    return ALIASES.get(name, name)


@dataclass(frozen=True)
class Collection:
    name: str
    topics: pd.DataFrame = field(repr=False)
    qrels: pd.DataFrame = field(repr=False)
    digest: str
    """Content hash of topics + qrels: scores cached against it go stale when either changes."""
    source: str


def collection_digest(spec: CollectionSpec) -> str:
    """A cheap content key for a collection, computed without parsing it.

    Local files are hashed; an ir_datasets collection is keyed by its id and the installed
    ir_datasets version, which fixes the files it serves.
    """
    if spec.ir_datasets is not None:
        from importlib.metadata import version

        text = f"irds:{resolve_alias(spec.ir_datasets)}:{version('ir_datasets')}"
    else:
        if spec.topics is None or spec.qrels is None:
            raise LeakevalError(f"collection {spec.name!r} needs topics and qrels files")
        text = trec.file_digest(spec.topics) + trec.file_digest(spec.qrels)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def load_collection(spec: CollectionSpec) -> Collection:
    digest = collection_digest(spec)
    if spec.ir_datasets is None:
        return Collection(
            spec.name,
            trec.read_topics(spec.topics),
            trec.read_qrels(spec.qrels),
            digest,
            f"{spec.topics.name} + {spec.qrels.name}",
        )
    return _from_ir_datasets(spec.name, resolve_alias(spec.ir_datasets), digest)


def _from_ir_datasets(name: str, dataset_id: str, digest: str) -> Collection:
    import ir_datasets

    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise LeakevalError(f"unknown ir_datasets id {dataset_id!r}") from None
    if not (dataset.has_queries() and dataset.has_qrels()):
        raise LeakevalError(f"ir_datasets {dataset_id!r} has no topics and qrels")
    topics = pd.DataFrame(
        [
            (
                q.query_id,
                getattr(q, "title", None) or getattr(q, "text", ""),
                getattr(q, "description", ""),
                getattr(q, "narrative", ""),
            )
            for q in dataset.queries_iter()
        ],
        columns=["qid", "title", "description", "narrative"],
    )
    qrels = pd.DataFrame(
        [(q.query_id, q.doc_id, int(q.relevance)) for q in dataset.qrels_iter()],
        columns=["qid", "docid", "grade"],
    )
    qrels = qrels.astype({"qid": "str", "docid": "str", "grade": "int64"})
    topics = topics.astype("str")
    return Collection(name, topics, qrels, digest, f"ir_datasets:{dataset_id}")


def topics_from(source: str) -> pd.DataFrame:
    """Topics from a file, or from an ir_datasets id or alias (`robust04`)."""
    if Path(source).exists():
        return trec.read_topics(source)
    return load_collection(CollectionSpec(name=source, ir_datasets=source)).topics


def training_chunks(source: str | Path, chunk_size: int = 100_000) -> Iterator[pd.DataFrame]:
    """A training query log as a stream of (qid, text) frames: a file or an ir_datasets id."""
    if Path(source).exists():
        yield from trec.iter_queries(source, chunk_size)
        return
    import ir_datasets

    dataset_id = resolve_alias(str(source))
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise LeakevalError(f"{source}: neither a file nor a known ir_datasets id") from None
    if not dataset.has_queries():
        raise LeakevalError(f"ir_datasets {dataset_id!r} has no queries")
    batch: list[tuple[str, str]] = []
    for query in dataset.queries_iter():
        batch.append((query.query_id, getattr(query, "text", None) or getattr(query, "title", "")))
        if len(batch) == chunk_size:
            yield pd.DataFrame(batch, columns=["qid", "text"])
            batch = []
    if batch:
        yield pd.DataFrame(batch, columns=["qid", "text"])


def source_digest(source: str | Path) -> str:
    """Content hash of a file, or the id and ir_datasets version for a named dataset."""
    if Path(source).exists():
        return trec.file_digest(source)
    from importlib.metadata import version

    return f"irds:{resolve_alias(str(source))}:{version('ir_datasets')}"
