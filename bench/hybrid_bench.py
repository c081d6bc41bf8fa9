"""Fit and compare the near-duplicate methods on the project's labelled pairs.

`labels/robust04-msmarco.tsv`: Robust04 topics against MS MARCO training queries. Negatives
are the real queries of `../shared/realdata`'s sample that the lexical detector ranks top 3
for a topic (title-word overlaps with another need, checked by hand); positives are one real
match and queries written by hand to ask for the topic's need in MS MARCO's style.

Reports each method's ROC AUC, cross-validated over 5 folds grouped by topic (a topic's
pairs never sit on both sides), and the weights fitted on the whole set, which
`leakeval_core/hybrid.py` ships. Needs the semantic extra. Run by hand:

    .venv/bin/python bench/hybrid_bench.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leakeval_core import hybrid  # noqa: E402
from leakeval_core.hybrid_eval import cross_validated_auc, labelled_features  # noqa: E402

REAL = ROOT.parent / "shared" / "realdata"


def main() -> None:
    labels, features = labelled_features(
        REAL / "robust04" / "topics.txt",
        ROOT / "labels" / "robust04-msmarco.tsv",
        REAL / "msmarco" / "doctrain-queries.sample.csv",
    )
    print(
        f"{len(labels)} pairs, {int(labels.near_duplicate.sum())} near-duplicates, "
        f"{labels.test_qid.nunique()} topics"
    )
    for method, auc in cross_validated_auc(labels, features).items():
        print(f"  {method:<10} ROC AUC {auc:.3f}")
    weights, intercept = hybrid.fit_weights(features, labels.near_duplicate.to_numpy())
    print("weights fitted on all pairs:")
    print(
        "  "
        + ", ".join(f"{k}={v:+.3f}" for k, v in weights.items())
        + f", intercept={intercept:+.3f}"
    )
    shipped = hybrid.score(features)
    print(
        f"shipped weights: AUC on all pairs {pd.Series(shipped).pipe(lambda s: s).size} pairs "
        f"{np.mean(shipped >= hybrid.THRESHOLD):.2f} flagged at {hybrid.THRESHOLD}"
    )


if __name__ == "__main__":
    main()
