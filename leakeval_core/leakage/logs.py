"""Training logs: how large the logs leakeval names are, and when the one searched is a sample.

A log that holds a twentieth of the queries a model was trained on hides most of the topics it
leaked, so every answer built on it says so, with the numbers. No pandas here: the manifest
checks a declared `sample_of` with these names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.aliases import resolve_alias

__all__ = ["LOG_SIZES", "STUDY", "TrainingLog", "known_log", "sample_warnings"]

LOG_SIZES = {
    "msmarco-document/train": 367_013,
    "msmarco-passage/train": 808_731,
    "msmarco-document/orcas": 10_405_342,
}
"""Queries in each training log leakeval names, by ir_datasets id: the counts ir_datasets
0.6.3 publishes for them (`ir_datasets/etc/metadata.json`, shown on ir-datasets.com's
msmarco-document and msmarco-passage pages and on the irds/* dataset cards)."""

STUDY = "Fröbe et al. (SPIRE 2022)"
"""The leakage study whose flagged shares (`leakage.table.STUDY_SHARES`) are the reference."""


def known_log(name: str) -> str:
    """The ir_datasets id of a log leakeval knows the size of (aliases such as `orcas`
    resolved); an error naming the known ones otherwise."""
    dataset = resolve_alias(name)
    if dataset not in LOG_SIZES:
        raise LeakevalError(
            f"sample_of {name!r} is not a log leakeval knows the size of: {', '.join(LOG_SIZES)}"
        )
    return dataset


@dataclass(frozen=True)
class TrainingLog:
    """The log pairs were detected in: its name, how many queries it holds, and which full
    log it stands for (declared: `[training_queries] sample_of`, `--sample-of`). An
    ir_datasets id stands for itself."""

    name: str
    queries: int | None = None
    sample_of: str | None = None
    """An ir_datasets id of `LOG_SIZES` (an alias is resolved; another name is an error)."""

    def __post_init__(self) -> None:
        if self.sample_of is not None:
            object.__setattr__(self, "sample_of", known_log(self.sample_of))

    @property
    def stands_for(self) -> str | None:
        """The full log this one stands for: the declared one, else itself where it is a log
        leakeval knows the size of (an ir_datasets id or its alias); None when unknown."""
        if self.sample_of is not None:
            return self.sample_of
        dataset = resolve_alias(self.name)
        return dataset if dataset in LOG_SIZES else None

    @property
    def coverage(self) -> float | None:
        """The share of the full log that was searched, or None where it cannot be told (no
        full log declared, or the sample's size not counted). A leaked share found in a
        tenth of the log is a lower bound, and every answer says which."""
        full = self.stands_for
        if full is None or (self.sample_of is not None and self.queries is None):
            return None
        if self.sample_of is None:
            return 1.0  # the log itself, searched whole
        return min(self.queries / LOG_SIZES[full], 1.0)

    def sample_warning(self) -> str | None:
        """The sentence saying this log is a sample, or None when it is not one (or its size
        is not known)."""
        if self.sample_of is None or self.coverage is None or self.coverage >= 1.0:
            return None
        full = LOG_SIZES[self.sample_of]
        return (
            f"The training log holds {self.queries:,} queries, {self.coverage:.1%} of "
            f"{self.sample_of} ({full:,}): topics leaked in the full log may be missed."
        )


def sample_warnings(
    logs: Iterable[TrainingLog], shares: Iterable[tuple[str, float, float]] = ()
) -> list[str]:
    """Every warning an answer built on these logs must carry, once each: a log that is a
    sample of the one it stands for; and, per `(collection, flagged share, study's share)`,
    a collection whose flagged share is below half the leakage study's."""
    out = [w for w in dict.fromkeys(log.sample_warning() for log in logs) if w]
    for collection, share, study in shares:
        if share < study / 2:
            out.append(
                f"{share:.0%} of {collection}'s topics are flagged, against {study:.0%} in "
                f"{STUDY}: a smaller log or a stricter detection leaves leaked topics counted "
                "among the others."
            )
    return out
