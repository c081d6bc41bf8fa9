"""The declarations the doors name: settings classes, statistical procedures, detection
methods and their defaults.

Re-exported so that the app and the CLI reach the analysis and leakage packages only through
the API layer. Nothing heavy is imported: the CLI builds its parser from these.
"""

from __future__ import annotations

from leakeval_core.analysis.procedures import (
    INTERVALS,
    MANY_SYSTEMS,
    QUESTIONS,
    TESTS,
    TOPIC_SET_SIZE,
    Question,
)
from leakeval_core.analysis.statistics_options import CORRECTIONS, Statistics
from leakeval_core.leakage.detection_options import (
    APP_DETECTION_LIMIT,
    JUDGED,
    LOCAL_CLUSTER,
    METHODS,
    DetectionOptions,
    available_methods,
    is_hybrid,
    threshold_for,
)

__all__ = [
    "APP_DETECTION_LIMIT",
    "CORRECTIONS",
    "INTERVALS",
    "JUDGED",
    "LOCAL_CLUSTER",
    "MANY_SYSTEMS",
    "METHODS",
    "QUESTIONS",
    "TESTS",
    "TOPIC_SET_SIZE",
    "DetectionOptions",
    "Question",
    "Statistics",
    "available_methods",
    "is_hybrid",
    "threshold_for",
]
