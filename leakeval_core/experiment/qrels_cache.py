"""Qrels read and indexed once per file, kept in the cache for the next command.

A researcher scores against the same qrels again and again (each checkpoint's run, each
new system), and for a large qrels file reading and indexing it is a large part of scoring
one run. So the read table and its judgment index are kept, as one Arrow IPC file in a
checksummed blob, keyed by everything the reading and the index depend on: the file's
content, the format and part named for it, the decompression limit it was read under, the
relevance level and the policy for queries with no positive grade (which decide the
scored queries, whose judgments the index holds). A later command reads them back.

The cache is only a shortcut: an entry that is missing or damaged is rebuilt from the file,
one written by other code is never read (its key holds `scoring_code_digest`), and a qrels
file that cannot be read is an error each time, never kept. A folder (BEIR's) is read each time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.judgments import JudgmentIndex
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.experiment.cache import Cache, hash_key
from leakeval_core.experiment.digests import scoring_code_digest
from leakeval_core.io import trec
from leakeval_core.io.allocator import handing_back
from leakeval_core.io.arrays import from_numpy, to_numpy
from leakeval_core.io.compressed import decompressed_limit
from leakeval_core.io.digest import identity
from leakeval_core.io.formats import given_format, given_part

__all__ = ["KIND", "prepared_qrels"]

KIND = "prepared-qrels"

_TABLE = ("qid", "docid")
"""The qrels table's dictionary columns, stored as their codes and their values."""


def prepared_qrels(
    source: str | os.PathLike[str], conventions: Conventions, cache: Cache
) -> PreparedQrels:
    """The qrels at `source` prepared for scoring under `conventions`, from `cache` when
    this file was prepared before under what the index depends on."""
    if not Path(source).is_file():
        return _prepared(source, conventions)
    before = identity(os.stat(source))
    key = hash_key(
        KIND,
        scoring_code_digest(),
        cache.file_digest(source),
        given_format(source),
        given_part(source),
        decompressed_limit().bytes,
        conventions.relevance_level,
        conventions.no_relevant,
    )
    stored = cache.get_bytes(KIND, key)
    if stored is not None:
        try:
            return _unpacked(stored, conventions)
        except (pa.ArrowException, KeyError, ValueError, AttributeError):
            cache.discard(KIND, key)  # whole, but unreadable: rebuilt
    prepared = _prepared(source, conventions)
    if identity(os.stat(source)) == before:  # else what was read may not be what was hashed
        cache.put_stream(KIND, key, lambda sink: _write_packed(prepared, sink))
    return prepared


def _prepared(source: str | os.PathLike[str], conventions: Conventions) -> PreparedQrels:
    """Read and indexed, through a pool that hands the scratch back (`handing_back`)."""
    with handing_back():
        prepared = PreparedQrels(trec.read_qrels_table(source), conventions)
        prepared.judgments  # noqa: B018 - built here, where the caller waits for it anyway
    return prepared


def _write_packed(prepared: PreparedQrels, sink: BinaryIO) -> None:
    """As an Arrow IPC file of one row: each array a list column, as the arrays differ in
    length; the index's numbers in the schema's metadata. Written buffer by buffer, never
    copied whole."""
    table = prepared.table
    arrays: dict[str, pa.Array] = {}
    for column in _TABLE:
        encoded = table.column(column).chunk(0)
        arrays[f"{column}.codes"], arrays[f"{column}.values"] = encoded.indices, encoded.dictionary
    arrays["grade"] = table.column("grade").combine_chunks()
    index, numbers = prepared.judgments.to_arrays()
    arrays.update({f"index.{name}": from_numpy(value) for name, value in index.items()})
    columns = {  # offsets from numpy: `pa.array` of a list would import pandas
        name: pa.LargeListArray.from_arrays(from_numpy(np.array([0, len(array)])), array)
        for name, array in arrays.items()
    }
    packed = pa.table(columns).replace_schema_metadata({"numbers": json.dumps(numbers)})
    with pa.ipc.new_file(pa.PythonFile(sink, mode="w"), packed.schema) as writer:
        writer.write_table(packed)


def _unpacked(stored: memoryview, conventions: Conventions) -> PreparedQrels:
    packed = pa.ipc.open_file(pa.py_buffer(stored)).read_all()
    arrays = {name: pc.list_flatten(packed.column(name).chunk(0)) for name in packed.column_names}
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
    numbers = json.loads(packed.schema.metadata[b"numbers"])
    judgments = JudgmentIndex.from_arrays(arrays["docid.values"], index, numbers)
    return PreparedQrels(table, conventions, judgments)
