"""Detection settings, declared once: the command line derives its flags from them.

No numpy or pandas here, so naming a method or building the CLI parser stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from leakeval_core.errors import LeakevalError

__all__ = ["DEFAULT_THRESHOLD", "METHODS", "DetectionOptions", "Method"]

Method = Literal["lexical", "semantic", "hybrid"]
METHODS: tuple[str, ...] = get_args(Method)

DEFAULT_THRESHOLD = 0.8
"""Similarity at which a pair counts as a near-duplicate unless the user moves the slider.

Calibrated on the demo's ground truth (topic level, lexical method): 0.80 maximises F1
(precision 0.90, recall 0.89, F1 0.89); 0.75 gives 0.79 / 0.99 and 0.85 gives 0.99 / 0.74.
The same 0.80 serves the hybrid method (see `leakeval_core.hybrid`).
"""


@dataclass(frozen=True)
class DetectionOptions:
    top_k: int = 20
    """Candidates kept per topic."""
    min_similarity: float = 0.3
    """Candidates below this similarity are dropped."""
    chunk_size: int = 20_000
    """Training queries compared per step: bounds memory, not the result."""
    n_features: int = 2**20
    method: Method = "lexical"
    """`lexical`; `semantic`: MiniLM cosine over the lexical candidates; `hybrid`: a fitted
    combination of signals (both need the optional semantic extra)."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise LeakevalError(f"unknown method {self.method!r}; use {', '.join(METHODS)}")
        if self.top_k < 1:
            raise LeakevalError(f"top_k must be at least 1, got {self.top_k}")
        if self.chunk_size < 1:
            raise LeakevalError(f"chunk_size must be at least 1, got {self.chunk_size}")

    @property
    def candidates(self) -> int:
        """Lexical candidates kept per topic text: more when a semantic pass re-ranks them."""
        return self.top_k if self.method == "lexical" else max(4 * self.top_k, 50)
