"""The API layer: the only path from a door (the app, the CLI, a notebook) to a number.

Its verbs take a `View`, the one settings value, or its fields as keywords, and return
results of one shape (`.table`, `.summary()`, a caption). The app, the CLI and the report
call these and format what they return; the architecture test holds them to it. This is the
public surface, what a notebook needs; the views the pages cut from the same numbers are in
`leakeval_core.api.doors`. Names are imported on first use, so building the CLI's parser
stays instant.
"""

from __future__ import annotations

from leakeval_core.lazy import attach

_LAZY = {
    # the nouns: what the verbs compute on, the settings value, and what they return
    "RunSet": "leakeval_core.api.study",
    "Study": "leakeval_core.api.study",
    "View": "leakeval_core.api.view",
    "Audit": "leakeval_core.api.audits",
    "Card": "leakeval_core.api.cards",
    "Comparison": "leakeval_core.api.results",
    "Inflation": "leakeval_core.api.results",
    "Leaderboard": "leakeval_core.api.leaderboards",
    "Scores": "leakeval_core.api.results",
    # the verbs
    "score": "leakeval_core.api.scoring",
    "compare": "leakeval_core.api.comparison",
    "inflation": "leakeval_core.api.leakage",
    "audit": "leakeval_core.api.audits",
    "leaderboard": "leakeval_core.api.leaderboards",
    "card": "leakeval_core.api.cards",
    "detect_leakage": "leakeval_core.api.leakage",
    "story": "leakeval_core.api.meeting",
    "report": "leakeval_core.api.meeting",
    "convention_check": "leakeval_core.api.comparison",
    "evaluate_labels": "leakeval_core.api.leakage",
    "topic_answers": "leakeval_core.api.leakage",
    # opening an experiment
    "load_experiment": "leakeval_core.api.experiments",
    "experiment_scores": "leakeval_core.api.experiments",
    "validate": "leakeval_core.api.experiments",
    "collection_stats": "leakeval_core.api.experiments",
    # the terms a reader of the results meets
    "CATEGORIES": "leakeval_core.api.leakage",
    "CATEGORY_RULES": "leakeval_core.api.leakage",
    "HOW_RELATED": "leakeval_core.api.leakage",
    "TARGET_RECALL": "leakeval_core.api.leakage",
}

__getattr__, __dir__, __all__ = attach(__name__, _LAZY)
