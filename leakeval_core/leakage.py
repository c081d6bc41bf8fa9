"""The LEAKAGE table: which test topics have near-duplicates among the training queries.

One row per (test topic, training query) candidate pair. The pages only filter it by a
similarity threshold, so moving a slider never recomputes anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .errors import LeakevalError, ParseError
from .experiment import Experiment

__all__ = [
    "CATEGORIES",
    "DEFAULT_THRESHOLD",
    "LEAKAGE_COLUMNS",
    "STUDY_SHARES",
    "LeakageTable",
    "category_counts",
    "leak_share",
    "leaked_qids",
    "load_leakage",
]

LEAKAGE_COLUMNS = [
    "collection",
    "test_qid",
    "test_text",
    "train_qid",
    "train_text",
    "method",
    "similarity",
    "category",
]
CATEGORIES = ("identical", "reformulation", "specialization", "generalization")

DEFAULT_THRESHOLD = 0.8
"""Similarity at which a pair counts as a near-duplicate unless the user moves the slider."""

STUDY_SHARES = {"robust04": 172 / 250, "core17": 37 / 50, "core18": 38 / 50}
"""Share of topics with a near-duplicate in MS MARCO / ORCAS (Fröbe et al., SPIRE 2022)."""


@dataclass(frozen=True)
class LeakageTable:
    table: pd.DataFrame = field(repr=False)
    source: str
    """Where the pairs come from, shown next to every leaked flag."""

    @property
    def empty(self) -> bool:
        return self.table.empty


def load_leakage(experiment: Experiment) -> LeakageTable:
    """The experiment's leakage pairs: a detected table if given, else known ground truth."""
    path = experiment.leakage_table or experiment.ground_truth
    if path is None:
        return LeakageTable(pd.DataFrame(columns=LEAKAGE_COLUMNS), "none")
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ParseError(path, None, f"unreadable leakage table: {exc}") from None
    missing = [c for c in ("test_qid", "train_qid", "train_text") if c not in table.columns]
    if missing:
        raise ParseError(path, 1, f"leakage table lacks column(s) {', '.join(missing)}")
    if "collection" not in table.columns:
        if len(experiment.collections) != 1:
            raise ParseError(path, 1, "leakage table needs a collection column")
        table["collection"] = next(iter(experiment.collections))
    for column, default in (
        ("test_text", ""),
        ("method", "given"),
        ("similarity", "1.0"),
        ("category", ""),
    ):
        if column not in table.columns:
            table[column] = default
    table["similarity"] = pd.to_numeric(table.similarity, errors="coerce")
    if table.similarity.isna().any():
        raise ParseError(
            path, int(table.similarity.isna().to_numpy().argmax()) + 2, "similarity is not a number"
        )
    source = (
        "ground truth of the simulated demo"
        if path == experiment.ground_truth and experiment.simulated
        else f"{path.name}"
    )
    return LeakageTable(table[LEAKAGE_COLUMNS].reset_index(drop=True), source)


def leaked_qids(leakage: LeakageTable, threshold: float) -> pd.DataFrame:
    """collection, qid of every topic with a pair at or above the threshold."""
    pairs = leakage.table[leakage.table.similarity >= threshold]
    return (
        pairs[["collection", "test_qid"]]
        .drop_duplicates()
        .rename(columns={"test_qid": "qid"})
        .reset_index(drop=True)
    )


def category_counts(leakage: LeakageTable, threshold: float) -> pd.DataFrame:
    pairs = leakage.table[leakage.table.similarity >= threshold]
    counts = pairs.category.value_counts().reindex(list(CATEGORIES), fill_value=0)
    return pd.DataFrame({"category": counts.index, "pairs": counts.to_numpy()})


def leak_share(leakage: LeakageTable, topics: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Per collection: topics, leaked topics, their share, and the study's share.

    `topics` has collection and qid columns: every topic of each collection.
    """
    if not {"collection", "qid"} <= set(topics.columns):
        raise LeakevalError("topics need collection and qid columns")
    flagged = topics.merge(
        leaked_qids(leakage, threshold).assign(leaked=True), on=["collection", "qid"], how="left"
    )
    flagged["leaked"] = flagged.leaked.fillna(False).astype(bool)
    out = (
        flagged.groupby("collection", sort=True)
        .agg(topics=("qid", "size"), leaked=("leaked", "sum"))
        .reset_index()
    )
    out["share"] = out.leaked / out.topics
    out["study_share"] = out.collection.map(STUDY_SHARES)
    return out
