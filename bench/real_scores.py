"""The real runs' per-topic nDCG@10 that the calibration benches draw from, scored once
the same way for each: the audit's real gains, the leaderboard's real systems and the
topic set sizes' real spread all rest on these, so a scoring mistake (such as a fold's run
scored against topics it never retrieved) is made or mended in one place.

Robust04's BM25 runs come one per cross-validation fold, each for its own 50 topics, so
each is scored on the topics it holds (`missing="drop"`): scored against all 249 judged
topics, every other fold's topic would read 0 and a "gain" would be an RM3 score minus 0.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

__all__ = ["core18", "robust04"]


def robust04(realdata: Path) -> pd.DataFrame:
    """Per topic (qid, sorted), BM25's nDCG@10 from its fold's run and BM25+RM3's: the
    topics both scored, each once."""
    import leakeval_core as le

    robust = realdata / "robust04"
    own = le.Conventions(missing="drop")
    bm25 = pd.concat(
        [
            le.score(robust / "qrels.txt", {"bm25": path}, "ndcg_cut_10", own).table
            for path in sorted((robust / "runs").glob("bm25.top150.fold*.run"))
        ]
    )
    if bm25.qid.duplicated().any():  # a topic's score counted twice is no real score
        raise SystemExit("robust04: a topic has several BM25 scores across the folds")
    rm3 = le.score(
        robust / "qrels.txt", {"rm3": robust / "runs/bm25-rm3.top1000.run"}, "ndcg_cut_10"
    ).table
    return _wide(pd.concat([bm25, rm3]))


def core18(realdata: Path) -> pd.DataFrame:
    """Per topic (qid, sorted), nDCG@10 of BM25 and of BM25+RM3 on title and on
    description queries."""
    import leakeval_core as le

    core = realdata / "core18"
    runs = {
        "bm25": core / "runs/bm25.top1000.run",
        "rm3-title": core / "runs/bm25-rm3-title.top1000.run",
        "rm3-desc": core / "runs/bm25-rm3-desc.top1000.run",
    }
    return _wide(le.score(core / "qrels.txt", runs, "ndcg_cut_10").table)


def _wide(table: pd.DataFrame) -> pd.DataFrame:
    return table.pivot(index="qid", columns="run", values="value").dropna()
