"""leakeval's Streamlit-free core: read, score, compare and find leaked test queries.

The public API is imported on first use, so `import leakeval_core` (and `leakeval --help`)
stays instant:

>>> import leakeval_core as le
>>> qrels = {"q1": {"d1": 1}}
>>> float(le.score(qrels, {"q1": {"d1": 1.0}}, "P_1").means().loc["run", "P_1"])
1.0
"""

from __future__ import annotations

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.lazy import attach

_LAZY = {
    "Conventions": "leakeval_core.evaluation.conventions",
    "DetectionOptions": "leakeval_core.leakage.detection_options",
    "Design": "leakeval_core.experiment.design",
    "Statistics": "leakeval_core.analysis.statistics_options",
    "Audit": "leakeval_core.api",
    "Card": "leakeval_core.api",
    "Comparison": "leakeval_core.api",
    "Inflation": "leakeval_core.api",
    "Leaderboard": "leakeval_core.api",
    "Scores": "leakeval_core.api",
    "Study": "leakeval_core.api",
    "View": "leakeval_core.api",
    "audit": "leakeval_core.api",
    "card": "leakeval_core.api",
    "compare": "leakeval_core.api",
    "detect_leakage": "leakeval_core.api",
    "experiment_scores": "leakeval_core.api",
    "inflation": "leakeval_core.api",
    "leaderboard": "leakeval_core.api",
    "load_experiment": "leakeval_core.api",
    "report": "leakeval_core.api",
    "score": "leakeval_core.api",
    "story": "leakeval_core.api",
}

__getattr__, _, _lazy = attach(__name__, _LAZY)
__all__ = ["LeakevalError", "ParseError", *_lazy]


def __dir__() -> list[str]:
    return sorted(__all__)
