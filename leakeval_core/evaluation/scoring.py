"""Per-query scoring under explicit, reportable conventions.

Two providers compute the same numbers and the tests hold them together:
- leakeval's vectorised measures (`native`), for the measures the dashboard lives on, fast
  enough to score hundreds of runs;
- pytrec_eval (`pytrec`), the reference, which also serves every other trec_eval measure.

Both see the run in leakeval's own order (`run_order`): score descending, then docid in the
tie order, cut at `depth`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import TYPE_CHECKING

import numpy as np

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation import parsed_runs, priority
from leakeval_core.evaluation.measures import (
    Measure,
    MeasureFamily,
    parse_measure,
    parse_measures,
)
from leakeval_core.evaluation.native import native_scores
from leakeval_core.evaluation.pytrec import pytrec_columns
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.run_order import Ranked, rank
from leakeval_core.evaluation.scoring_warnings import (
    EXAMPLES,
    JUDGED_TOP,
    Judged,
    ids_advice,
    run_warnings,
)

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.evaluation.arrow import RunLike

__all__ = [
    "RunScores",
    "ScoreDiagnostics",
    "aggregate",
    "aggregation",
    "score_files",
    "score_run",
    "stacked",
    "tie_note",
]


@dataclass(frozen=True)
class ScoreDiagnostics:
    """What the scorer had to decide, so the UI can say it rather than hide it."""

    queries_scored: int
    missing_from_run: tuple[str, ...]
    no_relevant: int
    """Qrels queries with no positive grade (`Conventions.no_relevant`): excluded from
    every measure, or scored 0 on every measure."""
    not_in_qrels: int
    """Run queries with no judgments at all: ignored."""
    tied_pairs: int
    """Document pairs of a scored query that share a score (their order is the tie policy's)."""
    first_rel_undefined: int
    """Scored queries with no relevant document within depth: left out of MFR."""
    judged: Judged = field(default_factory=Judged)
    """How much of the run the qrels judge: its top documents and its distinct ones."""
    all_zero: tuple[str, ...] = ()
    """The measures 0 is the worst of that are 0 on every scored query."""
    tie_changes: int = 0
    """Scored queries whose value on some measure trec_eval's tie order (docid descending)
    would change: 0 when that is the order used, or nothing is tied."""
    published: tuple = ()
    """A published evaluation's means checked against its per-query values
    (one per measure with an `all` line) and the measures it holds that leakeval does not
    know (`published.PublishedNote`); empty for a run."""

    def tie_note(self, tie_order: str) -> str:
        """`tie_note` of this run's ties."""
        return tie_note(self.tied_pairs, self.tie_changes, tie_order)

    def warnings(
        self, run: str, qrels: str = "the qrels", measures: Collection[str] | None = None
    ) -> tuple[str, ...]:
        """What a reader of these scores must be told, loudly (`scoring_warnings`): too
        little of `run` judged in `qrels`, and its measures (of `measures`, where given) at 0
        on every query."""
        said = run_warnings(run, qrels, self.judged, self.all_zero, self.queries_scored, measures)
        return said + tuple(note.text for note in self.published if note.warns)

    def coverage(self, missing: str) -> str:
        """How many queries the means hold and why, in numbers that add up ("250 queries in
        the means: 200 retrieved by the run, 50 absent from it, scored 0"). `missing` is the
        conventions' policy for judged queries a run lacks: zero or drop."""
        absent = len(self.missing_from_run)
        if missing == "zero":
            retrieved = self.queries_scored - absent
            why = f": {retrieved} retrieved by the run, {absent} absent from it, scored 0"
        else:
            why = f", all retrieved by the run; {absent} judged queries absent from it, dropped"
        return f"{self.queries_scored} queries in the means" + (
            why if absent else ", all retrieved by the run"
        )


def tie_note(tied_pairs: int, changes: int, tie_order: str) -> str:
    """The tied pairs, the order that broke them and, when it is not trec_eval's, how many
    queries' values trec_eval's would change: one wording for the CLI and the app."""
    if tie_order == "docid_desc":
        return f"{tied_pairs} tied document pairs, broken by docid descending (trec_eval's)"
    effect = (
        f"the values of {changes} quer{'y' if changes == 1 else 'ies'}" if changes else "no value"
    )
    return (
        f"{tied_pairs} tied document pairs, broken by docid ascending; trec_eval's order "
        f"(docid descending) changes {effect}"
    )


@dataclass(frozen=True)
class RunScores:
    """Per-query values of one run: `qids` and one array per measure, aligned."""

    qids: np.ndarray = field(repr=False)
    values: dict[str, np.ndarray] = field(repr=False)
    diagnostics: ScoreDiagnostics

    @cached_property
    def table(self) -> pd.DataFrame:
        """Long table: qid, measure, value. first_rel_rank is NaN where undefined."""
        return stacked([self])[0]

    def means(self) -> dict[str, float]:
        """Each measure over queries, as trec_eval's `all` row: undefined values (NaN) are
        left out."""
        return dict(self._means)

    @cached_property
    def _means(self) -> dict[str, float]:
        return {name: aggregate(name, values) for name, values in self.values.items()}


def stacked(results: Sequence[RunScores]) -> tuple[pd.DataFrame, np.ndarray]:
    """The long tables (qid, measure, value) of many runs as one, and each row's run as its
    position in `results`. The columns are joined as arrays and made a frame once: a frame
    per run costs far more than its arithmetic, all of it holding the GIL that the scoring
    threads and the other sessions of a served app need."""
    import pandas as pd

    sizes = [len(r.qids) * len(r.values) for r in results]
    if not results:
        text = pd.array([], dtype="str")
        return pd.DataFrame({"qid": text, "measure": text, "value": np.zeros(0)}), np.zeros(0, int)
    table = pd.DataFrame(
        {
            "qid": pd.array(
                np.concatenate([np.tile(r.qids, len(r.values)) for r in results]), dtype="str"
            ),
            "measure": np.concatenate([np.repeat(list(r.values), len(r.qids)) for r in results]),
            "value": np.concatenate([v for r in results for v in r.values.values()]),
        }
    )
    return table, np.repeat(np.arange(len(results)), sizes)


GEOMETRIC_FLOOR = 1e-5
"""trec_eval's floor for geometric means (gm_map, gm_bpref): one zero would zero them."""


def aggregate(measure: str, values: np.ndarray) -> float:
    """The `all` value of a measure, combined as trec_eval combines it: a mean, a sum (the
    num_* counts), or a geometric mean (gm_*). With no defined value it is 0, as trec_eval
    prints, except for a measure whose queries with nothing to credit leave the mean
    (`MeasureFamily.nothing_to_credit`: the first relevant rank), whose mean is then
    undefined."""
    family = _family(measure)
    how = family.aggregate
    defined = values[~np.isnan(values)]
    if not len(defined):
        return math.nan if math.isnan(family.nothing_to_credit) else 0.0
    if how == "sum":
        return float(defined.sum())
    if how == "geometric":
        return float(np.exp(np.log(np.maximum(defined, GEOMETRIC_FLOOR)).mean()))
    return float(defined.mean())


def aggregation(measure: str) -> str:
    """How a measure's `all` value combines (`MeasureFamily.aggregate`)."""
    return _family(measure).aggregate


@cache
def _family(measure: str) -> MeasureFamily:
    """A measure's declaration, parsed once per name: the scoring threads ask for every run
    and measure, and parsing holds the GIL they share."""
    return parse_measure(measure).family


def score_run(
    run: RunLike,
    qrels: PreparedQrels,
    measures: Sequence[Measure | str] | str = ("ndcg_cut_10",),
    *,
    name: str = "run",
) -> RunScores:
    """Score one run per query. Queries with no positive grade are excluded and counted,
    unless the conventions score them 0."""
    return _scored(run, qrels, name, parse_measures(measures))


def _scored(run: RunLike, qrels: PreparedQrels, name: str, measures: tuple[Measure, ...]):
    """`run` scored under the qrels' conventions; where they break ties otherwise than
    trec_eval and some are tied, scored under trec_eval's order too, to count the queries
    whose values the order decides (`ScoreDiagnostics.tie_changes`)."""
    scores = _score_ranked(rank(run, qrels, name), qrels, measures)
    if qrels.conventions.tie_order == "docid_desc" or not scores.diagnostics.tied_pairs:
        return scores
    other = _score_ranked(rank(run, qrels, name, tie_order="docid_desc"), qrels, measures)
    changed = np.zeros(len(scores.qids), bool)
    for measure, values in scores.values.items():
        changed |= ~np.isclose(values, other.values[measure], rtol=0, atol=1e-12, equal_nan=True)
    return replace(scores, diagnostics=replace(scores.diagnostics, tie_changes=int(changed.sum())))


def score_files(
    paths: Sequence[str | os.PathLike[str]],
    qrels: PreparedQrels | Callable[[], PreparedQrels],
    measures: Sequence[Measure | str] | str,
    progress: Callable[[int, int, str], None] | None = None,
) -> Iterator[RunScores | LeakevalError]:
    """Read and score many run files, yielding each file's result (or its error) in order.

    Files go to the process's scoring threads (`scoring_pool`: pyarrow and numpy release the
    GIL), one file per thread at a time, so only as many parsed runs are alive as there are
    threads: the qrels' judgments are indexed once and searched by every run
    (`JudgmentIndex`), so nothing is gained by reading runs in batches. Before each file a
    thread gives way to readers' requests (`priority`).

    `qrels` may be a function that prepares them. It then runs on the calling thread while
    the workers read the first files, which need no qrels yet: reading Robust04's qrels is
    a tenth of what 100 runs take, and one core would otherwise wait through it.
    """
    measures = parse_measures(measures)
    prepared: Future[PreparedQrels] = Future()

    def score_file(path) -> RunScores | LeakevalError:
        try:
            priority.give_way()
            table = parsed_runs.read_run_table(path)
            ready = prepared.result()
            return _scored(table, ready, str(path), measures)
        except LeakevalError as exc:
            return exc

    futures = [scoring_pool().submit(score_file, path) for path in paths]
    try:
        ready = qrels() if callable(qrels) else qrels
        ready.judgments  # noqa: B018 - built once here, not raced for by the workers
        prepared.set_result(ready)
        for done, future in enumerate(futures, start=1):
            with priority.stepping_aside():  # a reader's upload, waited for in their rerun
                result = future.result()
            yield result
            if progress:
                progress(done, len(paths), str(paths[done - 1]))
    except BaseException as exc:
        if not prepared.done():
            prepared.set_exception(exc)
        raise
    finally:
        for future in futures:
            future.cancel()


@cache
def scoring_pool() -> ThreadPoolExecutor:
    """One pool for every scoring of the process, `scoring_threads()` wide. A served app
    scores for several sessions at once: a pool per call would run a thread per core per
    session, and threads beyond the cores only trade the GIL back and forth, which costs
    more CPU than the scoring itself. Calls queue here instead, in the order they came."""
    return ThreadPoolExecutor(scoring_threads(), thread_name_prefix="leakeval-score")


def scoring_threads() -> int:
    """One per core, or OMP_NUM_THREADS where it is set: the count numpy's, pyarrow's and
    torch's own pools take too, so that one setting bounds the threads numeric work runs on.
    A served app sets it to leave a core to its other readers (`leakeval_app.serve`)."""
    given = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    return int(given) if given.isdigit() and int(given) > 0 else os.cpu_count() or 1


def _fill_unranked(
    values: dict[str, np.ndarray], absent: np.ndarray, measures: Sequence[Measure]
) -> None:
    """Queries the run misses score as their measure declares (`MeasureFamily.unranked`,
    trec_eval -c): an empty ranking would otherwise give unj 1 and rbp_resid 1."""
    if not absent.any():
        return
    for m in measures:
        if m.family.unranked is not None:
            values[m.name][absent] = m.family.unranked


def _judged(run: Ranked, grades: np.ndarray, documents: np.ndarray, qrels: PreparedQrels) -> Judged:
    """How much of the ranked run the qrels judge: its top rows judged for their query, and
    its distinct documents judged for any (`documents`: each one's position among the
    qrels' docids, -1 where they have none), with the first of the others and some of the
    qrels' to show beside them."""
    judged = ~np.isnan(grades)
    top = run.rank <= JUDGED_TOP
    ranked = np.zeros(len(run.doc_values), bool)
    ranked[run.docs] = True
    return Judged(
        top_k=min(JUDGED_TOP, qrels.conventions.depth),
        top_ranked=int(top.sum()),
        top_judged=int(judged[top].sum()),
        documents=int(ranked.sum()),
        documents_judged=int((documents[ranked] >= 0).sum()),
        ranked=len(run.docs),
        pool=int(qrels.judged_per_query[run.in_run].sum()),
        run_ids=_unknown(run, documents),
        qrels_ids=qrels.judgments.examples(EXAMPLES),
    )


def _unknown(run: Ranked, documents: np.ndarray) -> tuple[str, ...]:
    """The first `EXAMPLES` distinct documents the run ranks first (then at any rank) that
    the qrels judge for no query: those a reader knows the run by."""
    unknown = documents[run.docs] < 0
    rows = np.r_[np.flatnonzero(unknown & (run.rank == 1)), np.flatnonzero(unknown)]
    first = list(dict.fromkeys(run.docs[rows[: EXAMPLES * 1000]].tolist()))[:EXAMPLES]
    return tuple(run.doc_values[i].as_py() for i in first)


def _zero_everywhere(values: np.ndarray) -> bool:
    """Whether every defined value is 0, and there is one."""
    defined = values[~np.isnan(values)]
    return bool(len(defined)) and not defined.any()


def _by_settings(measures: Sequence[Measure]) -> dict[tuple, list[Measure]]:
    """Measures grouped by their own relevance level, gain and gains (None: the
    conventions')."""
    groups: dict[tuple, list[Measure]] = {}
    for m in measures:
        groups.setdefault((m.rel, m.gain, m.gains), []).append(m)
    return groups


def _score_ranked(run: Ranked, qrels: PreparedQrels, measures: tuple[Measure, ...]) -> RunScores:
    documents = qrels.judgments.documents(run.doc_values)
    grades = qrels.judgments.grades(run.qidx, documents[run.docs])
    if len(documents) and not (documents >= 0).any():
        raise LeakevalError(
            f"{run.name}: none of its {len(run.doc_values)} distinct documents is judged in "
            "the qrels; is this run for another collection? "
            + ids_advice(_unknown(run, documents), qrels.judgments.examples(EXAMPLES))
        )
    values: dict[str, np.ndarray] = {}
    for (rel, gain, gains), group in _by_settings(measures).items():
        at = qrels.at(rel, gain, gains)
        values.update(native_scores(run, grades, at, [m for m in group if m.family.native]))
        others = [m for m in group if not m.family.native]
        if others:
            values.update(pytrec_columns(run, at, others))
    conv = qrels.conventions
    keep = run.in_run if conv.missing == "drop" else np.ones(len(qrels.qids), bool)
    if conv.missing == "zero":
        _fill_unranked(values, ~run.in_run, measures)
    frr = values.get("first_rel_rank")
    diagnostics = ScoreDiagnostics(
        queries_scored=int(keep.sum()),
        missing_from_run=tuple(qrels.qids[~run.in_run]),
        no_relevant=qrels.no_relevant,
        not_in_qrels=run.not_in_qrels,
        tied_pairs=run.tied_pairs,
        first_rel_undefined=int(np.isnan(frr[keep]).sum()) if frr is not None else 0,
        judged=_judged(run, grades, documents, qrels),
        all_zero=tuple(
            m.name
            for m in measures
            if m.direction.zero_is_worst and _zero_everywhere(values[m.name][keep])
        ),
    )
    scores = RunScores(
        qrels.qids[keep],
        {m.name: values[m.name][keep] for m in measures},
        diagnostics,
    )
    scores.means()  # here, on the scoring thread: a consumer's thread would wait for the GIL
    return scores
