"""Labelled (topic, training query) pairs: the format detection quality is measured against.

One tab-separated file with a header, one judged pair per line (the leakage study's format):

| column | meaning |
|---|---|
| topic | test topic id |
| title, description, narrative | the topic's fields (description and narrative may be empty) |
| variant | the query variant of the topic the pair was found through (may be empty) |
| train_qid, train_text | the training query |
| title_relation | identical, reformulation, specialization, generalization, or different |
| variant_relation | the same relative to the variant (empty where not judged) |
| near_duplicate | 1 for a near-duplicate, 0 for another information need |

Every problem is a `ParseError` naming the file and the line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

from leakeval_core.errors import ParseError
from leakeval_core.io.trec import load_bytes

__all__ = ["LABEL_COLUMNS", "RELATIONS", "LabelledPairs", "read_labels"]

LABEL_COLUMNS = (
    "topic",
    "title",
    "description",
    "narrative",
    "variant",
    "train_qid",
    "train_text",
    "title_relation",
    "variant_relation",
    "near_duplicate",
)
RELATIONS = ("identical", "reformulation", "specialization", "generalization", "different")
_REQUIRED = ("topic", "title", "train_text", "title_relation", "near_duplicate")


@dataclass(frozen=True)
class LabelledPairs:
    table: pd.DataFrame = field(repr=False)
    """The columns of LABEL_COLUMNS, near_duplicate as int; `line` is each pair's line."""
    source: str

    @property
    def topics(self) -> pd.DataFrame:
        """qid, title, description, narrative: one row per labelled topic."""
        first = self.table.drop_duplicates("topic")
        return first.rename(columns={"topic": "qid"})[
            ["qid", "title", "description", "narrative"]
        ].reset_index(drop=True)

    @property
    def variants(self) -> pd.DataFrame:
        """qid, text: each topic's distinct query variants (the test side has them too)."""
        rows = self.table[self.table.variant != ""][["topic", "variant"]].drop_duplicates()
        return rows.rename(columns={"topic": "qid", "variant": "text"}).reset_index(drop=True)


def read_labels(
    source: str | os.PathLike[str], topics: pd.DataFrame | None = None
) -> LabelledPairs:
    """Read and check a labelled-pairs file; with `topics`, every labelled topic must be one."""
    import io

    name, data = load_bytes(source)
    try:
        table = pd.read_csv(io.BytesIO(data), sep="\t", dtype=str, keep_default_na=False, quoting=0)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ParseError(name, None, f"not a tab-separated labels file: {exc}") from None
    missing = [c for c in _REQUIRED if c not in table.columns]
    if missing:
        raise ParseError(
            name,
            1,
            f"labels lack column(s) {', '.join(missing)}; the format has "
            f"{', '.join(LABEL_COLUMNS)}",
        )
    for column in LABEL_COLUMNS:
        if column not in table.columns:
            table[column] = ""
    table["line"] = range(2, len(table) + 2)
    for column in ("title_relation", "variant_relation"):
        value = table[column].str.strip().str.lower()
        bad = ~value.isin(RELATIONS) & ~((value == "") & (column == "variant_relation"))
        if bad.any():
            row = table[bad].iloc[0]
            raise ParseError(
                name,
                int(row.line),
                f"{column} {row[column]!r} is not one of {', '.join(RELATIONS)}",
            )
        table[column] = value
    flag = table.near_duplicate.str.strip()
    if not flag.isin(["0", "1"]).all():
        row = table[~flag.isin(["0", "1"])].iloc[0]
        raise ParseError(
            name, int(row.line), f"near_duplicate {row.near_duplicate!r} is not 0 or 1"
        )
    table["near_duplicate"] = flag.astype(int)
    contradicts = (table.near_duplicate == 1) == (table.title_relation == "different")
    if contradicts.any():
        row = table[contradicts].iloc[0]
        raise ParseError(
            name,
            int(row.line),
            f"near_duplicate {row.near_duplicate} contradicts title_relation "
            f"{row.title_relation!r} (different means not a near-duplicate)",
        )
    empty = table.topic.str.strip().eq("") | table.train_text.str.strip().eq("")
    if empty.any():
        raise ParseError(name, int(table[empty].iloc[0].line), "empty topic or train_text")
    if topics is not None:
        known = set(topics.qid.astype(str))
        absent = ~table.topic.isin(known)
        if absent.any():
            row = table[absent].iloc[0]
            raise ParseError(name, int(row.line), f"topic {row.topic!r} is not in the topics file")
    if table.train_qid.eq("").any():
        table.loc[table.train_qid == "", "train_qid"] = "line" + table.line.astype(str)
    return LabelledPairs(table[[*LABEL_COLUMNS, "line"]].reset_index(drop=True), name)
