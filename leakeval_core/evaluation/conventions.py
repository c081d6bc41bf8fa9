"""The scoring conventions: every choice that silently changes a published number.

Kept apart from the scorer so that code which only names conventions (the command line
building a cache key, say) does not import numpy and pyarrow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from leakeval_core.errors import LeakevalError

if TYPE_CHECKING:
    from leakeval_core.evaluation.measures import Measure

__all__ = ["COLLECTION_KEYS", "OFFICIAL", "Conventions", "official_conventions"]

COLLECTION_KEYS = ("relevance_level", "gain", "depth", "tie_order")
"""The conventions a collection may declare as its own (`[collections.X]` in
experiment.toml): those its official procedure fixes. The rest are the reader's choice."""

OFFICIAL: tuple[tuple[tuple[str, ...], tuple[tuple[str, object], ...], str], ...] = (
    (
        ("msmarco-passage/trec-dl-", "msmarco-passage-v2/trec-dl-"),
        (("relevance_level", 2),),
        "TREC DL passage ranking's official procedure (trec_eval -l 2 for binary measures)",
    ),
)
"""ir_datasets collections whose official procedure uses other conventions than
leakeval's defaults, by id prefixes: TREC DL's passage tasks (2019 to 2023, DL-HARD's
passages, their judged subsets) count grades 2 and 3 as relevant for binary measures. Its
document tasks use trec_eval's level 1 (Anserini's dl19-doc and dl20-doc regressions), so
they are not here."""


def official_conventions(dataset: str) -> tuple[tuple[tuple[str, object], ...], str]:
    """The conventions `OFFICIAL` gives an ir_datasets id, and where they come from; none
    and "" for any other."""
    for prefixes, values, source in OFFICIAL:
        if dataset.startswith(prefixes):
            return values, source
    return (), ""


@dataclass(frozen=True)
class Conventions:
    """Every choice that silently changes a published number, made explicit."""

    depth: int = 100
    relevance_level: int = 1
    gain: Literal["linear", "exponential"] = "linear"
    tie_order: Literal["docid_asc", "docid_desc"] = "docid_asc"
    condensed: bool = False
    """Condensed lists (Sakai 2007): each run scored with the documents unjudged for their
    query removed before the depth and every cutoff, so that a shallow pool's unjudged
    documents neither count as non-relevant nor take a rank. bpref needs no such help (it
    reads judged documents only) and is unchanged."""
    missing: Literal["zero", "drop"] = "zero"
    no_relevant: Literal["exclude", "zero"] = "exclude"
    """Qrels queries with no positive grade, on which nothing could be credited: left out
    and counted (leakeval), or scored 0 and averaged in (trec_eval). A query whose grades
    are below the relevance level is scored either way: binary measures give it 0, nDCG
    its graded gain, as in trec_eval."""

    def depth_note(self, measures: Sequence[Measure], whole_ranking: bool = True) -> str | None:
        """What the depth cuts that a reader comparing with trec_eval would not expect: a
        cutoff deeper than the depth, or (with `whole_ranking`) a measure of the whole
        ranking (MAP, RR, first relevant rank) at a depth below trec_eval's 1000. None when
        nothing is cut. The app shows both; the CLI, whose default measures include MAP,
        prints only the first, so that a default run stays quiet. One wording."""
        deeper = [
            m.label
            for m in measures
            if m.family.cutoff and not m.family.decimal and m.cutoff > self.depth
        ]
        whole = [m.label for m in measures if not m.family.cutoff]
        whole = whole if whole_ranking and self.depth < 1000 else []
        if not deeper and not whole:
            return None
        cut = ", ".join([*deeper, *whole])
        return (
            f"{cut}: only the top {self.depth} documents of each run count (depth {self.depth}; "
            "trec_eval's default is 1000, so these can be lower than trec_eval's; the "
            "trec_eval 10 preset or --compat trec_eval uses 1000)"
        )

    def condensed_note(self) -> str | None:
        """What a figure scored on condensed lists says, wherever its caption is; None
        otherwise."""
        if not self.condensed:
            return None
        return "Scored on condensed lists: unjudged documents removed before the cutoff."

    def declared(self, values: Sequence[tuple[str, object]]) -> Conventions:
        """These conventions with a collection's own `values` (`COLLECTION_KEYS`) for every
        field left at leakeval's default: a setting the reader chose otherwise (a flag, the
        sidebar, a link) wins."""
        plain = Conventions()
        own = {k: v for k, v in values if getattr(self, k) == getattr(plain, k)}
        return replace(self, **own) if own else self

    @classmethod
    def trec_eval(cls, **override: object) -> Conventions:
        """trec_eval 10's conventions: ties by docid descending, depth 1000 (-M), queries
        missing from a run dropped (no -c), queries without relevant documents averaged in."""
        preset = {
            "depth": 1000,
            "tie_order": "docid_desc",
            "missing": "drop",
            "no_relevant": "zero",
        }
        return cls(**{**preset, **override})

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise LeakevalError(f"depth must be at least 1, got {self.depth}")
        if self.relevance_level < 1:
            raise LeakevalError(f"relevance_level must be at least 1, got {self.relevance_level}")
        if self.gain not in ("linear", "exponential"):
            raise LeakevalError(f"gain must be 'linear' or 'exponential', got {self.gain!r}")
        if self.tie_order not in ("docid_asc", "docid_desc"):
            raise LeakevalError(
                f"tie_order must be docid_asc or docid_desc, got {self.tie_order!r}"
            )
        if self.missing not in ("zero", "drop"):
            raise LeakevalError(f"missing must be 'zero' or 'drop', got {self.missing!r}")
        if self.no_relevant not in ("exclude", "zero"):
            raise LeakevalError(
                f"no_relevant must be 'exclude' or 'zero', got {self.no_relevant!r}"
            )

    def describe(self) -> str:
        ties = (
            "docid ascending" if self.tie_order == "docid_asc" else "docid descending (trec_eval)"
        )
        gain = "linear gain" if self.gain == "linear" else "exponential gain (2^rel − 1)"
        missing = "scored 0" if self.missing == "zero" else "dropped"
        unjudged = "excluded" if self.no_relevant == "exclude" else "scored 0"
        condensed = "condensed lists (unjudged documents removed); " if self.condensed else ""
        return (
            f"{condensed}ties: score ↓ then {ties}; depth {self.depth}; {gain}; "
            f"relevant: grade ≥ {self.relevance_level} (binary measures; nDCG gains every "
            f"positive grade); queries missing from a run: {missing}; "
            f"queries with no positive grade: {unjudged}"
        )
