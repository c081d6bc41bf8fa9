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

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import pandas as pd

from .errors import LeakevalError
from .measures import Measure, parse_measures

__all__ = [
    "Conventions",
    "PreparedQrels",
    "RunScores",
    "ScoreDiagnostics",
    "rank_run",
    "score_run",
    "score_with_pytrec_eval",
]


@dataclass(frozen=True)
class Conventions:
    """Every choice that silently changes a published number, made explicit."""

    depth: int = 100
    relevance_level: int = 1
    gain: Literal["linear", "exponential"] = "linear"
    tie_order: Literal["docid_asc", "docid_desc"] = "docid_asc"
    missing: Literal["zero", "drop"] = "zero"

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

    def describe(self) -> str:
        ties = (
            "docid ascending" if self.tie_order == "docid_asc" else "docid descending (trec_eval)"
        )
        gain = "linear gain" if self.gain == "linear" else "exponential gain (2^rel − 1)"
        missing = "scored 0" if self.missing == "zero" else "dropped"
        return (
            f"ties: score ↓ then {ties}; depth {self.depth}; {gain}; "
            f"relevant: grade ≥ {self.relevance_level}; queries missing from a run: {missing}"
        )


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
    scores: pd.DataFrame = field(repr=False)
    """Long table: qid, measure, value. first_rel_rank is NaN where undefined."""
    diagnostics: ScoreDiagnostics


class PreparedQrels:
    """Qrels indexed once for scoring many runs under one set of conventions."""

    def __init__(self, qrels: pd.DataFrame, conventions: Conventions = Conventions()) -> None:
        self.conventions = conventions
        self.qrels = qrels
        relevant = qrels.grade.to_numpy() >= conventions.relevance_level
        num_rel = pd.Series(relevant).groupby(qrels.qid.to_numpy()).sum()
        self.no_relevant = int((num_rel == 0).sum())
        evaluated = num_rel[num_rel > 0]
        self.qids = pd.Index(evaluated.index.astype(str), name="qid")
        self.num_rel = evaluated.to_numpy(dtype=np.float64)
        self.all_qids = frozenset(num_rel.index.astype(str))
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
        frame = self.qrels[self.qrels.qid.isin(self.qids)]
        gains = self.gain(frame.grade.to_numpy(dtype=np.float64))
        qidx = self.qids.get_indexer(frame.qid)
        order = np.lexsort((-gains, qidx))
        qidx, gains = qidx[order], gains[order]
        rank = _rank_within(qidx)
        depth = self.conventions.depth
        keep = rank <= depth
        table = np.zeros((depth, len(self.qids)))
        table[rank[keep] - 1, qidx[keep]] = gains[keep] / np.log2(rank[keep] + 1)
        return np.cumsum(table, axis=0)

    def qid_codes(self, qids: pd.Series) -> np.ndarray:
        """Position of each qid in `self.qids`, -1 for queries that are not scored."""
        return _codes(qids, self._qid_set)

    @cached_property
    def _qid_set(self):
        return _arrow(pd.Series(self.qids))

    @cached_property
    def _grade_index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Judged (qid, docid) rows of scored queries as sorted 64-bit row hashes.

        Hashes make the lookup a numpy searchsorted per run instead of rebuilding a string
        hash table of every judged document on each call; hits are confirmed by comparing
        the strings, so a hash collision cannot assign a wrong grade.
        """
        judged = self.qrels[self.qid_codes(self.qrels.qid) >= 0]
        keys = _row_hashes(judged)
        order = np.argsort(keys, kind="stable")
        rows = judged.iloc[order]
        return (
            keys[order],
            rows.grade.to_numpy(dtype=np.float64),
            rows.qid.to_numpy(dtype=object),
            rows.docid.to_numpy(dtype=object),
        )

    def judged_grades(self, run: pd.DataFrame) -> np.ndarray:
        """Each run row's grade as float, NaN where the document is unjudged."""
        keys, grades, qids, docids = self._grade_index
        out = np.full(len(run), np.nan)
        if not len(keys) or not len(run):
            return out
        wanted = _row_hashes(run)
        pos = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        hit = np.flatnonzero(keys[pos] == wanted)
        same = (qids[pos[hit]] == run.qid.to_numpy(dtype=object)[hit]) & (
            docids[pos[hit]] == run.docid.to_numpy(dtype=object)[hit]
        )
        out[hit[same]] = grades[pos[hit[same]]]
        return out

    def pytrec_qrels(self, gain_transformed: bool) -> dict[str, dict[str, int]]:
        """Qrels as pytrec_eval wants them: str keys, int grades.

        With exponential gain, nDCG-family measures get grades rewritten to 2^g − 1 (so
        pytrec_eval's linear gain becomes exponential); binary measures keep the raw grades
        so their relevance threshold does not move.
        """
        key = bool(gain_transformed and self.conventions.gain == "exponential")
        if key not in self._pytrec_qrels:
            grades = self.qrels.grade.to_numpy()
            if key:
                grades = np.where(grades > 0, np.exp2(np.clip(grades, 0, 62)) - 1, grades)
            out: dict[str, dict[str, int]] = {}
            pairs = zip(self.qrels.qid, self.qrels.docid, grades.tolist(), strict=True)
            for qid, docid, grade in pairs:
                out.setdefault(str(qid), {})[str(docid)] = int(grade)
            self._pytrec_qrels[key] = out
        return self._pytrec_qrels[key]


def _rank_within(group: np.ndarray) -> np.ndarray:
    """1-based position of each row within its run of equal, adjacent group ids."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lengths = np.diff(np.r_[starts, n])
    return np.arange(n) - np.repeat(starts, lengths) + 1


def _arrow(values: pd.Series):
    """A string column as a pyarrow large_string array (zero-copy for arrow-backed columns)."""
    import pyarrow as pa

    array = pa.array(values)
    return array if array.type == pa.large_string() else array.cast(pa.large_string())


def _row_hashes(frame: pd.DataFrame) -> np.ndarray:
    return pd.util.hash_pandas_object(frame[["qid", "docid"]], index=False).to_numpy()


def _codes(values: pd.Series, value_set) -> np.ndarray:
    """Index of each value in `value_set` (a hash lookup in pyarrow), -1 where absent."""
    import pyarrow.compute as pc

    found = pc.index_in(_arrow(values), value_set=value_set).fill_null(-1)
    return found.to_numpy(zero_copy_only=False).astype(np.int64)


def _ranked_top(run: pd.DataFrame, tie_order: str, depth: int) -> tuple[pd.DataFrame, int]:
    """The top `depth` rows of each query in ranking order (with `rank`), and the tied pairs.

    One pyarrow sort on (qid, score descending, docid in the tie order); equal scores of one
    query are adjacent afterwards, which is where the tied pairs are counted. Only the rows
    within depth are copied out, so a deep run is never duplicated whole.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.table(
        {"qid": _arrow(run.qid), "docid": _arrow(run.docid), "score": run.score.to_numpy()}
    )
    docid_order = "ascending" if tie_order == "docid_asc" else "descending"
    order = pc.sort_indices(
        table, sort_keys=[("qid", "ascending"), ("score", "descending"), ("docid", docid_order)]
    ).to_numpy()
    n = len(order)
    if n == 0:
        return run.iloc[:0].assign(rank=np.zeros(0, np.int64)), 0
    qids = table.column("qid").take(order)
    new_query = np.r_[
        True, pc.not_equal(qids.slice(1), qids.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    ]
    rank = _rank_within(np.cumsum(new_query))
    scores = run.score.to_numpy()[order]
    tie = ~new_query[1:] & (scores[1:] == scores[:-1])
    runs = np.diff(np.flatnonzero(np.r_[True, ~tie, True]))
    keep = rank <= depth
    ranked = run.iloc[order[keep]].reset_index(drop=True)
    ranked["rank"] = rank[keep]
    return ranked, int((runs * (runs - 1) // 2).sum())


def rank_run(run: pd.DataFrame, conventions: Conventions = Conventions()) -> pd.DataFrame:
    """Order a run by the tie policy and cut it at depth; adds a 1-based `rank` column.

    The input frame is never modified.
    """
    return _ranked_top(run, conventions.tie_order, conventions.depth)[0]


def score_run(
    run: pd.DataFrame,
    qrels: PreparedQrels,
    measures: Sequence[Measure | str] | str = ("ndcg_cut_10",),
    *,
    name: str = "run",
) -> RunScores:
    """Score one run per query. Queries with no relevant judgment are excluded and counted."""
    measures = parse_measures(measures) if not _all_measures(measures) else tuple(measures)
    conv = qrels.conventions
    run_qids = pd.unique(run.qid)
    judged_qids = np.fromiter((q in qrels.all_qids for q in run_qids), bool, len(run_qids))
    if len(run_qids) and not judged_qids.any():
        raise LeakevalError(
            f"{name}: none of its {len(run_qids)} queries has judgments in the qrels; "
            "is this run for another collection?"
        )
    evaluated = qrels.qid_codes(run.qid) >= 0
    scored = run if evaluated.all() else run[evaluated]  # no copy in the usual case
    ranked, tied_pairs = _ranked_top(scored, conv.tie_order, conv.depth)
    present = qrels.qid_codes(pd.Series(run_qids))
    in_run = np.zeros(len(qrels.qids), bool)
    in_run[present[present >= 0]] = True
    missing = tuple(qrels.qids[~in_run])

    grades = qrels.judged_grades(ranked)
    if len(ranked) and np.isnan(grades).all() and np.isnan(qrels.judged_grades(run)).all():
        raise LeakevalError(
            f"{name}: none of its {len(run)} documents is judged in the qrels; "
            "is this run for another collection?"
        )
    columns = _native_scores(ranked, grades, qrels, [m for m in measures if m.family.native])
    others = [m for m in measures if not m.family.native]
    if others:
        columns.update(_pytrec_columns(ranked, qrels, others))

    keep = in_run if conv.missing == "drop" else np.ones(len(qrels.qids), bool)
    qids = qrels.qids[keep]
    long = pd.DataFrame(
        {
            "qid": np.tile(qids.to_numpy(dtype=object), len(measures)),
            "measure": np.repeat([m.name for m in measures], len(qids)),
            "value": np.concatenate([columns[m.name][keep] for m in measures]),
        }
    )
    long["qid"] = long.qid.astype("str")
    frr = columns.get("first_rel_rank")
    diagnostics = ScoreDiagnostics(
        queries_scored=int(keep.sum()),
        missing_from_run=missing,
        no_relevant=qrels.no_relevant,
        not_in_qrels=int((~judged_qids).sum()),
        tied_pairs=tied_pairs,
        first_rel_undefined=int(np.isnan(frr[keep]).sum()) if frr is not None else 0,
    )
    return RunScores(long, diagnostics)


def _all_measures(measures: object) -> bool:
    return not isinstance(measures, str) and all(isinstance(m, Measure) for m in measures)


def _native_scores(
    ranked: pd.DataFrame, grades: np.ndarray, qrels: PreparedQrels, measures: Sequence[Measure]
) -> dict[str, np.ndarray]:
    """Vectorised per-query values, one array per measure aligned with `qrels.qids`.

    `grades` holds each ranked document's grade, NaN where unjudged.
    """
    nq = len(qrels.qids)
    qidx = qrels.qid_codes(ranked.qid)
    rank = ranked["rank"].to_numpy()
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
    ranked: pd.DataFrame, qrels: PreparedQrels, measures: Sequence[Measure]
) -> dict[str, np.ndarray]:
    import pytrec_eval

    # Distinct descending scores in leakeval's order, so pytrec_eval's own tie rule is moot.
    scores = (qrels.conventions.depth + 1 - ranked["rank"]).astype(float).tolist()
    run: dict[str, dict[str, float]] = {}
    for qid, docid, score in zip(ranked.qid, ranked.docid, scores, strict=True):
        run.setdefault(str(qid), {})[str(docid)] = score
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
        results = evaluator.evaluate(run)
        for m in group:
            values = [results.get(q, {}).get(m.name, 0.0) for q in qrels.qids]
            columns[m.name] = np.array(values, dtype=float)
    return columns


def _uses_gain(measure: Measure) -> bool:
    return measure.family.name.lower().lstrip("r").startswith("ndcg")


def score_with_pytrec_eval(
    run: pd.DataFrame, qrels: PreparedQrels, measures: Sequence[Measure | str] | str
) -> dict[str, np.ndarray]:
    """Reference scores from pytrec_eval on leakeval's ranking, aligned with `qrels.qids`.

    Used for every measure leakeval does not compute itself, and by the parity tests.
    """
    measures = parse_measures(measures) if not _all_measures(measures) else tuple(measures)
    ranked = rank_run(run[qrels.qid_codes(run.qid) >= 0], qrels.conventions)
    return _pytrec_columns(ranked, qrels, measures)
