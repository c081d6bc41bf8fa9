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

Every problem is a `ParseError` naming the file and the line, but in a field the reading does
not use (the relations, where only the judgments are read): that is a warning.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from leakeval_core.errors import ParseError
from leakeval_core.io.kinds import reading
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
_JUDGED = ("topic", "train_text", "near_duplicate")
"""The columns a reader of the judgments alone needs."""


@dataclass(frozen=True)
class LabelledPairs:
    table: pd.DataFrame = field(repr=False)
    """The columns of LABEL_COLUMNS, near_duplicate as int; `line` is each pair's line."""
    source: str
    warnings: tuple[str, ...] = ()
    """What was wrong in fields this reading does not use (`read_labels(relations=False)`)."""

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
    source: str | os.PathLike[str], topics: pd.DataFrame | None = None, relations: bool = True
) -> LabelledPairs:
    """Read and check a labelled-pairs file; with `topics`, every labelled topic must be one.

    `relations=False` is for a reader of the judgments alone (leakage pairs, whose rule reads
    near_duplicate): there an empty or unknown relation is a warning (`warnings`), not an
    error, as a field nobody reads should not refuse the file.
    """
    with reading(source, "labels"):
        return _read_labels(source, topics, relations)


def _read_labels(
    source: str | os.PathLike[str], topics: pd.DataFrame | None, relations: bool
) -> LabelledPairs:
    import io

    name, data = load_bytes(source)
    try:
        table = pd.read_csv(io.BytesIO(data), sep="\t", dtype=str, keep_default_na=False, quoting=0)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ParseError(name, None, f"not a tab-separated labels file: {exc}") from None
    missing = [c for c in _REQUIRED if c not in table.columns and (relations or c in _JUDGED)]
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
    flag = table.near_duplicate.str.strip()
    if not flag.isin(["0", "1"]).all():
        row = table[~flag.isin(["0", "1"])].iloc[0]
        raise ParseError(
            name, int(row.line), f"near_duplicate {row.near_duplicate!r} is not 0 or 1"
        )
    table["near_duplicate"] = flag.astype(int)
    warnings = _relations(name, table, strict=relations)
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
    return LabelledPairs(table[[*LABEL_COLUMNS, "line"]].reset_index(drop=True), name, warnings)


def _relations(name: str, table: pd.DataFrame, strict: bool) -> tuple[str, ...]:
    """Check the relation columns (lowercased in place). Where they are read (`strict`),
    the first bad value is an error at its line; elsewhere each problem is one warning and
    the value is blanked, so that pair has no category."""
    warnings = []

    def problem(bad: pd.Series, column: str, why: Callable[[pd.Series], str]) -> None:
        if not bad.any():
            return
        row = table[bad].iloc[0]
        if strict:
            raise ParseError(name, int(row.line), why(row))
        others = int(bad.sum()) - 1
        more = f" (and {others} more line{'s' if others > 1 else ''})" if others else ""
        warnings.append(
            f"{name}:{row.line}: {why(row)}{more}; only near_duplicate says which topics "
            "leaked, so these pairs are shown without a category"
        )
        table.loc[bad, column] = ""

    def unknown(column: str) -> Callable[[pd.Series], str]:
        return lambda row: (
            f"{column} {row[column]!r} is not one of {', '.join(RELATIONS)}"
            if row[column]
            else f"{column} is empty"
        )

    for column in ("title_relation", "variant_relation"):
        table[column] = table[column].str.strip().str.lower()
        value = table[column]
        bad = ~value.isin(RELATIONS) & ~((value == "") & (column == "variant_relation"))
        problem(bad, column, unknown(column))
    contradicts = (table.near_duplicate == 1) == (table.title_relation == "different")
    problem(
        contradicts & (table.title_relation != ""),
        "title_relation",
        lambda row: (
            f"near_duplicate {row.near_duplicate} contradicts title_relation "
            f"{row.title_relation!r} (different means not a near-duplicate)"
        ),
    )
    return tuple(warnings)
