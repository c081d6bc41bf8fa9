"""What the doors (the dashboard and the command line) call beyond the public verbs.

`leakeval_core.api` is the surface a notebook needs: the verbs, `Study`, `RunSet`, `View`,
the result classes and the terms. The pages also need views of the same numbers cut the way
a page shows them (one condition's rows, a pair's per-query table, the Story's parts, the
label of a condition), and those live here: the same computations as the verbs, not a
second path to a number. Names here follow the pages and may change with them; the
architecture test holds the doors to these two modules.
"""

from __future__ import annotations

from leakeval_core.lazy import attach

_LAZY = {
    "AUDIT_CAVEAT": "leakeval_core.api.audits",
    "AUDIT_NOTE": "leakeval_core.api.audits",
    "relevance_level_note": "leakeval_core.evaluation.measures",
    "conventions_notes": "leakeval_core.experiment.scores",
    "why_not_audit": "leakeval_core.api.audits",
    "headline_rows": "leakeval_core.leakage.rule",
    "rows_at": "leakeval_core.api.results",
    "needs_pairs": "leakeval_core.api.study",
    "condition_label": "leakeval_core.api.comparison",
    "condition_means": "leakeval_core.api.comparison",
    "fold_rule": "leakeval_core.api.comparison",
    "incomplete_conditions": "leakeval_core.api.comparison",
    "scored_collections": "leakeval_core.api.comparison",
    "scoring_warnings": "leakeval_core.api.comparison",
    "paired": "leakeval_core.api.comparison",
    "paired_measures": "leakeval_core.api.comparison",
    "per_query_table": "leakeval_core.api.comparison",
    "query_along": "leakeval_core.api.comparison",
    "ranked_lists": "leakeval_core.api.comparison",
    "ranking_change": "leakeval_core.api.comparison",
    "top_inflating": "leakeval_core.api.comparison",
    "pair_answer": "leakeval_core.api.comparison",
    "by_gain": "leakeval_core.api.comparison",
    "versus_run": "leakeval_core.api.comparison",
    "at_threshold": "leakeval_core.api.leakage",
    "collection_topics": "leakeval_core.api.leakage",
    "detection_quality": "leakeval_core.api.leakage",
    "labels_seen_in_fitting": "leakeval_core.api.leakage",
    "leakage_overview": "leakeval_core.api.leakage",
    "training_answers": "leakeval_core.leakage.answers",
    "grade_counts": "leakeval_core.api.experiments",
    "changes": "leakeval_core.api.changes",
    "snapshot": "leakeval_core.api.changes",
    "story_answers": "leakeval_core.api.meeting",
    "story_factors": "leakeval_core.api.meeting",
    "story_kind": "leakeval_core.api.meeting",
    "story_levels": "leakeval_core.api.meeting",
    "story_numbers": "leakeval_core.api.meeting",
    "story_pair": "leakeval_core.api.meeting",
    "story_record": "leakeval_core.api.meeting",
    "story_test_line": "leakeval_core.api.meeting",
}

__getattr__, __dir__, __all__ = attach(__name__, _LAZY)
