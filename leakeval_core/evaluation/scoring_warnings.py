"""The warnings a run's scores must carry when they mostly count what nobody judged.

A run in another id space than its qrels (another collection's, URLs for docids, a run
whose sixth column holds the docid) scores near 0 without an error: every unjudged document
counts as non-relevant. So does a run that found nothing relevant anywhere. Neither may pass
as a result. The scorer counts, once per run and beside its other diagnostics, how much of
the run the qrels judge (`Judged`) and which measures are 0 on every query; this module
says it, in the one sentence every door shows: the command's stderr, the API's results,
the report's "Read this first", the dashboard's notices.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

__all__ = [
    "JUDGED_BELOW",
    "JUDGED_TOP",
    "SHARED_BELOW",
    "Judged",
    "collection_qrels",
    "run_warnings",
    "zero_warning",
]

JUDGED_TOP = 10
"""The ranks whose judged share is counted: a run's top 10 (within the depth), which every
dashboard measure reads and which a TREC pool judges nearly whole. The whole depth would
flag sound runs: BM25's top 1000 on Core 2018 is 19% judged, its top 10 99%."""

JUDGED_BELOW = 0.5
"""Fewer than half of the top documents judged: the scores then mostly count unjudged
documents as non-relevant. Sound runs judge 84 to 99% of their top 10 (BM25 and BM25+RM3
on Robust04, Core 2017 and Core 2018); a run in another id space judges none. The Dataset
browser marks a condition whose judged@10 falls below it as a lower bound."""

SHARED_BELOW = 0.01
"""Under 1% of the distinct documents a run ranks (within the depth) found in the qrels at
all: the two share almost no document ids. Sound runs share a quarter (Core's top 1000) to
nearly all (Robust04's top 150)."""


@dataclass(frozen=True)
class Judged:
    """How much of one run its qrels judge."""

    top_k: int = JUDGED_TOP
    """The ranks counted: `JUDGED_TOP`, or the depth where it is shallower."""
    top_ranked: int = 0
    """Documents ranked in the top `top_k` for the queries both the run and the qrels
    score."""
    top_judged: int = 0
    """Of them, those with a judgment for their query."""
    documents: int = 0
    """The distinct documents it ranks within the depth for those queries: all its scores
    read."""
    documents_judged: int = 0
    """Of them, those the qrels judge for some query."""

    def warning(self, run: str, qrels: str) -> str | None:
        """The sentence when too little of the run is judged (`JUDGED_BELOW`) or the run
        shares almost no documents with the qrels (`SHARED_BELOW`), else None."""
        few_judged = self.top_ranked and self.top_judged < JUDGED_BELOW * self.top_ranked
        few_shared = self.documents and self.documents_judged < SHARED_BELOW * self.documents
        if not (few_judged or few_shared):
            return None
        shared = (
            f"{self.documents_judged:,} of the {self.documents:,} distinct documents it ranks "
            f"({_share(self.documents_judged, self.documents)}) appear in {qrels} at all"
        )
        top = (
            f"{self.top_judged:,} of the {self.top_ranked:,} documents it ranks in the top "
            f"{self.top_k} ({_share(self.top_judged, self.top_ranked)}) are judged in {qrels}"
        )
        if few_judged:
            said = f"{top}, and {shared}" if few_shared else top
            said += "; its scores mostly count unjudged documents as non-relevant"
        else:
            said = f"only {shared}"
        return (
            f"{run}: {said} — check that the run's and the qrels' document ids match (in a "
            "TREC run the docid is column 3)."
        )


def collection_qrels(collection: str) -> str:
    """How a warning names a collection's qrels that have no file name of their own."""
    return f"the {collection} qrels"


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}"


def zero_warning(run: str, measures: Sequence[str], queries: int) -> str | None:
    """The sentence for the measures a run scores 0 on every query ("run.txt: ndcg_cut_10
    is 0 on all 249 queries."), None when there are none."""
    if not measures:
        return None
    names = measures[0] if len(measures) == 1 else f"{', '.join(measures[:-1])} and {measures[-1]}"
    verb = "is" if len(measures) == 1 else "are"
    return f"{run}: {names} {verb} 0 on all {queries:,} queries."


def run_warnings(
    run: str,
    qrels: str,
    judged: Judged,
    zero: Sequence[str],
    queries: int,
    measures: Collection[str] | None = None,
) -> tuple[str, ...]:
    """Every warning about one run's scores: how little of it `qrels` judge, and its
    measures at 0 on all of its `queries` (of `measures` only, where given: a figure of one
    measure need not hear of another's)."""
    zero = [m for m in zero if measures is None or m in measures]
    said = (judged.warning(run, qrels), zero_warning(run, zero, queries))
    return tuple(s for s in said if s)
