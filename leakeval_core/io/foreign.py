"""Reading a source in a format other than TREC's: the detected format -> its reader.

The TREC entry points (`trec.read_run_table`, `query_files.read_topics`, ...) hand every
other format here, so a door calls one function whatever the file is.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from leakeval_core.errors import ParseError

__all__ = ["iter_query_frames", "read_pairs", "read_query_frame"]


def _name(source) -> str:
    return source[0] if isinstance(source, tuple) else str(source)


def read_pairs(source, kind: str, value: str) -> pa.Table:
    """A run (`value` "score") or qrels ("grade") in format `kind`."""
    from leakeval_core.io import beir, frames, json_maps
    from leakeval_core.io.formats import given_part

    if kind == "json":
        return json_maps.read_mapping(source, value, given_part(source))
    if kind == "beir":
        if value == "score":
            raise ParseError(_name(source), None, "BEIR files hold qrels and queries, not a run")
        return beir.read_beir_qrels(source)
    return frames.read_pairs(source, kind, value)


def read_query_frame(source, kind: str, topics_of: str | None = None):
    """A query list (qid, text) in format `kind`: topics (`topics_of` names the split whose
    queries they are) or a log (None)."""
    from leakeval_core.io import beir, frames

    if kind == "beir":
        if topics_of is None:  # a log: the queries the test split does not judge
            return beir.read_beir_queries(source, topics=False)
        return beir.read_beir_queries(source, topics_of)
    if kind == "json":
        raise ParseError(_name(source), None, "a JSON mapping of runs or qrels, not queries")
    name, table, first = frames.read_table(source, kind)
    return frames.table_queries(name, table, first)


def iter_query_frames(source, kind: str, chunk_size: int) -> Iterator:
    """A query list in format `kind`, in frames of at most `chunk_size` rows."""
    from leakeval_core.io import frames

    if kind in ("beir", "json"):
        frame = read_query_frame(source, kind)
        for start in range(0, len(frame), chunk_size):
            yield frame.iloc[start : start + chunk_size].reset_index(drop=True)
        return
    yield from frames.iter_table_queries(source, kind, chunk_size)
