"""Qrels read and indexed once per file, kept in the cache for the next command.

A researcher scores against the same qrels again and again (each checkpoint's run, each
new system), and reading and indexing a large qrels file costs a third of scoring one run
against it: Robust04's 311k judgments take longer to prepare than most runs take to score.
So the read table and its judgment index are kept as one Arrow IPC file, keyed by the
file's content and by what the index depends on (the relevance level, the policy for
queries without a relevant document), and a later command reads it back instead.

The cache is only a shortcut: an entry that is missing, damaged or from another layout
(`LAYOUT`) is rebuilt from the file, and a qrels file that cannot be read is an error each
time, never cached. A folder (BEIR's) is read each time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.judgments import JudgmentIndex
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.experiment.cache import Cache, hash_key
from leakeval_core.io import trec
from leakeval_core.io.arrays import from_numpy, to_numpy
from leakeval_core.io.digest import file_digest
from leakeval_core.io.formats import given_format

__all__ = ["KIND", "LAYOUT", "prepared_qrels"]

KIND = "prepared-qrels"
LAYOUT = 1
"""The entries' layout: raised when what is stored changes (the judgment index's arrays,
the hash it keys docids by), so that older entries are never read."""

_TABLE = ("qid", "docid")
"""The qrels table's dictionary columns, stored as their codes and their values."""


def prepared_qrels(
    source: str | os.PathLike[str], conventions: Conventions, cache: Cache | None = None
) -> PreparedQrels:
    """The qrels at `source` prepared for scoring under `conventions`, from the cache
    (default: the user's) when this file was prepared before."""
    if not Path(source).is_file():
        return _prepared(source, conventions)
    cache = cache or Cache()
    key = hash_key(
        KIND,
        LAYOUT,
        file_digest(source),
        given_format(source),
        conventions.relevance_level,
        conventions.no_relevant,
    )
    stored = cache.get_arrow(KIND, key)
    if stored is not None:
        return _unpacked(stored, conventions)
    prepared = _prepared(source, conventions)
    cache.put_arrow(KIND, key, _packed(prepared))
    return prepared


def _prepared(source, conventions: Conventions) -> PreparedQrels:
    prepared = PreparedQrels(trec.read_qrels_table(source), conventions)
    prepared.judgments  # noqa: B018 - built here, where the caller waits for it anyway
    return prepared


def _packed(prepared: PreparedQrels) -> pa.Table:
    """One row: each array a list column, as the arrays differ in length; the 0-d ones
    are named in the schema's metadata."""
    table = prepared.table
    arrays: dict[str, pa.Array] = {}
    for column in _TABLE:
        encoded = table.column(column).chunk(0)
        arrays[f"{column}.codes"], arrays[f"{column}.values"] = encoded.indices, encoded.dictionary
    arrays["grade"] = table.column("grade").combine_chunks()
    index = prepared.judgments.to_arrays()
    scalars = [name for name, value in index.items() if not value.ndim]
    arrays.update({f"index.{n}": from_numpy(np.atleast_1d(v)) for n, v in index.items()})
    columns = {  # offsets from numpy: `pa.array` of a list would import pandas
        name: pa.LargeListArray.from_arrays(from_numpy(np.array([0, len(array)])), array)
        for name, array in arrays.items()
    }
    return pa.table(columns).replace_schema_metadata({"scalars": json.dumps(scalars)})


def _unpacked(stored: pa.Table, conventions: Conventions) -> PreparedQrels:
    arrays = {name: stored.column(name).chunk(0).flatten() for name in stored.column_names}
    scalars = set(json.loads(stored.schema.metadata[b"scalars"]))
    table = pa.table(
        {
            **{
                column: pa.DictionaryArray.from_arrays(
                    arrays[f"{column}.codes"], arrays[f"{column}.values"]
                )
                for column in _TABLE
            },
            "grade": arrays["grade"],
        }
    )
    index = {
        name.removeprefix("index."): to_numpy(array)
        for name, array in arrays.items()
        if name.startswith("index.")
    }
    index = {name: value.reshape(()) if name in scalars else value for name, value in index.items()}
    judgments = JudgmentIndex.from_arrays(arrays["docid.values"], index)
    return PreparedQrels(table, conventions, judgments)
