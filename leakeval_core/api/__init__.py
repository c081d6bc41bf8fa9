"""The API layer: the only path from a door (the app, the CLI, a notebook) to a number.

Its verbs take a `View`, the one settings value, or its fields as keywords, and return
results of one shape (`.table`, `.summary()`, a caption). The app, the CLI and the report
call these and format what they return; the architecture test holds them to it. Names are
imported on first use, so building the CLI's parser stays instant.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "AUDIT_CAVEAT": "audits",
    "AUDIT_NOTE": "audits",
    "Audit": "audits",
    "audit": "audits",
    "why_not_audit": "audits",
    "Comparison": "results",
    "Inflation": "results",
    "Scores": "results",
    "rows_at": "results",
    "RunSet": "study",
    "needs_pairs": "study",
    "Study": "study",
    "View": "view",
    "compare": "comparison",
    "condition_label": "comparison",
    "condition_means": "comparison",
    "convention_sensitivity": "comparison",
    "fold_rule": "comparison",
    "paired": "comparison",
    "per_query_table": "comparison",
    "paired_measures": "comparison",
    "query_along": "comparison",
    "ranked_lists": "comparison",
    "ranking_change": "comparison",
    "top_inflating": "comparison",
    "versus_run": "comparison",
    "CATEGORIES": "leakage",
    "CATEGORY_RULES": "leakage",
    "HOW_RELATED": "leakage",
    "TARGET_RECALL": "leakage",
    "at_threshold": "leakage",
    "detect_leakage": "leakage",
    "detection_quality": "leakage",
    "inflation": "leakage",
    "labels_seen_in_fitting": "leakage",
    "leakage_overview": "leakage",
    "collection_topics": "leakage",
    "report": "meeting",
    "story": "meeting",
    "story_answers": "meeting",
    "story_factors": "meeting",
    "story_kind": "meeting",
    "story_numbers": "meeting",
    "story_pair": "meeting",
    "story_record": "meeting",
    "story_test_line": "meeting",
    "score": "scoring",
    "collection_stats": "experiments",
    "evaluate_labels": "leakage",
    "experiment_scores": "experiments",
    "grade_counts": "experiments",
    "validate": "experiments",
    "load_experiment": "experiments",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(f"leakeval_core.api.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'leakeval_core.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
