"""leakeval from Python, end to end on the simulated demo (CI runs this script).

    python examples/python_api.py [DEMO_DIR]

Scores two runs given as pandas frames, then asks the demo experiment how much of the
leaked models' nDCG@10 comes from topics with a near-duplicate in the training log.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pandas as pd

import leakeval_core as le
from leakeval_core.demo.generator import generate_demo


def main(demo: Path) -> None:
    # 1. Score runs you already hold in memory: any column names, any shape.
    qrels = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]}
    )
    runs = {
        "bm25": pd.DataFrame(
            {"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]}
        ),
        "reranked": {"q1": {"a": 9.0, "b": 1.0}, "q2": {"c": 1.0}},  # pytrec_eval's shape
    }
    result = le.score(qrels, runs, ["ndcg_cut_10", "P_1", "first_rel_rank"])
    print(result.means().round(4).to_string(), end="\n\n")

    # 2. An experiment: paired tests of leaked vs clean training, one family per collection.
    rows = le.compare(demo, "ndcg_cut_10")
    significant = rows[rows.significant]
    print(
        f"{len(significant)} of {len(rows)} leaked-vs-clean comparisons are significant "
        f"({le.Statistics().describe()}, m = {rows.family_size.iloc[0]} per collection)"
    )

    # 3. Where the gain lands: topics with a near-duplicate vs the others.
    summary = le.inflation(demo, "ndcg_cut_10").summary
    by_size = summary.groupby("train_size")[["delta_leaked", "delta_other"]].mean()
    print(by_size.round(4).to_string())


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(generate_demo(Path(tmp) / "demo"))
