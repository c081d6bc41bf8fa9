"""Per-query scoring under explicit, reportable conventions.

Two providers compute the same numbers and the tests hold them together:
- a vectorised numpy scorer for the measures the dashboard lives on (nDCG@k, P@k, recall@k,
  judged@k, RR, first relevant rank, MAP), fast enough to score hundreds of runs;
- pytrec_eval, the reference, which also serves every other trec_eval measure.

Both see the run in leakeval's own order (score descending, then docid ascending, cut at
`depth`). pytrec_eval ignores the rank column and breaks ties by docid descending, so its
input scores are rewritten from that order before it sees them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import trec
from .arrays import from_numpy, to_numpy
from .conventions import Conventions
from .errors import LeakevalError
from .measures import Measure, parse_measures

if TYPE_CHECKING:
    import pandas as pd

    RunLike = pd.DataFrame | pa.Table
    """A run (qid, docid, score) or qrels (qid, docid, grade) as a frame or arrow table."""

__all__ = [
    "Conventions",
    "PreparedQrels",
    "RunScores",
    "ScoreDiagnostics",
    "rank_run",
    "score_files",
    "score_run",
    "score_with_pytrec_eval",
]


@dataclass(frozen=True)
class ScoreDiagnostics:
    """What the scorer had to decide, so the UI can say it rather than hide it."""

    queries_scored: int
    missing_from_run: tuple[str, ...]
    no_relevant: int
    """Qrels queries without a relevant judgment: excluded from every measure."""
    not_in_qrels: int
    """Run queries with no judgments at all: ignored."""
    tied_pairs: int
    """Document pairs of a scored query that share a score (their order is the tie policy's)."""
    first_rel_undefined: int
    """Scored queries with no relevant document within depth: left out of MFR."""


@dataclass(frozen=True)
class RunScores:
    """Per-query values of one run: `qids` and one array per measure, aligned."""

    qids: np.ndarray = field(repr=False)
    values: dict[str, np.ndarray] = field(repr=False)
    diagnostics: ScoreDiagnostics

    @cached_property
    def scores(self) -> pd.DataFrame:
        """Long table: qid, measure, value. first_rel_rank is NaN where undefined."""
        import pandas as pd

        return pd.DataFrame(
            {
                "qid": pd.array(np.tile(self.qids, len(self.values)), dtype="str"),
                "measure": np.repeat(list(self.values), len(self.qids)),
                "value": np.concatenate(list(self.values.values())),
            }
        )

    def means(self) -> dict[str, float]:
        """Mean of each measure over queries; undefined values (NaN) are left out."""
        with np.errstate(invalid="ignore"):
            return {
                name: float(np.nanmean(v)) if np.isfinite(v).any() else math.nan
                for name, v in self.values.items()
            }


@dataclass(frozen=True)
class _Ranked:
    """A run's scored rows in ranking order, cut at depth, as integer codes."""

    name: str
    qidx: np.ndarray
    """Each row's query as a position in `PreparedQrels.qids`."""
    rank: np.ndarray
    docs: np.ndarray
    """Each row's document as a position in `doc_values`."""
    doc_values: pa.Array
    """Every distinct document of the run, including those below depth."""
    in_run: np.ndarray
    """Per scored query: does the run rank anything for it?"""
    not_in_qrels: int
    tied_pairs: int


class PreparedQrels:
    """Qrels indexed once for scoring many runs under one set of conventions."""

    def __init__(self, qrels: RunLike, conventions: Conventions = Conventions()) -> None:
        self.conventions = conventions
        table = _as_table(qrels, "grade")
        qid_codes, qid_values = _dictionary(table, "qid")
        self._docids = table.column("docid").chunk(0)
        self._grades = to_numpy(table.column("grade")).astype(np.int64)
        relevant = self._grades >= conventions.relevance_level
        num_rel = np.bincount(qid_codes, weights=relevant, minlength=len(qid_values))
        by_qid = to_numpy(pc.sort_indices(qid_values))
        evaluated = by_qid[num_rel[by_qid] > 0]
        self.no_relevant = len(qid_values) - len(evaluated)
        scored_qids = qid_values.take(from_numpy(evaluated))
        self.qids = np.array(scored_qids.to_pylist(), dtype=object)
        """Scored queries (those with a relevant judgment), in qid order."""
        self.num_rel = num_rel[evaluated]
        position = np.full(len(qid_values), -1, np.int64)
        position[evaluated] = np.arange(len(evaluated))
        self._row_qidx = position[qid_codes]
        """Each qrels row's query as a position in `qids`, -1 when it is not scored."""
        self._qids = table.column("qid").chunk(0)
        self._qid_set = _strings(scored_qids)
        self._judged_qid_set = _strings(qid_values)
        self._pytrec_qrels: dict[bool, dict[str, dict[str, int]]] = {}

    def gain(self, grades: np.ndarray) -> np.ndarray:
        """Gain of each grade; negative grades and unjudged documents (NaN) gain 0."""
        clipped = np.nan_to_num(np.clip(grades, 0, None), nan=0.0)
        return clipped if self.conventions.gain == "linear" else np.exp2(clipped) - 1.0

    def ideal_dcg(self, k: int) -> np.ndarray:
        return self._ideal_dcg[np.minimum(k, self._ideal_dcg.shape[0]) - 1]

    @cached_property
    def _ideal_dcg(self) -> np.ndarray:
        """Ideal DCG at every cutoff 1..depth, one row per cutoff, one column per query."""
        scored = self._row_qidx >= 0
        gains = self.gain(self._grades[scored].astype(np.float64))
        qidx = self._row_qidx[scored]
        order = np.lexsort((-gains, qidx))
        qidx, gains = qidx[order], gains[order]
        rank = _rank_within(qidx)
        depth = self.conventions.depth
        keep = rank <= depth
        table = np.zeros((depth, len(self.qids)))
        table[rank[keep] - 1, qidx[keep]] = gains[keep] / np.log2(rank[keep] + 1)
        return np.cumsum(table, axis=0)

    def qid_codes(self, qids: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Position of each qid in `self.qids`, -1 for queries that are not scored."""
        return _codes(qids, self._qid_set)

    @cached_property
    def _judged(self) -> tuple[pa.Array, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Judgments of scored queries indexed by document: the document strings, each
        document's first judgment and number of judgments, and the judgments' queries and
        grades sorted by document then query.

        A run's rows then need one string hash lookup per distinct document, and a binary
        search among the few queries that document is judged for.
        """
        scored = np.flatnonzero(self._row_qidx >= 0)
        doc_values = self._docids.dictionary
        docs = to_numpy(self._docids.indices)[scored]
        order = np.lexsort((self._row_qidx[scored], docs))
        count = np.bincount(docs, minlength=len(doc_values))
        first = np.cumsum(count) - count
        queries = self._row_qidx[scored][order]
        return doc_values, first, count, queries, self._grades[scored][order].astype(float)

    def grades(self, runs: Sequence[_Ranked]) -> list[tuple[np.ndarray, int]]:
        """Each ranked row's grade as float (NaN where unjudged), and how many of the run's
        distinct documents are judged for any query.

        All runs' documents are looked up in one call, so the judged documents' hash table
        is built once per group of runs rather than once per run.
        """
        doc_values, first, count, queries, grades = self._judged
        found = _codes(pa.chunked_array([r.doc_values for r in runs], type=pa.string()), doc_values)
        bounds = np.cumsum([0, *(len(r.doc_values) for r in runs)])
        out = []
        for run, start, stop in zip(runs, bounds[:-1], bounds[1:], strict=True):
            doc = found[start:stop][run.docs]
            rows = np.flatnonzero(doc >= 0)
            wanted, block = run.qidx[rows], doc[rows]
            end = first[block] + count[block]
            pos = _search_blocks(queries, first[block], end, wanted)
            hit = pos < end
            hit[hit] = queries[pos[hit]] == wanted[hit]
            row = np.full(len(doc), np.nan)
            row[rows[hit]] = grades[pos[hit]]
            out.append((row, int((found[start:stop] >= 0).sum())))
        return out

    def pytrec_qrels(self, gain_transformed: bool) -> dict[str, dict[str, int]]:
        """Qrels as pytrec_eval wants them: str keys, int grades.

        With exponential gain, nDCG-family measures get grades rewritten to 2^g − 1 (so
        pytrec_eval's linear gain becomes exponential); binary measures keep the raw grades
        so their relevance threshold does not move.
        """
        key = bool(gain_transformed and self.conventions.gain == "exponential")
        if key not in self._pytrec_qrels:
            grades = self._grades
            if key:
                grades = np.where(grades > 0, np.exp2(np.clip(grades, 0, 62)) - 1, grades)
            out: dict[str, dict[str, int]] = {}
            pairs = zip(
                trec.decode(self._qids).to_pylist(),
                trec.decode(self._docids).to_pylist(),
                grades.tolist(),
                strict=True,
            )
            for qid, docid, grade in pairs:
                out.setdefault(str(qid), {})[str(docid)] = int(grade)
            self._pytrec_qrels[key] = out
        return self._pytrec_qrels[key]


def _search_blocks(
    values: np.ndarray, lo: np.ndarray, hi: np.ndarray, wanted: np.ndarray
) -> np.ndarray:
    """For each i, where `wanted[i]` is (or would go) in the sorted block values[lo[i]:hi[i]].

    One vectorised binary search over all blocks at once: as many rounds as the longest
    block has bits, each on the rows still searching. Blocks are short (a document is
    judged for a few queries), so this beats searching the whole array.
    """
    lo, hi = lo.copy(), hi.copy()
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        right = values[mid] < wanted[active]
        lo[active[right]] = mid[right] + 1
        hi[active[~right]] = mid[~right]
        active = active[lo[active] < hi[active]]
    return lo


def _rank_within(group: np.ndarray) -> np.ndarray:
    """1-based position of each row within its run of equal, adjacent group ids."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lengths = np.diff(np.r_[starts, n])
    return np.arange(n) - np.repeat(starts, lengths) + 1


def _strings(values: pd.Series | pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Strings as pyarrow `string`, the CSV reader's type, so arrays from files are never
    copied; other inputs (pandas' large_string) are cast once."""
    array = values if isinstance(values, pa.Array | pa.ChunkedArray) else pa.array(values)
    return array if array.type == pa.string() else array.cast(pa.string())


def _codes(values: pa.Array | pa.ChunkedArray, value_set: pa.Array) -> np.ndarray:
    """Index of each value in `value_set` (a hash lookup in pyarrow), -1 where absent."""
    found = pc.index_in(_strings(values), value_set=_strings(value_set))
    return to_numpy(found, fill=-1).astype(np.int64)


def _as_table(frame: RunLike, value: str = "score") -> pa.Table:
    """A run or qrels as the readers return them: qid and docid dictionary-encoded (one
    chunk each), and the value column."""
    return pa.table(
        {
            "qid": _encoded(frame["qid"]),
            "docid": _encoded(frame["docid"]),
            value: frame.column(value) if isinstance(frame, pa.Table) else frame[value].to_numpy(),
        }
    )


def _encoded(values: pd.Series | pa.ChunkedArray) -> pa.DictionaryArray:
    """Strings as one dictionary-encoded array; the readers' columns pass through as they are."""
    if isinstance(values, pa.ChunkedArray) and pa.types.is_dictionary(values.type):
        if values.num_chunks == 1:
            return values.chunk(0)
        values = values.cast(values.type.value_type)
    return trec.encode(_strings(values))


def _dictionary(table: pa.Table, column: str) -> tuple[np.ndarray, pa.Array]:
    """A dictionary column's codes (int32, as stored: a 10M-line run's rows stay small)
    and values."""
    array = table.column(column).chunk(0)
    return to_numpy(array.indices), array.dictionary


def _sorted_position(values: pa.Array) -> np.ndarray:
    """Each value's position in sorted order, so strings can be ordered as integers."""
    position = np.empty(len(values), np.int64)
    position[to_numpy(pc.sort_indices(values))] = np.arange(len(values))
    return position


def _ranking(
    groups: np.ndarray, scores: np.ndarray, docs: np.ndarray, doc_values: pa.Array, tie_order: str
) -> tuple[np.ndarray | None, np.ndarray, int]:
    """Ranking order of rows (None when they already are in it), each row's rank in that
    order, and the number of tied document pairs.

    The order is group ascending, score descending, then docid in the tie order. Most run
    files are written grouped by query with scores descending, so that is checked first
    (linear). Then only tied rows that are out of docid order need sorting, among
    themselves; a full sort happens only when groups or scores are out of order.
    """
    ascending = tie_order == "docid_asc"
    same = groups[1:] == groups[:-1]
    tied = same & (scores[1:] == scores[:-1])
    grouped = len(groups) - int(same.sum()) == int((np.bincount(groups, minlength=1) > 0).sum())
    runs = np.diff(np.flatnonzero(np.r_[True, ~tied, True]))
    tied_pairs = int((runs * (runs - 1) // 2).sum())
    if grouped and bool(np.all(~same | (scores[1:] <= scores[:-1]))):
        order = _order_ties(tied, docs, doc_values, ascending) if tied.any() else None
    else:
        sign = 1 if ascending else -1
        order = np.lexsort((sign * _sorted_position(doc_values)[docs], -scores, groups))
        groups = groups[order]
    return order, _rank_within(groups), tied_pairs


def _order_ties(
    tied: np.ndarray, docs: np.ndarray, doc_values: pa.Array, ascending: bool
) -> np.ndarray | None:
    """Row order that puts each block of tied rows in docid order, the rest staying put;
    None when every block already is. Only the tied rows' docids are compared."""
    member = np.r_[tied, False] | np.r_[False, tied]
    rows = np.flatnonzero(member)
    block = np.cumsum(np.r_[True, ~tied[rows[:-1]]])  # tied[i]: rows i and i+1 share a block
    table = pa.table({"block": from_numpy(block), "docid": doc_values.take(from_numpy(docs[rows]))})
    direction = "ascending" if ascending else "descending"
    within = pc.sort_indices(table, sort_keys=[("block", "ascending"), ("docid", direction)])
    within = to_numpy(within)
    if (within == np.arange(len(rows))).all():
        return None
    order = np.arange(len(docs))
    order[rows] = rows[within]
    return order


def _rank(run: RunLike, qrels: PreparedQrels, name: str) -> _Ranked:
    """Rank a run's scored queries under the qrels' conventions."""
    table = _as_table(run)
    qid_codes, qid_values = _dictionary(table, "qid")
    judged = to_numpy(pc.is_in(_strings(qid_values), value_set=qrels._judged_qid_set))
    if len(qid_values) and not judged.any():
        raise LeakevalError(
            f"{name}: none of its {len(qid_values)} queries has judgments in the qrels; "
            "is this run for another collection?"
        )
    qidx = qrels.qid_codes(qid_values).astype(np.int32)[qid_codes]
    docs, doc_values = _dictionary(table, "docid")
    scores = to_numpy(table.column("score"))
    scored = qidx >= 0
    if not scored.all():
        qidx, docs, scores = qidx[scored], docs[scored], scores[scored]
    order, rank, tied_pairs = _ranking(qidx, scores, docs, doc_values, qrels.conventions.tie_order)
    if order is not None:
        qidx, docs = qidx[order], docs[order]
    keep = rank <= qrels.conventions.depth
    in_run = np.zeros(len(qrels.qids), bool)
    in_run[qidx] = True
    return _Ranked(
        name=name,
        qidx=qidx[keep],
        rank=rank[keep],
        docs=docs[keep],
        doc_values=_strings(doc_values),
        in_run=in_run,
        not_in_qrels=int((~judged).sum()),
        tied_pairs=tied_pairs,
    )


def rank_run(run: pd.DataFrame, conventions: Conventions = Conventions()) -> pd.DataFrame:
    """Order a run by the tie policy and cut it at depth; adds a 1-based `rank` column.

    Queries come in qid order. The input frame is never modified.
    """
    table = _as_table(run)
    qid_codes, qid_values = _dictionary(table, "qid")
    docs, doc_values = _dictionary(table, "docid")
    order, rank, _ = _ranking(
        _sorted_position(qid_values)[qid_codes],
        to_numpy(table.column("score")),
        docs,
        doc_values,
        conventions.tie_order,
    )
    keep = rank <= conventions.depth
    rows = np.flatnonzero(keep) if order is None else order[keep]
    return run.iloc[rows].reset_index(drop=True).assign(rank=rank[keep])


def score_run(
    run: RunLike,
    qrels: PreparedQrels,
    measures: Sequence[Measure | str] | str = ("ndcg_cut_10",),
    *,
    name: str = "run",
) -> RunScores:
    """Score one run per query. Queries with no relevant judgment are excluded and counted."""
    result = _score_ranked([_rank(run, qrels, name)], qrels, parse_measures(measures))[0]
    if isinstance(result, LeakevalError):
        raise result
    return result


def score_files(
    paths: Sequence[str | os.PathLike[str]],
    qrels: PreparedQrels,
    measures: Sequence[Measure | str] | str,
    progress: Callable[[int, int, str], None] | None = None,
    group: int = 32,
) -> Iterator[RunScores | LeakevalError]:
    """Read and score many run files, yielding each file's result (or its error) in order.

    Groups of files go to a thread pool (pyarrow and numpy release the GIL); each group is
    read, ranked and looked up in the qrels at once. At most `group` files make a group,
    which bounds memory: only the files being worked on have their parsed tables alive.
    Groups are of equal size and their number a multiple of the workers, so no worker is
    left with the remainder while the others idle.
    """
    measures = parse_measures(measures)
    workers = min(os.cpu_count() or 1, max(len(paths), 1))
    per_worker = max(1, math.ceil(len(paths) / workers))
    size = math.ceil(per_worker / math.ceil(per_worker / group))

    def rank_file(path) -> _Ranked | LeakevalError:
        try:
            return _rank(trec.read_run_table(path), qrels, str(path))
        except LeakevalError as exc:
            return exc

    def score_group(start: int) -> list[RunScores | LeakevalError]:
        return _score_ranked([rank_file(p) for p in paths[start : start + size]], qrels, measures)

    done = 0
    with ThreadPoolExecutor(workers) as pool:
        for results in pool.map(score_group, range(0, len(paths), size)):
            yield from results
            done += len(results)
            if progress:
                progress(done, len(paths), str(paths[done - 1]))


def _score_ranked(
    ranked: Sequence[_Ranked | LeakevalError], qrels: PreparedQrels, measures: tuple[Measure, ...]
) -> list[RunScores | LeakevalError]:
    good = [r for r in ranked if isinstance(r, _Ranked)]
    looked_up = iter(qrels.grades(good) if good else [])
    results: list[RunScores | LeakevalError] = []
    for run in ranked:
        try:
            if isinstance(run, LeakevalError):
                raise run
            results.append(_finish(run, *next(looked_up), qrels, measures))
        except LeakevalError as exc:
            results.append(exc)
    return results


def _finish(
    run: _Ranked,
    grades: np.ndarray,
    judged_docs: int,
    qrels: PreparedQrels,
    measures: tuple[Measure, ...],
) -> RunScores:
    if len(run.doc_values) and not judged_docs:
        raise LeakevalError(
            f"{run.name}: none of its {len(run.doc_values)} distinct documents is judged in "
            "the qrels; is this run for another collection?"
        )
    values = _native_scores(run, grades, qrels, [m for m in measures if m.family.native])
    others = [m for m in measures if not m.family.native]
    if others:
        values.update(_pytrec_columns(run, qrels, others))
    conv = qrels.conventions
    keep = run.in_run if conv.missing == "drop" else np.ones(len(qrels.qids), bool)
    frr = values.get("first_rel_rank")
    diagnostics = ScoreDiagnostics(
        queries_scored=int(keep.sum()),
        missing_from_run=tuple(qrels.qids[~run.in_run]),
        no_relevant=qrels.no_relevant,
        not_in_qrels=run.not_in_qrels,
        tied_pairs=run.tied_pairs,
        first_rel_undefined=int(np.isnan(frr[keep]).sum()) if frr is not None else 0,
    )
    return RunScores(
        qrels.qids[keep],
        {m.name: values[m.name][keep] for m in measures},
        diagnostics,
    )


def _native_scores(
    run: _Ranked, grades: np.ndarray, qrels: PreparedQrels, measures: Sequence[Measure]
) -> dict[str, np.ndarray]:
    """Vectorised per-query values, one array per measure aligned with `qrels.qids`.

    `grades` holds each ranked document's grade, NaN where unjudged.
    """
    nq = len(qrels.qids)
    qidx, rank = run.qidx, run.rank
    judged = ~np.isnan(grades)
    relevant = judged & (np.nan_to_num(grades, nan=-np.inf) >= qrels.conventions.relevance_level)

    def per_query(mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        w = None if weights is None else weights[mask]
        return np.bincount(qidx[mask], weights=w, minlength=nq).astype(np.float64)

    first_rel = np.full(nq, np.inf)
    np.minimum.at(first_rel, qidx[relevant], rank[relevant])
    out: dict[str, np.ndarray] = {}
    for m in measures:
        k = m.cutoff
        family = m.family.name
        if family == "ndcg_cut":
            top = rank <= k
            discounted = qrels.gain(grades) / np.log2(rank + 1)
            out[m.name] = per_query(top, discounted) / qrels.ideal_dcg(k)
        elif family == "P":
            out[m.name] = per_query(relevant & (rank <= k)) / k
        elif family == "recall":
            out[m.name] = per_query(relevant & (rank <= k)) / qrels.num_rel
        elif family == "judged":
            out[m.name] = per_query(judged & (rank <= k)) / k
        elif family == "recip_rank":
            out[m.name] = np.where(np.isfinite(first_rel), 1.0 / first_rel, 0.0)
        elif family == "first_rel_rank":
            out[m.name] = np.where(np.isfinite(first_rel), first_rel, np.nan)
        elif family == "map":
            cum_rel = _rank_within_cumsum(relevant, qidx)
            out[m.name] = per_query(relevant, cum_rel / rank) / qrels.num_rel
    return out


def _rank_within_cumsum(flags: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Running count of `flags` within each run of equal adjacent group ids."""
    total = np.cumsum(flags)
    if not len(total):
        return total
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    before = np.r_[0, total][starts]
    lengths = np.diff(np.r_[starts, len(flags)])
    return total - np.repeat(before, lengths)


def _pytrec_columns(
    run: _Ranked, qrels: PreparedQrels, measures: Sequence[Measure]
) -> dict[str, np.ndarray]:
    import pytrec_eval

    # Distinct descending scores in leakeval's order, so pytrec_eval's own tie rule is moot.
    scores = (qrels.conventions.depth + 1 - run.rank).astype(float).tolist()
    qids = qrels.qids[run.qidx]
    docids = run.doc_values.take(from_numpy(run.docs)).to_pylist()
    pytrec_run: dict[str, dict[str, float]] = {}
    for qid, docid, score in zip(qids, docids, scores, strict=True):
        pytrec_run.setdefault(str(qid), {})[str(docid)] = score
    columns: dict[str, np.ndarray] = {}
    for uses_gain in (False, True):
        group = [m for m in measures if _uses_gain(m) == uses_gain]
        if not group:
            continue
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels.pytrec_qrels(gain_transformed=uses_gain),
            {m.name for m in group},
            relevance_level=qrels.conventions.relevance_level,
        )
        results = evaluator.evaluate(pytrec_run)
        for m in group:
            values = [results.get(q, {}).get(m.name, 0.0) for q in qrels.qids]
            columns[m.name] = np.array(values, dtype=float)
    return columns


def _uses_gain(measure: Measure) -> bool:
    return measure.family.name.lower().lstrip("r").startswith("ndcg")


def score_with_pytrec_eval(
    run: RunLike, qrels: PreparedQrels, measures: Sequence[Measure | str] | str
) -> dict[str, np.ndarray]:
    """Reference scores from pytrec_eval on leakeval's ranking, aligned with `qrels.qids`.

    Used for every measure leakeval does not compute itself, and by the parity tests.
    """
    return _pytrec_columns(_rank(run, qrels, "run"), qrels, parse_measures(measures))
