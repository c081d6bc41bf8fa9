"""Answers that leaked too: a training query's positive documents among a test topic's
relevant ones.

When training data and test collection share a corpus (TREC DL and MS MARCO's training pairs,
BEIR's in-domain train splits, a lab's own fine-tuning split), a near-duplicate training query
may come with a positive document the test qrels judge relevant: the model saw the question
*and* its answer. Each pair therefore gains `shared_relevant`, how many of its test topic's
relevant documents (at the relevance level in force) are positives of its training query, and
`shared_docs`, their ids. Which topics that makes answer-leaked is the leaked rule's
(`rule.LeakageTable.leaks`), not this module's.

Training documents are matched to the test qrels' ids as they are: a training set from another
corpus shares none, and `TrainingAnswers.corpus_note` says so instead of reporting no answer
leakage.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.io.formats import COLUMN_ALIASES
from leakeval_core.leakage.rule import SHARED, LeakageTable

__all__ = [
    "SHARED_COLUMNS",
    "TrainingAnswers",
    "read_training_qrels",
    "shared_relevant",
    "shared_with",
    "training_answers",
    "with_answers",
]

SHARED_COLUMNS = SHARED
"""What a pair gains from training qrels: the count of shared relevant documents and their
ids, joined by `DOC_SEPARATOR`."""
DOC_SEPARATOR = ";"
_QUERY = ("train_qid", *COLUMN_ALIASES["qid"])
_DOC = (*COLUMN_ALIASES["docid"], "pid", "passage_id", "positive", "positive_id")


@dataclass(frozen=True)
class TrainingAnswers:
    """The training queries' positive documents: train_qid, docid (strings), one row each."""

    positives: pd.DataFrame = field(repr=False)
    source: str

    def corpus_note(self, judged_docs: pd.Series) -> str:
        """One line: how many training positives the test qrels judge at all (any grade).
        None: the training data comes from another corpus, and leakage stays at the query."""
        import pyarrow as pa
        import pyarrow.compute as pc

        # arrow's hash join: a Python set of 500k strings takes seconds
        docs = pa.array(self.positives.docid.drop_duplicates(), type=pa.string())
        judged = pa.array(pd.Series(judged_docs).drop_duplicates(), type=pa.string())
        total, found = len(docs), pc.sum(pc.is_in(docs, value_set=judged)).as_py() or 0
        if not found:
            return (
                f"none of the {total:,} positive documents in {self.source} is judged in the "
                "test qrels: another corpus, so leakage is counted at the query only"
            )
        return (
            f"{found:,} of the {total:,} positive documents in {self.source} are judged in "
            "the test qrels"
        )


def training_answers(value: object) -> TrainingAnswers:
    """Training qrels as given to a door: a file (`read_training_qrels`) or its (name, bytes),
    a frame of training query and document columns, a {train_qid: {docid: grade}} dict, or
    answers already read."""
    if isinstance(value, TrainingAnswers):
        return value
    if isinstance(value, str | os.PathLike | tuple):  # a path, or (name, bytes) uploaded
        return read_training_qrels(value)
    if isinstance(value, dict):
        rows = [(str(q), str(d), g) for q, docs in value.items() for d, g in dict(docs).items()]
        frame = pd.DataFrame(rows, columns=["train_qid", "docid", "grade"])
        return _answers(frame, "the given training qrels")
    if isinstance(value, pd.DataFrame):
        return _from_frame(value, "the given training qrels", None)
    raise LeakevalError(
        f"training qrels must be a file, a frame or a dict, not {type(value).__name__}"
    )


def read_training_qrels(path: str | os.PathLike[str] | tuple[str, bytes]) -> TrainingAnswers:
    """TREC qrels (MS MARCO's `qrels.train.tsv`), a BEIR qrels TSV, anything `read_qrels`
    reads, or a CSV/TSV whose header names a training query and a positive document column
    (every row a positive). A grade of 0 or less is not a positive."""
    from leakeval_core.io.trec import load_bytes, read_qrels

    name, data = load_bytes(path)
    first = data[: data.find(b"\n")].decode("utf-8", "replace").strip().lower()
    sep = "\t" if "\t" in first else ","
    cells = [c.strip() for c in first.split(sep)]
    if any(c in _QUERY for c in cells) and not any(c in COLUMN_ALIASES["grade"] for c in cells):
        frame = pd.read_csv(io.BytesIO(data), sep=sep, dtype=str, keep_default_na=False)
        return _from_frame(frame, Path(name).name, name)
    frame = read_qrels((name, data))
    return _answers(frame.rename(columns={"qid": "train_qid"}), Path(name).name)


def _from_frame(frame: pd.DataFrame, source: str, file: str | None) -> TrainingAnswers:
    def fail(row: int | None, why: str) -> LeakevalError:
        """At a file's line (its header is line 1), or a frame's row."""
        if file:
            return ParseError(file, 1 if row is None else row + 2, why)
        return LeakevalError(
            f"{source}: {why}" if row is None else f"{source}: row {row + 1}: {why}"
        )

    named = {str(c).strip().lower(): c for c in frame.columns}
    query = next((named[c] for c in _QUERY if c in named), None)
    doc = next((named[c] for c in _DOC if c in named), None)
    if query is None or doc is None:
        missing = "training query" if query is None else "document"
        raise fail(
            None,
            f"no {missing} column among {', '.join(map(str, frame.columns))}; name the "
            f"training query train_qid (or qid) and the document docid (or doc_id, corpus-id)",
        )
    out = pd.DataFrame(
        {
            "train_qid": frame[query].astype(str).str.strip(),
            "docid": frame[doc].astype(str).str.strip(),
        }
    )
    empty = (out.train_qid == "") | (out.docid == "")
    if empty.any():
        row = int(np.argmax(empty.to_numpy()))
        what = "training query" if out.train_qid.iloc[row] == "" else "document"
        raise fail(row, f"an empty {what} id")
    grade = next((named[c] for c in COLUMN_ALIASES["grade"] if c in named), None)
    if grade is not None:
        out["grade"] = pd.to_numeric(frame[grade], errors="coerce")
        if out.grade.isna().any():
            row = int(np.argmax(out.grade.isna().to_numpy()))
            raise fail(row, f"grade {frame[grade].iloc[row]!r} is not a number")
    return _answers(out, source)


def _answers(frame: pd.DataFrame, source: str) -> TrainingAnswers:
    if "grade" in frame.columns:
        frame = frame[frame.grade > 0]
    positives = frame[["train_qid", "docid"]].astype(str).drop_duplicates().reset_index(drop=True)
    if positives.empty:
        raise LeakevalError(f"{source}: no positive training document (every grade is 0 or less)")
    return TrainingAnswers(positives, source)


def shared_relevant(
    pairs: pd.DataFrame, relevant: pd.DataFrame, answers: TrainingAnswers
) -> pd.DataFrame:
    """`pairs` (collection, test_qid, train_qid, ...) with `SHARED_COLUMNS`: per pair, the test
    topic's relevant documents (`relevant`: collection, qid, docid at the level in force) that
    are positives of its training query, counted and listed in docid order."""
    keys = pairs[["collection", "test_qid", "train_qid"]].astype(str).reset_index(drop=True)
    keys["pair"] = np.arange(len(keys))
    positives = answers.positives[answers.positives.train_qid.isin(set(keys.train_qid))]
    shared = keys.merge(positives, on="train_qid").merge(
        relevant[["collection", "qid", "docid"]].astype(str),
        left_on=["collection", "test_qid", "docid"],
        right_on=["collection", "qid", "docid"],
    )
    grouped = shared.sort_values("docid").groupby("pair").docid
    counts = grouped.size().reindex(keys.pair, fill_value=0)
    docs = grouped.agg(DOC_SEPARATOR.join).reindex(keys.pair, fill_value="")
    out = pairs.drop(columns=[c for c in SHARED_COLUMNS if c in pairs.columns]).copy()
    out["shared_relevant"] = counts.to_numpy().astype(int)
    out["shared_docs"] = docs.to_numpy()
    return out


def with_answers(
    pairs: LeakageTable,
    qrels: Mapping[str, pd.DataFrame],
    answers: TrainingAnswers,
    relevance_level: int | Mapping[str, int] = 1,
) -> LeakageTable:
    """`pairs` with `SHARED_COLUMNS` counted against each collection's qrels (`shared_with`)."""
    frame, note = shared_with(pairs.table, qrels, answers, relevance_level)
    levels = set(_levels(relevance_level, qrels).values())
    level = levels.pop() if len(levels) == 1 else None  # one level, or each collection's own
    return replace(pairs, table=frame, answers=note, answers_level=level)


def shared_with(
    pairs: pd.DataFrame,
    qrels: Mapping[str, pd.DataFrame],
    answers: TrainingAnswers,
    relevance_level: int | Mapping[str, int] = 1,
) -> tuple[pd.DataFrame, str]:
    """`pairs` (a collection column, or none: the one collection, named "" in `qrels`) with
    `SHARED_COLUMNS` counted against each collection's qrels (qid, docid, grade): a document
    is relevant at the relevance level or above, as binary measures count it (one for all,
    or each collection's own: TREC DL's official 2, say); pairs of a collection without
    qrels share nothing. And the corpus line (`corpus_note`)."""
    levels = _levels(relevance_level, qrels)
    relevant = [
        frame.loc[frame.grade >= levels[name], ["qid", "docid"]].assign(collection=name)
        for name, frame in qrels.items()
    ]
    judged = pd.concat([frame.docid for frame in qrels.values()]) if qrels else pd.Series([])
    keyed = pairs if "collection" in pairs else pairs.assign(collection="")
    frame = shared_relevant(
        keyed,
        pd.concat(relevant) if relevant else pd.DataFrame(columns=["collection", "qid", "docid"]),
        answers,
    )
    frame = frame if "collection" in pairs else frame.drop(columns="collection")
    return frame, answers.corpus_note(judged)


def _levels(level: int | Mapping[str, int], qrels: Mapping[str, object]) -> dict[str, int]:
    return dict(level) if isinstance(level, Mapping) else dict.fromkeys(qrels, int(level))
