"""Topic groups from a file: `qid,group` rows (optionally with a `collection` column).

A group can stand in for the leaked flag (topics written after a model's training cutoff,
say) or sit beside it; a file of topic ids alone says which topics a leakage judgment covers.
"""

from __future__ import annotations

import csv
import io
import os

import pandas as pd

from leakeval_core.errors import ParseError

__all__ = ["read_topic_groups"]


def read_topic_groups(path: str | os.PathLike[str], need_group: bool = True) -> pd.DataFrame:
    """collection (empty when the file has none), qid, group: one row per topic.

    Comma- or tab-separated with a header naming `qid` (and `group`, unless `need_group` is
    false; then every topic's group is "covered"). A topic in two groups, a missing field or
    an empty id is an error naming its line.
    """
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ParseError(path, None, "no such file") from None
    except UnicodeDecodeError:
        raise ParseError(path, None, "not valid UTF-8 text") from None
    first = text.splitlines()[0] if text.strip() else ""
    dialect = "excel-tab" if "\t" in first else "excel"
    rows = csv.reader(io.StringIO(text), dialect=dialect)
    header = [h.strip().lower() for h in next(rows, [])]
    wanted = ["qid", "group"] if need_group else ["qid"]
    missing = [c for c in wanted if c not in header]
    if missing:
        raise ParseError(
            path, 1, f"the header needs the column(s) {', '.join(missing)}; found {header}"
        )
    records, seen = [], {}
    for line, row in enumerate(rows, start=2):
        if not any(field.strip() for field in row):
            continue
        if len(row) != len(header):
            raise ParseError(path, line, f"expected {len(header)} fields, found {len(row)}")
        record = dict(zip(header, (field.strip() for field in row), strict=True))
        if not record["qid"]:
            raise ParseError(path, line, "empty qid")
        key = (record.get("collection", ""), record["qid"])
        group = record.get("group", "covered")
        if not group:
            raise ParseError(path, line, "empty group")
        if key in seen and seen[key][1] != group:
            raise ParseError(
                path,
                line,
                f"topic {key[1]!r} is also in group {seen[key][1]!r} (line {seen[key][0]})",
            )
        seen[key] = (line, group)
        records.append((key[0], key[1], group))
    if not records:
        raise ParseError(path, None, "no topic listed")
    return pd.DataFrame(records, columns=["collection", "qid", "group"]).drop_duplicates()
