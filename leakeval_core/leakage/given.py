"""Leakage given as input, read into the pairs the leaked rule (`rule.py`) reads.

- A file `leakeval leakage --out OUT.csv` wrote keeps its method and the threshold its sidecar
  (`OUT.csv.json`) says it was cut at, so it flags exactly what its near_duplicate column says.
- Pairs from elsewhere keep their `method` column (`given` when they have none, cut at
  `GIVEN_THRESHOLD`). Without a sidecar, a near_duplicate column beside the similarity says
  where they were cut; a column no threshold can reproduce is an error, not a guess.
- Pairs without a similarity are judged: the study's labels TSV (`labels.py`), a table with a
  near_duplicate column, a list of topic ids. They are leaked as judged.

Every problem in a file is a `ParseError` at its line; in a frame, an error naming its row.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.io import json_values
from leakeval_core.io.kinds import reading
from leakeval_core.io.trec import load_bytes
from leakeval_core.leakage.detect import LEAKAGE_COLUMNS
from leakeval_core.leakage.detection_options import threshold_for
from leakeval_core.leakage.devices import embedded
from leakeval_core.leakage.labels import read_labels
from leakeval_core.leakage.logs import TrainingLog, known_log
from leakeval_core.leakage.rule import GIVEN, JUDGED, SHARED, LeakageTable, main_method, number

__all__ = ["QID_COLUMNS", "judged_topics", "pairs_from_frame", "read_pairs"]

QID_COLUMNS = ("test_qid", "qid", "topic", "topic_id", "query_id")
"""Names a pairs table may give its test topic column, the first found being used."""
_LABEL_HEADER = {"topic", "train_text", "title_relation", "near_duplicate"}
_YES, _NO = {"1", "true", "yes"}, {"0", "false", "no"}

Fail = Callable[[int | None, str], LeakevalError]
"""The error for a problem at a row of the table (None: its header)."""


def read_pairs(path: str | os.PathLike[str]) -> LeakageTable:
    """A pairs file (CSV, or tab-separated) or the study's labels TSV, with its sidecar."""
    with reading(path, "pairs"):
        return _read_pairs(path)


def _read_pairs(path: str | os.PathLike[str]) -> LeakageTable:
    name, data = load_bytes(path)
    text = data.decode("utf-8")
    header = text.split("\n", 1)[0]
    if set(header.split("\t")) >= _LABEL_HEADER:
        return _labels(name)
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep="\t" if "\t" in header else ",", dtype=str, keep_default_na=False
        )
    except pd.errors.ParserError as exc:
        found = re.search(r"line (\d+)", str(exc))
        why = str(exc).strip().removeprefix("Error tokenizing data. C error: ")
        raise ParseError(name, int(found.group(1)) if found else None, why) from None

    def fail(row: int | None, why: str) -> ParseError:
        return ParseError(name, 1 if row is None else row + 2, why)

    side = _sidecar(Path(path))
    return pairs_from_frame(frame, Path(name).name + embedded(side), fail, side)


def pairs_from_frame(
    frame: pd.DataFrame, source: str, fail: Fail | None = None, sidecar: dict | None = None
) -> LeakageTable:
    """Pairs given as a frame (a file's rows, or a frame handed to the API)."""
    fail = fail or (
        lambda row, why: LeakevalError(
            f"{source}: {why}" if row is None else f"{source}: row {row + 1}: {why}"
        )
    )
    sidecar = sidecar or {}
    frame = frame.reset_index(drop=True)
    named = {str(c).strip().lower(): c for c in frame.columns}
    qid = next((named[c] for c in QID_COLUMNS if c in named), None)
    if qid is None:
        raise fail(
            None,
            f"no test_qid column (or {', '.join(QID_COLUMNS[1:])}) among "
            f"{', '.join(map(str, frame.columns))}",
        )

    def column(name: str, default: str = "") -> pd.Series:
        if name not in named:
            return pd.Series(default, index=frame.index, dtype=object)
        return frame[named[name]].fillna("").astype(str).str.strip()

    table = pd.DataFrame(
        {
            "collection": column("collection"),
            "test_qid": frame[qid].fillna("").astype(str).str.strip(),
            "field": column("field", "title"),
            "test_text": column("test_text"),
            "train_qid": column("train_qid"),
            "train_text": column("train_text"),
            "category": column("category") if "category" in named else column("title_relation"),
        }
    )
    _first_bad(table.test_qid == "", fail, "empty test_qid")
    flags = _flags(column("near_duplicate"), fail) if "near_duplicate" in named else None
    if "similarity" in named:
        raw = column("similarity")
        similarity = pd.to_numeric(raw, errors="coerce")
        _first_bad(similarity.isna(), fail, "similarity {} is not a number", raw)
        method = column("method").replace("", sidecar.get("method") or GIVEN)
    else:
        if "method" in named and (column("method").str.lower() != JUDGED).any():
            raise fail(None, "detected pairs need a similarity column (pairs without are judged)")
        similarity = pd.Series(1.0, index=table.index)
        method = pd.Series(JUDGED, index=table.index)
    judged = method.str.lower() == JUDGED
    method[judged] = JUDGED
    if flags is not None:
        similarity[judged] = flags[judged].astype(float)
    table["method"], table["similarity"] = method, similarity.astype(float)
    defaults = {
        m: _default(m, table[~judged & (method == m)], flags, sidecar, fail)
        for m in method[~judged].unique()
    }
    shared = []
    if "shared_relevant" in named:
        raw = column("shared_relevant")
        counts = pd.to_numeric(raw, errors="coerce")
        _first_bad(
            counts.isna() | (counts < 0) | (counts % 1 != 0),
            fail,
            "shared_relevant {} is not a count",
            raw,
        )
        table["shared_relevant"], table["shared_docs"] = counts.astype(int), column("shared_docs")
        shared = list(SHARED)
    return LeakageTable(
        table[[*LEAKAGE_COLUMNS, *shared]],
        source,
        method=main_method(table.method, sidecar.get("method") or GIVEN),
        defaults=defaults,
        logs=_logs(sidecar),
        answers=str(sidecar.get("answers") or "")
        or ("its shared_relevant column" if shared else ""),
        answers_level=sidecar.get("relevance_level") if shared else None,
    )


def judged_topics(ids: Iterable[object], source: str = "the given topic ids") -> LeakageTable:
    """A list of leaked topic ids: each a judged near-duplicate of an unnamed query."""
    qids = sorted({str(q) for q in ids})
    return pairs_from_frame(pd.DataFrame({"test_qid": qids}), source)


def _labels(source: str) -> LeakageTable:
    """The labels TSV: each judged pair as it was judged (similarity 1 for a near-duplicate,
    0 for another information need), its category the title relation."""
    labels = read_labels(source, relations=False)
    table = labels.table
    pairs = pd.DataFrame(
        {
            "collection": "",
            "test_qid": table.topic,
            "field": "title",
            "test_text": table.title,
            "train_qid": table.train_qid,
            "train_text": table.train_text,
            "method": JUDGED,
            "similarity": table.near_duplicate.astype(float),
            "category": table.title_relation,
        }
    )
    return LeakageTable(
        pairs[LEAKAGE_COLUMNS],
        f"{Path(source).name} (judged)",
        method=JUDGED,
        warnings=labels.warnings,
    )


def _default(
    method: str, rows: pd.DataFrame, flags: pd.Series | None, sidecar: dict, fail: Fail
) -> float:
    """A detected method's default threshold in these pairs: the one the sidecar says they
    were cut at; else where their near_duplicate column cuts them (the method's own when it
    agrees); else the method's own."""
    own = threshold_for(method)
    if sidecar.get("threshold") is not None:
        return float(sidecar["threshold"])
    if flags is None:
        return own
    near, similarity = flags[rows.index], rows.similarity
    if ((similarity >= own) == near).all():
        return own
    if near.any() and (not (~near).any() or similarity[near].min() > similarity[~near].max()):
        return float(similarity[near].min())
    row = int(rows.index[((similarity >= own) != near).to_numpy()][0])
    raise fail(
        row,
        f"near_duplicate {int(near[row])} disagrees with similarity "
        f"{number(similarity[row])} at {method}'s threshold {number(own)}, and no threshold "
        "cuts the pairs as that column does; restore the .json sidecar `leakeval leakage` "
        "wrote beside the file, or drop the near_duplicate column",
    )


def _flags(values: pd.Series, fail: Fail) -> pd.Series:
    text = values.str.lower()
    _first_bad(~text.isin(_YES | _NO), fail, "near_duplicate {} is not 0 or 1", values)
    return text.isin(_YES)


def _first_bad(bad: pd.Series, fail: Fail, why: str, values: pd.Series | None = None) -> None:
    """Raise at the first row where `bad` holds (`why` formatted with its value)."""
    if bad.any():
        row = int(np.argmax(bad.to_numpy()))
        value = "" if values is None else repr(values.iloc[row])
        raise fail(row, why.format(value))


def _sidecar(path: Path) -> dict:
    """What `leakeval leakage` wrote beside its pairs (`OUT.csv.json`), or {}."""
    side = Path(f"{path}.json")
    if not side.is_file():
        return {}
    try:
        data = json_values.loads(side.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(side, getattr(exc, "lineno", None), f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ParseError(side, 1, "not a JSON object")
    threshold = data.get("threshold")
    if threshold is not None and not isinstance(threshold, int | float):
        raise ParseError(side, None, f"threshold {threshold!r} is not a number")
    if data.get("sample_of") is not None:
        try:
            known_log(str(data["sample_of"]))
        except LeakevalError as exc:
            raise ParseError(side, None, str(exc)) from None
    return data


def _logs(sidecar: dict) -> tuple[TrainingLog, ...]:
    if sidecar.get("train_queries") is None:
        return ()
    queries = sidecar.get("queries_compared")
    return (
        TrainingLog(
            str(sidecar["train_queries"]),
            int(queries) if isinstance(queries, int) else None,
            sidecar.get("sample_of"),
        ),
    )
