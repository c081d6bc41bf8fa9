"""The API layer: the only path from a door (the app, the CLI, a notebook) to a number.

Its verbs take a `View`, the one settings value, or its fields as keywords, and return
results of one shape (`.table`, `.summary()`, a caption). The app, the CLI and the report
call these and format what they return; the architecture test holds them to it. This is the
public surface, what a notebook needs; the views the pages cut from the same numbers are in
`leakeval_core.api.doors`. Names are imported on first use, so building the CLI's parser
stays instant.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    # the nouns: what the verbs compute on, the settings value, and what they return
    "RunSet": "study",
    "Study": "study",
    "View": "view",
    "Audit": "audits",
    "Comparison": "results",
    "Inflation": "results",
    "Scores": "results",
    # the verbs
    "score": "scoring",
    "compare": "comparison",
    "inflation": "leakage",
    "audit": "audits",
    "detect_leakage": "leakage",
    "story": "meeting",
    "report": "meeting",
    "convention_check": "comparison",
    "evaluate_labels": "leakage",
    # opening an experiment
    "load_experiment": "experiments",
    "experiment_scores": "experiments",
    "validate": "experiments",
    "collection_stats": "experiments",
    # the terms a reader of the results meets
    "CATEGORIES": "leakage",
    "CATEGORY_RULES": "leakage",
    "HOW_RELATED": "leakage",
    "TARGET_RECALL": "leakage",
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
