"""Which format an input is in, told from its content: the one place that decides.

Researchers hold their runs, qrels and queries in the files their benchmark wrote (BEIR
folders, MTEB's saved predictions, ranx's JSON, PyTerrier's frames, Hugging Face datasets),
not only in TREC's. Every reader entry point (`trec.read_run_table`, `read_qrels_table`,
`query_files.read_topics`, `read_queries`, `iter_queries`) asks `detect_format` first, so every
door (CLI, API, experiment folders, the app's uploads) reads every format without code of its
own. Where the content cannot tell (it rarely cannot), a path names its format with
`with_format` (the CLI's `--format`, the API's `format=`).

The formats (`FORMATS`), each read by one module:

- `trec`: TREC runs and qrels, SGML topics, `qid<TAB>text` or CSV query lists (`trec`,
  `query_files`);
- `beir`: a BEIR folder (`queries.jsonl`, `qrels/SPLIT.tsv`, `corpus.jsonl`), or its qrels TSV
  (header `query-id corpus-id score`) or its queries JSONL alone (`beir`);
- `json`: one JSON mapping `{qid: {docid: value}}`: ranx's `Run`/`Qrels` JSON and MTEB's saved
  predictions, plain or as MTEB v2 wraps them (`json_maps`);
- `jsonl`: one JSON object a line, with a qid and a text, or a qid, a docid and a value
  (`frames`);
- `csv`: a delimited frame with a header (PyTerrier's `qid, docno, score` or `label`) (`frames`);
- `parquet`: a Parquet frame with the same columns (`frames`);
- `hf`: a Hugging Face dataset saved to disk (`save_to_disk`: `state.json` and
  `data-*.arrow`), read with pyarrow (`frames`).

Nothing heavy is imported here: detection reads at most `_HEAD` bytes.
"""

from __future__ import annotations

import io
import os
import zlib
from pathlib import Path
from typing import Literal

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.io import json_values
from leakeval_core.io.compressed import is_gzip, open_input

__all__ = [
    "ALIASES",
    "COLUMN_ALIASES",
    "FORMATS",
    "QID_COLUMNS",
    "TEXT_COLUMNS",
    "Formatted",
    "detect_format",
    "given_format",
    "given_part",
    "head_of",
    "query_folder_files",
    "split_format",
    "with_format",
]

Format = Literal["trec", "beir", "json", "jsonl", "csv", "parquet", "hf"]
FORMATS: tuple[str, ...] = ("trec", "beir", "json", "jsonl", "csv", "parquet", "hf")
ALIASES = {"mteb": "json", "ranx": "json", "pyterrier": "csv", "tsv": "csv"}
"""Names a user may say for a format: MTEB predictions and ranx files are one JSON shape."""

COLUMN_ALIASES = {
    "qid": ("qid", "query_id", "query-id", "q_id", "topic", "topic_id", "test_qid", "query"),
    "docid": ("docno", "docid", "doc_id", "corpus-id", "corpus_id", "document_id", "did"),
    "grade": ("grade", "relevance", "rel", "label", "judgment", "score"),
    "score": ("score", "sim", "similarity", "rank_score"),
}
"""Column names recognised without a mapping (PyTerrier, ranx, ir_measures, BEIR and pandas
habits), in order of preference: PyTerrier's `docno` is the document's id where its `docid`
is an internal number, and its `query` is the text where `qid` is the id. A qrels frame's
`score` is its grade (BEIR's and MTEB's qrels name it so)."""

QID_COLUMNS = ("qid", "query_id", "query-id", "id", "_id", "topic_id")
"""A query list's id column (BEIR's and Hugging Face's `_id` and `id` among them)."""
TEXT_COLUMNS = ("query", "text", "query_text", "title")

_HEAD = 1 << 16
_BEIR_QRELS = ("query-id", "corpus-id")
_JSONL_IDS = ("_id", "id", "qid", "query_id", "query-id")


class Formatted(os.PathLike):
    """A path with its format named, for the rare file its content does not tell.

    It is a path everywhere (`os.fspath`, `Path(...)`), so it goes through every door that
    takes one; the readers find the format on it.
    """

    def __init__(self, path: str | os.PathLike[str], format: str) -> None:
        self.path = os.fspath(path)
        self.format, self.part = split_format(format)

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        named = self.format if self.part is None else f"{self.format}:{self.part}"
        return f"Formatted({self.path!r}, {named!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Formatted) and (self.path, self.format, self.part) == (
            other.path,
            other.format,
            other.part,
        )

    def __hash__(self) -> int:
        return hash((self.path, self.format, self.part))


def with_format(source, format: str | None):
    """`source` with its format named, when it is a path and a format is given."""
    if format is None or not isinstance(source, str | os.PathLike):
        return source
    return Formatted(source, format)


def given_format(source) -> str | None:
    """The format a `Formatted` path names (a str's `.format` is its method, not a format)."""
    return source.format if isinstance(source, Formatted) else None


def given_part(source) -> str | None:
    """The part of the file a `Formatted` path names (`mteb:SUBSET/SPLIT`), else None."""
    return source.part if isinstance(source, Formatted) else None


def split_format(format: str) -> tuple[str, str | None]:
    """A named format, and the part of the file it names after a colon: `mteb:default/test`.
    MTEB saves every subset and split of a task (a multilingual task's languages) in one
    file, each a run of its own."""
    name, _, part = format.partition(":")
    checked = _checked(name)
    if part and checked != "json":
        raise LeakevalError(
            f"format {format!r}: only a JSON mapping (MTEB's predictions) has parts to name"
        )
    return checked, part or None


def _checked(format: str) -> str:
    name = ALIASES.get(format.lower(), format.lower())
    if name not in FORMATS:
        raise LeakevalError(
            f"unknown format {format!r}; formats: {', '.join(FORMATS)} "
            f"(also {', '.join(f'{a} = {n}' for a, n in ALIASES.items())})"
        )
    return name


def detect_format(source, format: str | None = None) -> str:
    """The format of a source (a path, a folder, or (name, bytes) as uploaded).

    A named format (`format`, or one a `Formatted` path carries) wins; otherwise the content
    decides: a folder by the files in it, a file by its first bytes (gzip is looked through).
    Whatever is not recognised is `trec`, whose readers say precisely what is wrong.
    """
    named = format or given_format(source)
    if named is not None:
        return split_format(named)[0]
    if not isinstance(source, tuple) and Path(source).is_dir():
        return _folder_format(Path(source))
    return _content_format(head_of(source))


def head_of(source) -> bytes:
    """The first bytes of a file or an upload, gzip looked through (b"" when it cannot be
    read: the reader names what is wrong)."""
    if isinstance(source, tuple):
        name, head = source[0], source[1][:_HEAD]
    else:
        path = Path(source)
        name = str(path)
        if not path.is_file():
            return b""
        head = _read_head(path)
    if is_gzip(head):
        head = _gunzip_head(name, head if isinstance(source, tuple) else None, source)
    return head


def query_folder_files(path: str | os.PathLike[str]) -> list[Path] | None:
    """The files a folder that is one source of queries reads them from (a Hugging Face
    dataset's state and data files, a BEIR folder's queries.jsonl), None for any other
    folder (a sharded log) or a file: what a cache key hashes and a shard finder leaves whole."""
    path = Path(path)
    if not path.is_dir():
        return None
    if (path / "state.json").is_file() and any(path.glob("data-*.arrow")):
        return [path / "state.json", *sorted(path.glob("data-*.arrow"))]
    if (path / "queries.jsonl").is_file():
        return [path / "queries.jsonl"]
    return None


def _folder_format(path: Path) -> str:
    if (path / "state.json").is_file() and any(path.glob("data-*.arrow")):
        return "hf"
    if (path / "queries.jsonl").is_file() or (path / "qrels").is_dir():
        return "beir"
    raise ParseError(
        path,
        None,
        "is a directory, not a file, a BEIR folder (queries.jsonl, qrels/) or a Hugging "
        "Face dataset saved to disk (state.json, data-*.arrow)",
    )


def _read_head(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(_HEAD)
    except OSError:
        return b""  # the reader names what is wrong


def _gunzip_head(name: str, data: bytes | None, source) -> bytes:
    """The first decompressed bytes; a corrupt stream is left for the reader to name."""
    try:
        raw = io.BytesIO(data) if data is not None else open(source, "rb")  # noqa: SIM115
        with open_input(name, raw) as fh:
            return fh.read(_HEAD)
    except (OSError, EOFError, zlib.error):
        return b""


def _content_format(head: bytes) -> str:
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"{"):
        return "jsonl" if _is_json_line(text.split(b"\n", 1)[0]) else "json"
    first = text.split(b"\n", 1)[0].rstrip(b"\r")
    for sep in (b"\t", b","):
        cells = [c.strip().strip(b'"').lower() for c in first.split(sep)]
        if cells[:2] == [c.encode() for c in _BEIR_QRELS]:
            return "beir"
        if sep == b"," and len(cells) > 1 and _names_columns(cells):
            return "csv"
        if sep == b"\t" and len(cells) > 2 and _names_columns(cells):
            return "csv"
    return "trec"


def _names_columns(cells: list[bytes]) -> bool:
    """A header that names a docid column: a run or qrels frame (query lists, whose CSV
    headers name a qid and a text, stay with their reader)."""
    return any(c.decode("utf-8", "replace") in COLUMN_ALIASES["docid"] for c in cells)


def _is_json_line(line: bytes) -> bool:
    """A whole JSON object on the first line that holds a record (an id beside scalar
    values), not a mapping of queries (whose values are objects)."""
    try:
        value = json_values.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and any(key in value for key in _JSONL_IDS)
