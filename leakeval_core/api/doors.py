"""What the doors (the dashboard and the command line) call beyond the public verbs.

`leakeval_core.api` is the surface a notebook needs: the verbs, `Study`, `RunSet`, `View`,
the result classes and the terms. The pages also need views of the same numbers cut the way
a page shows them (one condition's rows, a pair's per-query table, the Story's parts, the
label of a condition), and those live here: the same computations as the verbs, not a
second path to a number. Names here follow the pages and may change with them; the
architecture test holds the doors to these two modules.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "AUDIT_CAVEAT": "audits",
    "AUDIT_NOTE": "audits",
    "why_not_audit": "audits",
    "rows_at": "results",
    "needs_pairs": "study",
    "condition_label": "comparison",
    "condition_means": "comparison",
    "fold_rule": "comparison",
    "paired": "comparison",
    "paired_measures": "comparison",
    "per_query_table": "comparison",
    "query_along": "comparison",
    "ranked_lists": "comparison",
    "ranking_change": "comparison",
    "top_inflating": "comparison",
    "versus_run": "comparison",
    "at_threshold": "leakage",
    "collection_topics": "leakage",
    "detection_quality": "leakage",
    "labels_seen_in_fitting": "leakage",
    "leakage_overview": "leakage",
    "grade_counts": "experiments",
    "story_answers": "meeting",
    "story_factors": "meeting",
    "story_kind": "meeting",
    "story_numbers": "meeting",
    "story_pair": "meeting",
    "story_record": "meeting",
    "story_test_line": "meeting",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(f"leakeval_core.api.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'leakeval_core.api.doors' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
