"""Qrels prepared once for scoring many runs under one set of conventions."""

from __future__ import annotations

import copy
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leakeval_core.evaluation.arrow import as_table, codes, dictionary, rank_within, strings
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.judgments import JudgmentIndex, narrowest
from leakeval_core.io import trec
from leakeval_core.io.arrays import from_numpy, to_numpy

if TYPE_CHECKING:
    from leakeval_core.evaluation.arrow import RunLike

__all__ = ["PreparedQrels"]


_NOTHING_JUDGED = "\0leakeval: no document judged"
"""A judged non-relevant document no run ranks, given to a query whose every judgment is
negative (pooled, not judged): trec_eval refuses such a query (it sizes its grade counts by
the highest grade), and pytrec_eval, running the same code, crashes the process when bpref
is asked beside another measure, or once did not return from nDCG. With it the query scores
as one with nothing relevant, as leakeval's own measures score it."""


class PreparedQrels:
    """Qrels indexed once for scoring many runs under one set of conventions."""

    def __init__(
        self,
        qrels: RunLike,
        conventions: Conventions = Conventions(),
        judgments: JudgmentIndex | None = None,
    ) -> None:
        """`judgments`: the index these qrels' own `judgments` built under these conventions'
        relevance level and policy for queries without a relevant document, kept from an
        earlier process (`qrels_cache`); built when first asked for otherwise."""
        self.conventions = conventions
        if judgments is not None:
            self.judgments = judgments
        table = as_table(qrels, "grade")
        grades = to_numpy(table.column("grade"))
        self._grades = grades.astype(narrowest(grades), copy=False)
        """Each judgment's grade, in the narrowest integer type that holds them all: a
        byte each for any usual qrels, where the readers' int64 takes eight."""
        qid_codes, qid_values = dictionary(table, "qid")
        qid_codes = qid_codes.astype(np.min_scalar_type(-max(len(qid_values), 1)), copy=False)
        table = table.set_column(
            0, "qid", pa.DictionaryArray.from_arrays(from_numpy(qid_codes), qid_values)
        )
        self.table = table.set_column(2, "grade", from_numpy(self._grades))
        """The qrels as read (qid, docid dictionary-encoded; grade), the qids' codes and the
        grades in the narrowest types that hold them (two bytes and one a judgment, for any
        usual qrels, where the readers' take four and eight): what `qrels_cache` keeps."""
        self._docids = table.column("docid").chunk(0)
        relevant = self._grades >= conventions.relevance_level
        num_rel = np.bincount(qid_codes[relevant], minlength=len(qid_values))
        creditable = np.bincount(qid_codes[self._grades > 0], minlength=len(qid_values)) > 0
        by_qid = to_numpy(pc.sort_indices(qid_values))
        keep = creditable[by_qid] | (conventions.no_relevant == "zero")
        evaluated = by_qid[keep]
        self.no_relevant = int((~creditable).sum())
        """Judged queries on which nothing could be credited, having no positive grade:
        excluded, or under `no_relevant="zero"` scored 0 on every measure. Whatever the
        relevance level: a query with grades below it still has its graded gain (nDCG), and
        0 on the binary measures, as in trec_eval."""
        scored_qids = pc.take(qid_values, from_numpy(evaluated))
        self.qids = np.array(scored_qids.to_pylist(), dtype=object)
        """Scored queries (those with a positive grade, or every judged one under
        `no_relevant="zero"`), in qid order."""
        self.num_rel = num_rel[evaluated]
        position = np.full(len(qid_values), -1, np.min_scalar_type(-max(len(qid_values), 1)))
        position[evaluated] = np.arange(len(evaluated))
        self._row_qidx = position[qid_codes]
        """Each qrels row's query as a position in `qids`, -1 when it is not scored."""
        self._position = position
        """Each judged query's position in `qids`, -1 when it is not scored."""
        self._qids = table.column("qid").chunk(0)
        self._judged_qids = strings(qid_values)
        self._pytrec_qrels: dict[bool, dict[str, dict[str, int]]] = {}
        self._ideal: dict[int, np.ndarray] = {}
        self._variants: dict[tuple, PreparedQrels] = {}
        self.gains: tuple[tuple[int, int], ...] | None = None
        """A measure's own gain of each grade it names (`Measure.gains`), in a variant
        `at` made for it; None: the grades are the gains, under the conventions' gain."""

    def at(
        self,
        relevance_level: int | None = None,
        gain: str | None = None,
        gains: tuple[tuple[int, int], ...] | None = None,
    ) -> PreparedQrels:
        """These qrels for a measure with its own relevance level, gain or gain of each
        grade (`P(rel=2)@10`, `nDCG(dcg='exp-log2')@10`, `nDCG(gains={1: 0})@10`).

        The scored queries stay these conventions' own, so every measure of a run is over
        the same queries; a query without a document at the measure's level scores 0 on it,
        as in pytrec_eval. The judgments' index is shared.
        """
        if relevance_level is None and gain is None and gains is None:
            return self  # every measure's own settings unset: asked once per run and measure
        conventions = replace(
            self.conventions,
            relevance_level=self.conventions.relevance_level
            if relevance_level is None
            else relevance_level,
            gain="linear" if gains else gain or self.conventions.gain,
        )
        if conventions == self.conventions and gains is None:
            return self
        key = (conventions.relevance_level, conventions.gain, gains)
        if key not in self._variants:
            self.judgments  # noqa: B018 - built once, shared by every variant
            variant = copy.copy(self)
            variant.conventions, variant.gains = conventions, gains
            scored = self._row_qidx >= 0
            relevant = scored & (self._grades >= conventions.relevance_level)
            variant.num_rel = np.bincount(self._row_qidx[relevant], minlength=len(self.qids))
            variant._pytrec_qrels, variant._ideal, variant._variants = {}, {}, {}
            self._variants[key] = variant
        return self._variants[key]

    def gain(self, grades: np.ndarray) -> np.ndarray:
        """Gain of each grade; negative grades and unjudged documents (NaN) gain 0, unless
        `gains` names them."""
        if self.gains:
            grades = self._mapped(np.asarray(grades, dtype=np.float64))
        clipped = np.fmax(grades, 0.0)  # fmax: NaN gives 0, as a negative grade does
        return clipped if self.conventions.gain == "linear" else np.exp2(clipped) - 1.0

    def gaining(self, grades: np.ndarray) -> np.ndarray:
        """Which of these grades gain anything: the positive ones, or those `gains` gives a
        positive gain (a grade it maps to 0 gains nothing, one it maps from 0 does)."""
        if not self.gains:
            return grades > 0
        return self._mapped(np.asarray(grades, dtype=np.float64)) > 0

    def _mapped(self, grades: np.ndarray) -> np.ndarray:
        """`gains` applied: each grade it names replaced by its gain, as ir_measures does."""
        mapped = grades.copy()
        for grade, value in self.gains or ():
            mapped[grades == grade] = value
        return mapped

    def ideal_dcg(self, k: int) -> np.ndarray:
        """Per scored query, the DCG of its best possible ranking at cutoff k.

        Computed at k itself, also beyond the depth (trec_eval -M does the same: the depth
        cuts the run, never the ideal). Only judgments with a gain take part: a few percent
        of the qrels, so the sort is small."""
        if k not in self._ideal:
            gaining = np.flatnonzero((self._row_qidx >= 0) & self.gaining(self._grades))
            gains = self.gain(self._grades[gaining].astype(np.float64))
            qidx = self._row_qidx[gaining]
            order = np.lexsort((-gains, qidx))
            qidx, gains = qidx[order], gains[order]
            rank = rank_within(qidx)
            top = rank <= k
            self._ideal[k] = np.bincount(
                qidx[top], weights=gains[top] / np.log2(rank[top] + 1), minlength=len(self.qids)
            )
        return self._ideal[k]

    @cached_property
    def judged_per_query(self) -> np.ndarray:
        """Per scored query, how many documents it has judged: its pool's depth, against
        which a run's share of judged documents is weighed (`scoring_warnings`)."""
        scored = self._row_qidx >= 0
        return np.bincount(self._row_qidx[scored], minlength=len(self.qids))

    @cached_property
    def highest_grade(self) -> np.ndarray:
        """Per scored query, its highest grade (0 for a query without a positive one): what
        trec_eval 10's rbp divides its grades by."""
        scored = self._row_qidx >= 0
        highest = np.zeros(len(self.qids), np.int64)
        np.maximum.at(highest, self._row_qidx[scored], self._grades[scored])
        return highest

    def query_positions(self, qids: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
        """Whether the qrels judge each qid (a run for none of them is for another
        collection), and its position in `self.qids` (-1: not scored)."""
        judged = codes(qids, self._judged_qids)
        known = judged >= 0
        positions = np.full(len(judged), -1)
        positions[known] = self._position[judged[known]]
        return known, positions

    @cached_property
    def judgments(self) -> JudgmentIndex:
        """The scored queries' judgments, searchable by (query, document); built once,
        however many runs follow."""
        scored = np.flatnonzero(self._row_qidx >= 0)
        docs = to_numpy(self._docids.indices)[scored]
        return JudgmentIndex(
            len(self.qids),
            self._row_qidx[scored],
            docs,
            self._docids.dictionary,
            self._grades[scored],
        )

    def pytrec_qrels(self, gain_transformed: bool) -> dict[str, dict[str, int]]:
        """Qrels as pytrec_eval wants them: str keys, int grades.

        With exponential gain, nDCG-family measures get grades rewritten to 2^g − 1 (so
        pytrec_eval's linear gain becomes exponential), and with `gains` each named grade
        its gain; binary measures keep the raw grades so their relevance threshold does not
        move.
        """
        key = bool(gain_transformed and (self.conventions.gain == "exponential" or self.gains))
        if key not in self._pytrec_qrels:
            grades = self._grades.astype(np.int64)  # 2^g - 1 in a narrow type's float loses it
            if key and self.gains:
                grades = self._mapped(grades)
            elif key:
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
            for docs in out.values():
                if max(docs.values()) < 0:
                    docs[_NOTHING_JUDGED] = 0
            self._pytrec_qrels[key] = out
        return self._pytrec_qrels[key]
