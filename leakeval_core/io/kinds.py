"""What kind of input a file is (a run, qrels, topics, a query log, leakage pairs, labels),
told from its first line: the one place that says so when a file is given in the wrong role.

A pairs CSV passed as a run fails the run reader with "expected 6 columns, found 1", which
is true and useless: what the reader needs to hear is "this is a pairs CSV; pass it as
--pairs". Every reader entry point (`trec.read_run_table`, `read_qrels_table`,
`query_files.read_topics`, `read_queries`, `iter_queries`, `given.read_pairs`,
`labels.read_labels`) reads inside `reading(source, role)`: when its reader refuses the
file and the file plainly is another kind, that is the error. A file of the right kind keeps
its reader's error (the line and what is wrong), and nothing is looked at unless a reader
failed, so a good file costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from leakeval_core.errors import ParseError
from leakeval_core.io import json_values
from leakeval_core.io.formats import COLUMN_ALIASES, QID_COLUMNS, TEXT_COLUMNS, head_of

__all__ = ["ROLES", "Kind", "headerless_advice", "identify", "reading", "wrong_role"]

ROLES = {
    "run": ("a run", "--run", "runs="),
    "qrels": ("qrels", "--qrels", "qrels="),
    "topics": ("topics", "--topics", "topics="),
    "queries": ("a query list", "--train-queries", "training_queries="),
    "pairs": ("leakage pairs", "--pairs", "leakage="),
    "labels": ("labelled pairs", "--labels", "labels="),
}
"""Each role: what it is called, the command line's flag for it and the API's argument."""

_EVALUATION = "per-query evaluations (trec_eval -q's measure qid value, with all lines)"
_LABELS = {"topic", "train_text", "title_relation", "near_duplicate"}
_PAIRS = {"test_qid", "similarity"}
"""Columns only a pairs file has (the labels TSV names its topic `topic`)."""
_GRADES = set(COLUMN_ALIASES["grade"]) - set(COLUMN_ALIASES["score"])
_SCORES = {"rank", *COLUMN_ALIASES["score"]} - set(COLUMN_ALIASES["grade"])


@dataclass(frozen=True)
class Kind:
    what: str
    """What the file is, in words: "a TREC run (qid Q0 docid rank score tag)"."""
    roles: tuple[str, ...]
    """The roles (`ROLES`) it can be given in."""


@contextmanager
def reading(source, role: str) -> Iterator[None]:
    """Read `source` as `role`: a reader's error on a file that is another kind of input
    becomes the error that says which kind, and where to pass it."""
    try:
        yield
    except ParseError as exc:
        instead = wrong_role(source, role)
        if instead is None:
            raise
        raise instead from exc


def wrong_role(source, role: str) -> ParseError | None:
    """The error for `source` given as `role` when it looks like another kind of input;
    None when it looks like one of that role, or like nothing leakeval knows."""
    kind = identify(source)
    if kind is None or role in kind.roles:
        return None
    flags = " or ".join(ROLES[r][1] for r in kind.roles)
    arguments = " or ".join(ROLES[r][2] for r in kind.roles)
    name = source[0] if isinstance(source, tuple) else str(source)
    return ParseError(
        name,
        None,
        f"looks like {kind.what}, not {ROLES[role][0]}; pass it as {flags} ({arguments} in Python)",
    )


def identify(source) -> Kind | None:
    """What `source` (a path, a folder or an upload's (name, bytes)) looks like, from its
    first line (a Parquet file: its columns); None when it looks like nothing known."""
    if not isinstance(source, tuple) and Path(source).is_dir():
        folder = Path(source)
        if (folder / "queries.jsonl").is_file() or (folder / "qrels").is_dir():
            return Kind("a BEIR folder (queries.jsonl, qrels/)", ("qrels", "topics", "queries"))
        return None
    head = head_of(source)
    if head.startswith(b"PAR1"):
        return _by_columns(_parquet_columns(source), "Parquet file")
    text = head.decode("utf-8", "replace").removeprefix("\ufeff").lstrip()
    lines = (line.strip("\r") for line in text.split("\n"))
    first = next((line for line in lines if line.strip() and not line.startswith("#")), "")
    if first.startswith("{"):
        return _json_kind(first, text)
    if "<top>" in text.lower():
        return Kind("TREC topics (<top> blocks)", ("topics",))
    for sep, container in (("\t", "TSV"), (",", "CSV")):
        if sep in first:
            kind = _by_columns([c.strip().strip('"') for c in first.split(sep)], container)
            if kind is not None:
                return kind
    return _trec_kind(first)


def _json_kind(first: str, text: str) -> Kind | None:
    try:
        record = json_values.loads(first)
    except ValueError:
        record = None
    if isinstance(record, dict) and not any(isinstance(v, dict) for v in record.values()):
        return _by_columns(list(record), "JSON lines file")
    if '"mteb_model_meta"' in text:
        return Kind("MTEB's saved predictions (a run)", ("run",))
    return Kind("a JSON mapping {qid: {docid: value}} (a run or qrels)", ("run", "qrels"))


def _trec_kind(line: str) -> Kind | None:
    fields = line.split("\t")
    if {f.strip().lower() for f in (fields if len(fields) > 1 else line.split())} & _KNOWN:
        return None  # a header, of columns that say nothing known together
    if len(fields) == 2 and fields[0].strip() and not _is_number(fields[1]):
        return Kind("a query list (qid<TAB>text)", ("topics", "queries"))
    tokens = line.split()
    if len(tokens) == 3 and "all" in tokens[:2]:
        return Kind(_EVALUATION, ("run",))
    if len(tokens) >= 6 and _is_number(tokens[4]):
        return Kind("a TREC run (qid Q0 docid rank score tag)", ("run",))
    if len(tokens) == 4 and tokens[3].lstrip("+-").isdigit():
        return Kind("TREC qrels (qid iter docid grade)", ("qrels",))
    return None


def _by_columns(cells: list[str], container: str) -> Kind | None:
    """The kind a header's column names say."""
    names = [c.lower() for c in cells]
    shown = ", ".join(cells[:6]) + (", ..." if len(cells) > 6 else "")
    if set(names) >= _LABELS:
        return Kind(f"the leakage study's labels TSV (columns {shown})", ("labels", "pairs"))
    docid = any(n in COLUMN_ALIASES["docid"] for n in names)
    if not docid and {"measure", "value"} <= set(names):
        return Kind(f"per-query evaluations, a {container} (columns {shown})", ("run",))
    if names[:2] == ["query-id", "corpus-id"]:
        return Kind(f"a BEIR qrels TSV (header {shown})", ("qrels",))
    if not docid and _PAIRS & set(names):
        return Kind(f"a leakeval pairs {container} (columns {shown})", ("pairs",))
    if docid and _GRADES & set(names):
        return Kind(f"a qrels {container} (columns {shown})", ("qrels",))
    if docid and _SCORES & set(names):
        return Kind(f"a run {container} (columns {shown})", ("run",))
    if docid:
        return Kind(f"a run or qrels {container} (columns {shown})", ("run", "qrels"))
    if any(n in QID_COLUMNS for n in names) and any(n in TEXT_COLUMNS for n in names):
        return Kind(f"a query list {container} (columns {shown})", ("topics", "queries"))
    return None


_LAYOUTS = {
    "run": ("qid Q0 docid rank score tag", "run=trec"),
    "qrels": ("qid 0 docid grade", "qrels=trec"),
    "queries": ("qid<TAB>text", "train-queries=trec or topics=trec"),
}
_KNOWN = {
    *_LABELS,
    *_PAIRS,
    *QID_COLUMNS,
    *TEXT_COLUMNS,
    *(a for n in COLUMN_ALIASES.values() for a in n),
}


def headerless_advice(cells: list[str], file: str) -> str:
    """What to say of a header that names no column a reader needs (`file`: what the file
    is read as: run, qrels, queries): if its cells are values, not names, the file has no
    header, which is TREC's layout; "" otherwise."""
    names = {str(c).strip().strip('"').lower() for c in cells}
    if names & _KNOWN or not any(_is_number(str(c)) or len(str(c).split()) > 1 for c in cells):
        return ""
    layout, named = _LAYOUTS[file]
    shown = ", ".join(repr(str(c)) for c in cells[:6])
    return (
        f"(the first line, {shown}, is data, not a header). Without a header the file is "
        f"TREC's ({layout}): leave --format out, or pass --format {named} (format= in Python)"
    )


def _parquet_columns(source) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        data = pa.BufferReader(source[1]) if isinstance(source, tuple) else str(source)
        return list(pq.read_schema(data).names)
    except (OSError, pa.ArrowException):
        return []


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
