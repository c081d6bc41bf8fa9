"""What a collection looks like: topics with their judgment counts, grades, pool depth."""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.run_order import rank_run

__all__ = ["collection_summary", "grade_counts", "ranked_list", "topic_judgments"]


def topic_judgments(
    topics: pd.DataFrame, qrels: pd.DataFrame, leaked: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per topic: its text, judged and per-grade counts, and the leaked flag.

    `leaked` holds the qids (column `qid`) of topics with a near-duplicate; None means no
    leakage table exists, and the column is left out rather than shown as all-False.
    """
    per_grade = pd.crosstab(qrels.qid, qrels.grade)
    per_grade.columns = [f"grade {g}" for g in per_grade.columns]
    table = topics.merge(per_grade, left_on="qid", right_index=True, how="left")
    grade_cols = list(per_grade.columns)
    table[grade_cols] = table[grade_cols].fillna(0).astype(int)
    table.insert(4, "judged", table[grade_cols].sum(axis=1).astype(int))
    positive = [c for c in grade_cols if int(c.split()[1]) > 0]
    table.insert(5, "relevant", table[positive].sum(axis=1).astype(int))
    if leaked is not None:
        table["leaked"] = table.qid.isin(leaked.qid)
    return table


def grade_counts(qrels: pd.DataFrame) -> pd.DataFrame:
    counts = qrels.grade.value_counts().sort_index()
    return pd.DataFrame({"grade": counts.index.astype(int), "judgments": counts.to_numpy()})


def collection_summary(topics: pd.DataFrame, qrels: pd.DataFrame) -> dict:
    """Counts a reader checks first: topics, judged topics, grades, per-topic spread."""
    judged = qrels.groupby("qid").size()
    relevant = qrels[qrels.grade > 0].groupby("qid").size().reindex(topics.qid, fill_value=0)

    def spread(series: pd.Series) -> dict:
        values = series.to_numpy()
        return {
            "min": int(values.min()),
            "median": float(np.median(values)),
            "max": int(values.max()),
        }

    return {
        "topics": len(topics),
        "judged_topics": int(topics.qid.isin(judged.index).sum()),
        "qrels": len(qrels),
        "grades": {int(g): int(n) for g, n in qrels.grade.value_counts().sort_index().items()},
        "relevant_per_topic": spread(relevant),
        "judged_per_topic": spread(judged.reindex(topics.qid, fill_value=0)),
        "topics_without_relevant": int((relevant == 0).sum()),
    }


def ranked_list(
    run: pd.DataFrame, qid: str, qrels: pd.DataFrame, conventions: Conventions
) -> pd.DataFrame:
    """One query's ranking under the conventions: rank, docid, score, grade (NaN unjudged)."""
    ranked = rank_run(run[run.qid == qid], conventions)
    grades = qrels[qrels.qid == qid][["docid", "grade"]]
    out = ranked.merge(grades, on="docid", how="left")[["rank", "docid", "score", "grade"]]
    return out.sort_values("rank").reset_index(drop=True)
