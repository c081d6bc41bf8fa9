"""Input shapes: qrels, runs and leakage as a researcher already holds them.

Files in any format `io.formats` reads, pandas frames (common column names, PyTerrier's, or a
mapping), pyarrow tables, pytrec_eval's dicts of dicts, ranx's objects, and uploaded bytes
all become the readers' validated tables, with errors that say which input and which row is
wrong.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leakeval_core.errors import LeakevalError

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.leakage.rule import LeakageTable

__all__ = [
    "Table",
    "as_run",
    "as_table",
    "as_topic_groups",
    "detected_pairs",
    "formatted",
    "leakage_pairs",
    "named_runs",
    "pairs_collection",
    "qrels_name",
    "topics_frame",
]

Table = Any
"""A path, a pandas DataFrame, a pyarrow Table, a dict of dicts (qid -> docid -> value),
or, for a run, (name, bytes) as uploaded."""


def named_runs(runs: Any) -> dict[str, Any]:
    """name -> run, from one run, a mapping, or a list of run files."""
    from leakeval_core.io.trec import unique_run_names

    if isinstance(runs, Mapping) and runs and all(isinstance(v, Mapping) for v in runs.values()):
        # a dict of dicts is one pytrec_eval run (qid -> docid -> score) unless its values
        # are themselves runs (name -> qid -> docid -> score)
        first = next(iter(runs.values()))
        if all(isinstance(v, Mapping) for v in first.values()):
            return dict(runs)
        return {"run": runs}
    if isinstance(runs, Mapping):
        return dict(runs)
    if isinstance(runs, list | tuple) and not _is_upload(runs):
        if not runs:
            raise LeakevalError("no run given")
        if all(isinstance(r, str | os.PathLike) for r in runs):
            return dict(zip(unique_run_names(list(runs)), runs, strict=True))
        return {f"run{i + 1}": run for i, run in enumerate(runs)}
    if isinstance(runs, str | os.PathLike):
        return dict(zip(unique_run_names([runs]), [runs], strict=True))
    if _is_upload(runs):
        return {runs[0]: runs}
    return {"run": runs}


def qrels_name(qrels: Any, collection: str | None = None) -> str:
    """How a warning names the qrels: by their file's name (or an upload's), else as the
    collection's, else as "the qrels"."""
    from leakeval_core.evaluation.scoring_warnings import collection_qrels

    if isinstance(qrels, str | os.PathLike):
        return Path(qrels).name
    if _is_upload(qrels):
        return qrels[0]
    return "the qrels" if collection is None else collection_qrels(collection)


def _is_upload(value: Any) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], bytes)
    )


def as_table(
    value: Any,
    column: str,
    what: str,
    columns: Mapping[str, str] | None = None,
):
    """A run or qrels as a reader's table (qid, docid and `column`).

    A path is read in whatever format it is in (`io.formats`; `formatted` names it where
    its content cannot tell); a frame or arrow table by its column names (PyTerrier's among
    them); a dict of dicts, or an object with `to_dict()` giving one (ranx's `Run` and
    `Qrels`), as qid -> docid -> value.
    """
    import pandas as pd
    import pyarrow as pa

    from leakeval_core.io import frames, trec

    if _is_upload(value):
        if column == "grade":
            raise LeakevalError(f"{what}: uploaded bytes are read as a run, not as qrels")
        return trec.read_run_table(value)
    if isinstance(value, str | os.PathLike):
        if not Path(value).exists():
            raise LeakevalError(f"{what}: {value}: no such file")
        return trec.read_qrels_table(value) if column == "grade" else trec.read_run_table(value)
    if not isinstance(value, Mapping | pd.DataFrame | pa.Table) and hasattr(value, "to_dict"):
        value = value.to_dict()
    if isinstance(value, Mapping):
        rows = [
            (str(q), str(d), v)
            for q, docs in value.items()
            if _is_mapping(q, docs, what)
            for d, v in docs.items()
        ]
        value = pd.DataFrame(rows, columns=["qid", "docid", column])
    if isinstance(value, pa.Table):
        return frames.table_pairs(what, value, column, columns)
    if not isinstance(value, pd.DataFrame):
        raise LeakevalError(
            f"{what}: expected a file path, a DataFrame, a pyarrow Table, a dict of dicts or "
            f"an object with to_dict() (ranx), got {type(value).__name__}"
        )
    return frames.frame_pairs(value, column, what, columns)


def formatted(qrels: Any, runs: dict[str, Any], format: str | Mapping[str, str] | None):
    """The qrels and runs with the format `format` names for them (`io.formats.with_format`):
    a string names the runs' format, a mapping names it per role ("run", "qrels"). Only
    paths take a format; every other input says what it is."""
    from leakeval_core.io.formats import with_format

    if format is None:
        return qrels, runs
    named = {"run": format} if isinstance(format, str) else dict(format)
    unknown = set(named) - {"run", "qrels"}
    if unknown:
        raise LeakevalError(f"format= names roles run and qrels, not {sorted(unknown)[0]!r}")
    return with_format(qrels, named.get("qrels")), {
        name: with_format(run, named.get("run")) for name, run in runs.items()
    }


def as_run(value: Any, name: str, columns: Mapping[str, str] | None = None):
    """A run as `as_table` reads it, or a published per-query evaluation
    (`evaluation.per_query_files.Evaluation`) where the file or upload is one, or a frame of qid,
    measure and value: both stand wherever a run does."""
    import pandas as pd

    from leakeval_core.evaluation.per_query_files import (
        evaluation_frame,
        is_evaluation,
        read_evaluation,
    )

    if isinstance(value, pd.DataFrame) and {"measure", "value"} <= set(value.columns):
        return evaluation_frame(f"run {name!r}", value)
    is_file = isinstance(value, str | os.PathLike) and Path(value).is_file()
    if (is_file or _is_upload(value)) and is_evaluation(value):
        return read_evaluation(value)
    return as_table(value, "score", f"run {name!r}", columns)


def pairs_collection(leakage: Any) -> str | None:
    """The one collection given pairs name, None where they name none or several: what
    runs given without qrels are the runs of."""
    from leakeval_core.leakage.rule import LeakageTable

    if leakage is None:
        return None
    sources = leakage if _is_sources(leakage) else [leakage]
    named = set(LeakageTable.union([_pairs_of(s) for s in sources]).table.collection) - {""}
    return named.pop() if len(named) == 1 else None


def _is_mapping(qid: object, docs: object, what: str) -> bool:
    if not isinstance(docs, Mapping):
        raise LeakevalError(
            f"{what}: query {qid!r} maps to {type(docs).__name__}, not to {{docid: value}}"
        )
    return True


def leakage_pairs(leakage: Any, collection: str) -> LeakageTable:
    """Given leakage as the pairs the leaked rule reads (`leakage.rule`): a pairs file
    (`leakeval leakage`'s with its sidecar, another tool's CSV, or the study's labels TSV), a
    frame of pairs, a `LeakageTable`, a list of leaked topic ids (judged leaked), or a list of
    such sources, merged as a union in which each pair keeps its own rule. The pairs are
    `collection`'s: those of a table naming several collections are the ones named so."""
    from leakeval_core.leakage.rule import LeakageTable

    sources = leakage if _is_sources(leakage) else [leakage]
    pairs = LeakageTable.union([_pairs_of(source) for source in sources])
    named = set(pairs.table.collection) - {""}
    table = pairs.table
    if collection in named:
        table = table[table.collection.isin([collection, ""])]
    elif len(named) > 1:
        raise LeakevalError(
            f"leakage: the pairs are of collections {', '.join(sorted(named))}, none of them "
            f"{collection!r}: name the collection (--collection, collection= in Python)"
        )
    return replace(pairs, table=table.assign(collection=collection).reset_index(drop=True))


def detected_pairs(
    pairs: pd.DataFrame,
    method: str,
    train_queries: object,
    sample_of: str | None = None,
    threshold: float | None = None,
) -> LeakageTable:
    """Pairs `detect_leakage` found with `method` in `train_queries`, read as the pairs
    file `leakeval leakage` writes of them is read back: with the log, its size (the
    detection's report), the log it is a sample of, and the threshold they are cut at
    (default: the method's)."""
    from leakeval_core.leakage.devices import detection_source
    from leakeval_core.leakage.given import pairs_from_frame

    name = Path(train_queries).name if isinstance(train_queries, os.PathLike) else train_queries
    report = {
        **pairs.attrs.get("read", {}),
        **pairs.attrs.get("answers", {}),
        "train_queries": str(train_queries),
        "method": method,
        "sample_of": sample_of,
        "threshold": threshold,
    }
    return pairs_from_frame(pairs, detection_source(method, name, report), sidecar=report)


def _is_sources(value: Any) -> bool:
    """Whether a list holds sources of pairs (files, frames, tables) rather than topic ids."""
    import pandas as pd

    from leakeval_core.leakage.rule import LeakageTable

    if not isinstance(value, list | tuple) or not value:
        return False
    files = [isinstance(v, str) and Path(v).is_file() for v in value]
    if any(files) and not all(files[i] for i, v in enumerate(value) if isinstance(v, str)):
        raise LeakevalError("leakage: a list mixes pairs files and topic ids; give one or other")
    return all(
        f or isinstance(v, pd.DataFrame | LeakageTable | os.PathLike)
        for f, v in zip(files, value, strict=True)
    )


def _pairs_of(source: Any) -> LeakageTable:
    import pandas as pd

    from leakeval_core.leakage.given import judged_topics, pairs_from_frame, read_pairs
    from leakeval_core.leakage.rule import LeakageTable

    if isinstance(source, LeakageTable):
        return source
    if isinstance(source, str | os.PathLike):
        return read_pairs(source)
    if hasattr(source, "to_pandas") and not isinstance(source, pd.DataFrame):
        source = source.to_pandas()  # a pyarrow Table
    if isinstance(source, pd.DataFrame):
        return pairs_from_frame(source, "the given pairs")
    if isinstance(source, Iterable) and not isinstance(source, bytes | Mapping):
        return judged_topics(source)
    raise LeakevalError(
        "leakage: expected pairs (a file, a DataFrame) or topic ids, or a list of pairs, "
        f"got {type(source).__name__}"
    )


def as_topic_groups(value: Any, need_group: bool = True) -> pd.DataFrame:
    """Topic groups (or, without `need_group`, a topic list) given as a file, a frame with
    qid (and group, optionally collection) columns, or a mapping of qid to group."""
    import pandas as pd

    from leakeval_core.io.topic_groups import read_topic_groups

    if isinstance(value, str | os.PathLike):
        return read_topic_groups(value, need_group)
    if isinstance(value, Mapping):
        value = pd.DataFrame({"qid": list(value), "group": list(value.values())})
    elif not isinstance(value, pd.DataFrame):
        value = pd.DataFrame({"qid": list(value)})
    if "qid" not in value or (need_group and "group" not in value):
        raise LeakevalError("topic groups need columns qid and group (collection optional)")
    return pd.DataFrame(
        {
            "collection": value["collection"].astype(str) if "collection" in value else "",
            "qid": value.qid.astype(str),
            "group": value.group.astype(str) if "group" in value else "covered",
        }
    )


def topics_frame(frame):
    if not {"qid", "title"} <= set(frame.columns):
        raise LeakevalError("topics need columns qid and title (description, narrative optional)")
    out = frame.astype({"qid": str, "title": str}).copy()
    for column in ("description", "narrative"):
        out[column] = out[column].fillna("").astype(str) if column in out else ""
    return out[["qid", "title", "description", "narrative"]]
