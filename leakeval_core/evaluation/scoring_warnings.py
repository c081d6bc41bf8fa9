"""The warnings a run's scores must carry when they mostly count what nobody judged.

A run in another id space than its qrels (another collection's, URLs for docids, a run
whose sixth column holds the docid) scores near 0 without an error: every unjudged document
counts as non-relevant. So does a run that found nothing relevant anywhere. Neither may pass
as a result. Shallow judgments (TREC DL, BEIR, MS MARCO) leave much of a sound run's top
unjudged too, with another risk: the pooled systems are favoured. The two are told apart
(`Judged.ids_differ`, `Judged.shallow`), so that only a mismatch is told to check its ids.
The scorer counts, once per run and beside its other diagnostics, how much of
the run the qrels judge (`Judged`) and which measures are 0 on every query; this module
says it, in the one sentence every door shows: the command's stderr, the API's results,
the report's "Read this first", the dashboard's notices.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "EXAMPLES",
    "JUDGED_BELOW",
    "JUDGED_NOTE_BELOW",
    "JUDGED_TOP",
    "MISMATCH_BELOW",
    "SHARED_BELOW",
    "Judged",
    "collection_qrels",
    "ids_advice",
    "judged_note",
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
on Robust04, Core 2017 and Core 2018) and TREC DL's shallow pools about half; a run in
another id space judges none. Said as shallow judgments, not as wrong ids, unless
`MISMATCH_BELOW` or `SHARED_BELOW` says the ids differ. The Dataset browser marks a
condition whose judged@10 falls below it as a lower bound."""

MISMATCH_BELOW = 0.1
"""Fewer than a tenth of the top documents judged: no pool, however shallow, leaves a run
whose ids are the qrels' that bare (a TREC DL run judges about half of its top 10, a run
pooled in no Robust04 pool a third), while a run in another id space judges next to none."""

SHARED_BELOW = 0.01
"""Under 1% of the distinct documents a run ranks (within the depth) found in the qrels at
all: the two share almost no document ids. Sound runs share a quarter (Core's top 1000) to
nearly all (Robust04's top 150). A shallow pool judges fewer than that of any run: the
share asked for is then a tenth of what the pool would give (its judgments per query over
the run's documents per query), so a run of a pool of ten per query is not taken for one
in another id space."""

JUDGED_NOTE_BELOW = 0.9
"""Judged@10 under which a comparison's caption names it (`judged_note`): a full TREC pool
judges 84 to 99% of a sound run's top 10, so a system below 90% is scored against fewer
judgments than its rivals may be, and its scores are lower bounds."""

EXAMPLES = 2
"""Document ids shown side by side, the run's and the qrels', when they look not to match."""


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
    ranked: int = 0
    """Rows ranked within the depth for those queries."""
    pool: int = 0
    """The qrels' judgments of those queries: how many of `ranked` could at most be judged."""
    run_ids: tuple[str, ...] = ()
    """The first `EXAMPLES` documents it ranks that the qrels judge for no query."""
    qrels_ids: tuple[str, ...] = ()
    """`EXAMPLES` documents the qrels judge."""

    @property
    def ids_differ(self) -> bool:
        """Whether the run's document ids look not to be the qrels': almost none of its top
        documents judged (`MISMATCH_BELOW`), or almost none of its documents known to the
        qrels at all (`few_shared`)."""
        return self._top_below(MISMATCH_BELOW) or self.few_shared

    @property
    def few_shared(self) -> bool:
        """Whether fewer of its distinct documents are known to the qrels than
        `SHARED_BELOW`, or a tenth of what their pool would give where it is shallower."""
        pooled = min(1.0, self.pool / self.ranked) if self.ranked else 1.0
        below = min(SHARED_BELOW, pooled / 10)
        return bool(self.documents) and self.documents_judged < below * self.documents

    @property
    def shallow(self) -> bool:
        """Whether the ids match but fewer than `JUDGED_BELOW` of the top documents are
        judged: shallow judgments, whose unjudged documents count as non-relevant."""
        return self._top_below(JUDGED_BELOW) and not self.ids_differ

    def _top_below(self, share: float) -> bool:
        return bool(self.top_ranked) and self.top_judged < share * self.top_ranked

    def warning(self, run: str, qrels: str) -> str | None:
        """The sentence when the run's ids look not to be the qrels' (`ids_differ`: the
        advice to check them, with ids of both side by side), or when its judgments are
        shallow (`shallow`: what Judged@10 means for a comparison, and what copes with it),
        else None."""
        if not (self.shallow or self.ids_differ):
            return None
        top = self.top_ranked and (  # a share of nothing is no share: said only of some
            f"{self.top_judged:,} of the {self.top_ranked:,} documents it ranks in the top "
            f"{self.top_k} ({_share(self.top_judged, self.top_ranked)}) are judged in {qrels}"
        )
        if self.shallow:
            return (
                f"{run}: Judged@{self.top_k} is {_share(self.top_judged, self.top_ranked)}: "
                f"{top}. Shallow judgments: unjudged documents count as non-relevant, which "
                "favours the systems that were pooled and under-scores one that finds "
                "documents they did not; bpref, or condensed lists (unjudged documents removed "
                "before the cutoff: --condensed, or the sidebar's Condensed lists), score only "
                "what was judged."
            )
        shared = (
            f"{self.documents_judged:,} of the {self.documents:,} distinct documents it ranks "
            f"({_share(self.documents_judged, self.documents)}) appear in {qrels} at all"
        )
        if self._top_below(JUDGED_BELOW):
            said = f"{top}, and {shared}" if self.few_shared else top
            said += "; its scores mostly count unjudged documents as non-relevant"
        else:
            said = f"only {shared}"
        return f"{run}: {said} — {ids_advice(self.run_ids, self.qrels_ids)}"


def judged_note(shares: Mapping[str, tuple[int, int]]) -> str | None:
    """The caption's sentence when a system compared has Judged@10 under
    `JUDGED_NOTE_BELOW`, naming the lowest; None when every one is above it. `shares`: per
    system or condition (named as the reader knows it: "model colbert"), the documents its
    runs rank in their top 10 that are judged, and all of them."""
    low = {name: j / r for name, (j, r) in shares.items() if r and j < JUDGED_NOTE_BELOW * r}
    if not low:
        return None
    lowest = min(low, key=lambda name: (low[name], name))
    some = f"{len(low)} of the {len(shares)} compared" if len(shares) > 1 else "the one compared"
    return (
        f"Judged@{JUDGED_TOP} is under {JUDGED_NOTE_BELOW:.0%} for {some}, lowest {lowest} at "
        f"{low[lowest]:.1%}: unjudged documents count as non-relevant, so those scores are "
        "lower bounds and the pooled systems are favoured."
    )


def ids_advice(run_ids: Sequence[str], qrels_ids: Sequence[str]) -> str:
    """The advice to check that a run's document ids are its qrels', with some of each side
    by side: one wording for the warning and for the error of a run none of whose documents
    is judged."""
    side = ""
    if run_ids and qrels_ids:
        side = f": the run ranks {', '.join(run_ids)}; the qrels judge {', '.join(qrels_ids)}"
    return (
        f"check that the run's and the qrels' document ids match{side} (in a TREC run the "
        "docid is column 3)."
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
