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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leakeval_core.experiment.manifest import load_experiment  # noqa: E402
from leakeval_core.leakage import hybrid  # noqa: E402
from leakeval_core.leakage.evaluate import cross_validated_auc, demo_auc, labelled_features  # noqa: E402
from leakeval_core.leakage.table import DEFAULT_THRESHOLD  # noqa: E402

REAL = ROOT.parent / "shared" / "realdata"


def main() -> None:
    labels, features = labelled_features(
        REAL / "robust04" / "topics.txt",
        ROOT / "labels" / "robust04-msmarco.tsv",
        REAL / "msmarco" / "doctrain-queries.sample.csv",
    )
    y = labels.near_duplicate.to_numpy()
    print(
        f"labelled set: {len(labels)} pairs, {int(y.sum())} near-duplicates, "
        f"{labels.test_qid.nunique()} topics; ROC AUC, 5 folds grouped by topic:"
    )
    hard = cross_validated_auc(labels, features, hard_only=True)
    for method, auc in cross_validated_auc(labels, features).items():
        print(
            f"  {method:<10} {auc:.3f}   positives vs written hard negatives only: "
            f"{hard[method]:.3f}"
        )
    weights, intercept = hybrid.fit_weights(features, y)
    print("weights fitted on all pairs (shipped in leakeval_core/hybrid.py):")
    print(
        "  " + ", ".join(f"{k} {v:+.3f}" for k, v in weights.items()), f"intercept {intercept:+.3f}"
    )
    flagged = hybrid.score(features) >= DEFAULT_THRESHOLD
    precision = (flagged & (y == 1)).sum() / max(flagged.sum(), 1)
    recall = (flagged & (y == 1)).sum() / max(y.sum(), 1)
    print(f"  at {DEFAULT_THRESHOLD}: precision {precision:.2f}, recall {recall:.2f} (in-sample)")
    demo = ROOT / "data" / "demo"
    if (demo / "experiment.toml").exists():
        scores = demo_auc(load_experiment(demo))
        print(
            f"demo, {scores['pairs']} lexical candidates, {scores['planted']} planted "
            "(shipped weights, not fitted on it): "
            + ", ".join(f"{m} {scores[m]:.3f}" for m in ("lexical", "semantic", "hybrid"))
        )


if __name__ == "__main__":
    main()
