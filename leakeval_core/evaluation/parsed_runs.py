"""Run files kept parsed in memory, for a process that scores the same files again.

A served app's readers explore settings: another depth, another measure, each rescoring every
run of the experiment. Reading a run costs about as much as ranking and scoring it, so six
readers on six settings would each parse the same files. Kept parsed, the files are read once
and every setting after the first costs only its ranking and scoring.

Off by default: a command scores each file once, and keeping its runs would only hold memory
(`score_files` keeps as few parsed runs alive as it can). The server turns it on (`keep`).
A file is known by its content (`file_digest`): hashing it costs far less than parsing it.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from leakeval_core.io.digest import file_digest

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["keep", "kept_bytes", "read_run_table"]

_lock = threading.Lock()
_tables: OrderedDict[str, pa.Table] = OrderedDict()
_limit = {"bytes": 0, "held": 0}


def keep(megabytes: float) -> None:
    """Keep up to `megabytes` of parsed runs, the least recently used dropped first; 0 keeps
    none (and drops what is kept)."""
    with _lock:
        _limit["bytes"] = int(megabytes * 1e6)
        _shrink()


def kept_bytes() -> int:
    """What the kept tables hold, in bytes."""
    return _limit["held"]


def read_run_table(path: str | os.PathLike[str]) -> pa.Table:
    """`trec.read_run_table` of a file, from memory when a file with its content was read
    before. Two threads asking for the same new file may both read it: the tables are equal
    and one is kept."""
    from leakeval_core.io import trec  # here: the server turns keeping on before pyarrow loads

    if not _limit["bytes"]:
        return trec.read_run_table(path)
    key = file_digest(path)
    with _lock:
        table = _tables.get(key)
        if table is not None:
            _tables.move_to_end(key)
            return table
    table = trec.read_run_table(path)
    with _lock:
        if key not in _tables and table.nbytes <= _limit["bytes"]:
            _tables[key] = table
            _limit["held"] += table.nbytes
            _shrink()
    return table


def _shrink() -> None:
    while _tables and _limit["held"] > _limit["bytes"]:
        _, table = _tables.popitem(last=False)
        _limit["held"] -= table.nbytes
