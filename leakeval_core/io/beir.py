"""BEIR folders: `queries.jsonl`, `qrels/SPLIT.tsv` and `corpus.jsonl`.

The layout BEIR's `GenericDataLoader` reads, which MTEB's and most dense-retrieval code's
datasets follow: queries `{"_id", "text", ...}` a line, qrels a TSV with the header
`query-id<TAB>corpus-id<TAB>score` (the score is the grade), one per split (test, dev, train),
and the documents `{"_id", "title", "text"}` a line.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import pyarrow as pa

from leakeval_core.errors import ParseError
from leakeval_core.io import json_values
from leakeval_core.io.digest import identity

__all__ = ["SPLITS", "corpus_text", "read_beir_qrels", "read_beir_queries", "split_qids"]

SPLITS = ("test", "dev", "train")
_QRELS_COLUMNS = {"query-id": "qid", "corpus-id": "docid", "score": "grade"}


def read_beir_qrels(source, split: str = "test") -> pa.Table:
    """A split's qrels, from the folder (`qrels/SPLIT.tsv`) or from the TSV itself."""
    from leakeval_core.io.frames import read_pairs

    if not isinstance(source, tuple) and Path(source).is_dir():
        source = _qrels_file(Path(source), split)
    return read_pairs(source, "csv", "grade", _QRELS_COLUMNS)


def _qrels_file(folder: Path, split: str) -> Path:
    path = folder / "qrels" / f"{split}.tsv"
    if not path.is_file():
        held = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        raise ParseError(
            folder,
            None,
            f"a BEIR folder without qrels/{split}.tsv (it has: {', '.join(held) or 'no qrels'})",
        )
    return path


def read_beir_queries(source, split: str = "test", topics: bool = True):
    """The folder's queries (qid, text) as topics of `split`: all but those only other splits
    judge; or (`topics=False`) as a training log: all but those `split` judges. Its
    `queries.jsonl` holds every split's queries: read whole as topics, train queries would
    count as test topics, and read whole as a training log, every test topic would find
    itself. The JSONL itself, or a folder without that split's qrels, gives every query."""
    from leakeval_core.io.frames import read_table, table_queries

    folder = None
    if not isinstance(source, tuple) and Path(source).is_dir():
        folder = Path(source)
        source = folder / "queries.jsonl"
        if not source.is_file():
            raise ParseError(folder, None, "a BEIR folder without queries.jsonl")
    name, table, first = read_table(source, "jsonl")
    queries = table_queries(name, table, first)
    if folder is None or not (folder / "qrels" / f"{split}.tsv").is_file():
        return queries
    judged = split_qids(folder, split)
    if topics:
        others = {p.stem for p in (folder / "qrels").glob("*.tsv")} - {split}
        left_out = set().union(*(split_qids(folder, other) for other in others)) - judged
    else:
        left_out = judged
    return queries[~queries.qid.isin(left_out)].reset_index(drop=True)


def split_qids(folder: str | os.PathLike[str], split: str) -> set[str]:
    """The queries a split judges: a BEIR folder's queries file holds every split's."""
    table = read_beir_qrels(folder, split)
    return set(table.column("qid").chunk(0).dictionary.to_pylist())


def corpus_text(folder: str | os.PathLike[str], docid: str) -> str | None:
    """A document's title and text from the folder's `corpus.jsonl`, None where it has none.

    The first look-up indexes the corpus (docid -> byte offset, one pass); later ones seek.
    """
    path = Path(folder) / "corpus.jsonl"
    if not path.is_file():
        return None
    offset = _offsets(str(path), identity(path.stat())).get(docid)
    if offset is None:
        return None
    with open(path, "rb") as fh:
        fh.seek(offset)
        try:
            doc = json_values.loads(fh.readline())
        except ValueError:
            return None
    parts = [str(doc.get(key) or "") for key in ("title", "text")]
    return "\n\n".join(p for p in parts if p) or None


@lru_cache(maxsize=4)
def _offsets(path: str, state: tuple[int, ...]) -> dict[str, int]:
    """docid -> offset of its line; keyed by the file's identity (its ctime among it), so an
    edited corpus is read anew even when its size and mtime were restored."""
    del state  # the cache key only
    offsets: dict[str, int] = {}
    with open(path, "rb") as fh:
        at = 0
        for line in fh:
            start = line.find(b'"_id"')
            if start >= 0:
                try:
                    docid = json_values.loads(line)["_id"]
                except (ValueError, KeyError, TypeError):
                    docid = None
                if docid is not None:
                    offsets.setdefault(str(docid), at)
            at += len(line)
    return offsets
