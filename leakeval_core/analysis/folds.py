"""Fold aggregation: one value per (condition, query) before any mean or test.

Folds that split the queries are concatenated (each query scored once); folds that re-score
the same queries are averaged per query. Either way fold × query rows are never treated as
independent observations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.completeness import Completeness
from leakeval_core.experiment.scores import ExperimentScores

__all__ = ["FoldRule", "PerQuery", "detect_fold_rule", "per_query", "select"]

FoldRule = Literal["split", "repeated", "mixed", "none"]
Levels = Mapping[str, object]


def select(table: pd.DataFrame, levels: Levels) -> pd.DataFrame:
    """Rows whose factor columns equal the given levels."""
    mask = np.ones(len(table), dtype=bool)
    for factor, level in levels.items():
        if factor not in table.columns:
            raise LeakevalError(f"unknown factor {factor!r}")
        mask &= (table[factor] == level).to_numpy()
    return table[mask]


def levels_of(table: pd.DataFrame, levels: Levels) -> pd.DataFrame:
    """Rows at the given levels of the factors `table` has (others are not its factors:
    a summary over pairs has no column for the factor that forms the pairs)."""
    known = {f: v for f, v in levels.items() if f in table.columns}
    return select(table, known).reset_index(drop=True)


@dataclass(frozen=True)
class PerQuery:
    """One value per (condition, query) for one measure."""

    table: pd.DataFrame = field(repr=False)
    """The condition factors (fold removed), qid, value."""
    factors: tuple[str, ...]
    fold_rule: FoldRule
    """`split`: folds hold disjoint queries and were concatenated; `repeated`: folds re-score
    the same queries and were averaged per query; `none`: no fold factor."""
    missing: pd.DataFrame = field(repr=False)
    """Per condition, how many of the collection's queries no run scored."""
    incomplete: tuple[str, ...] = ()
    """What every output must say about the experiment's incomplete and broken conditions
    (`Completeness.statements`): left out, or computed anyway and how many queries each
    lacks."""
    left_out: Completeness = field(default_factory=Completeness)
    """The incomplete and broken conditions left out of `table` (none when allowed)."""
    scoring_warnings: tuple[str, ...] = ()
    """What every output of these values must say about the runs they come from
    (`evaluation.scoring_warnings`): too little of a run judged, the measure at 0 on every
    query of a run."""
    conventions_notes: tuple[str, ...] = ()
    """The collections scored at a relevance level other than 1 or under conventions of
    their own (`experiment.scores.conventions_notes`): what every caption says."""
    judged: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    """Per condition (the factors, folds summed): of the documents its runs rank in their
    top 10, how many are judged (`top_judged`) and all (`top_ranked`)."""
    unscored: dict[str, int] = field(default_factory=dict)
    """The collections in no figure, their qrels judging nothing relevant at the level
    they were scored at (`ExperimentScores.unscored`); `scoring_warnings` says so."""

    def unscored_refusal(self, levels: Levels) -> str | None:
        """Why a view of the condition at `levels` cannot be drawn when its collection is
        unscored, else None."""
        from leakeval_core.experiment.scores import unscored_note

        name = levels.get("collection")
        return unscored_note(name, self.unscored[name]) if name in self.unscored else None

    def judged_note(self, levels: Levels | None = None) -> str | None:
        """Judged@10 of the conditions at `levels` (every one when None) where under 90%,
        the lowest named by its other levels (`scoring_warnings.judged_note`): what a
        comparison's caption says."""
        from leakeval_core.evaluation.scoring_warnings import judged_note

        if self.judged.empty:
            return None
        rows = levels_of(self.judged, levels or {})
        named = [f for f in self.factors if f in rows.columns and rows[f].nunique() > 1]
        named = named or [f for f in self.factors if f in rows.columns][-1:]
        return judged_note(
            {
                ", ".join(f"{f} {row[f]}" for f in named): (
                    int(row["top_judged"]),
                    int(row["top_ranked"]),
                )
                for row in rows.to_dict("records")
            }
        )

    def caption_notes(self) -> tuple[str, ...]:
        """What a comparison's caption adds: the collections' conventions of their own, and
        Judged@10 where under 90% (`judged_note`)."""
        judged = self.judged_note()
        return (*self.conventions_notes, *([judged] if judged else []))

    def subset(self, levels: Levels) -> PerQuery:
        """Only the conditions at the given factor levels (e.g. one collection)."""
        rows = select(self.table, levels).reset_index(drop=True)
        return replace(self, table=rows)


def detect_fold_rule(scores: pd.DataFrame, fold: str, factors: Sequence[str]) -> FoldRule:
    """Whether folds split the queries, re-score them, or (in a broken design) a bit of both."""
    if fold not in scores.columns:
        return "none"
    pairs = scores[[*factors, fold, "qid"]].drop_duplicates()
    folds_per_query = pairs.groupby([*factors, "qid"], observed=True)[fold].nunique()
    folds_per_condition = pairs.groupby(list(factors), observed=True)[fold].nunique()
    if (folds_per_query == 1).all():
        return "split"
    expected = folds_per_query.index.droplevel("qid").map(folds_per_condition)
    return "repeated" if (folds_per_query.to_numpy() == expected.to_numpy()).all() else "mixed"


def per_query(
    results: ExperimentScores,
    measure: str,
    rule: FoldRule | Literal["auto"] = "auto",
    allow_incomplete: bool = False,
) -> PerQuery:
    """Collapse runs to one value per (condition, query).

    Averaging each query over the folds that scored it concatenates folds that split the
    queries (each has one value) and averages folds that repeat them, so one mean serves both.
    The fold is the design's fold role; `rule="none"` keeps it as an ordinary factor instead.
    Queries of the collection that no fold scored get 0 (or are dropped) per the conventions,
    like trec_eval -c.

    Incomplete and broken conditions (`results.completeness`) are left out unless
    `allow_incomplete`; either way the result says which (`PerQuery.incomplete`). When none
    is left, the error says why.
    """
    scores = results.table[results.table.measure == measure]
    if scores.empty and measure not in {m.name for m in results.measures}:
        raise LeakevalError(
            f"measure {measure!r} was not scored; scored: "
            f"{', '.join(m.name for m in results.measures)}"
        )
    gaps = results.completeness
    if not allow_incomplete and not gaps.complete:
        scores = scores[~_at_any(scores, gaps.conditions())]
    all_factors = [c for c in scores.columns if c not in ("run_id", "qid", "measure", "value")]
    fold = results.design.fold
    keep_fold = rule == "none" or fold not in all_factors
    factors = tuple(f for f in all_factors if keep_fold or f != fold)
    detected = "none" if keep_fold else detect_fold_rule(scores, fold, factors)
    if rule not in ("auto", "none") and rule != detected:
        detected = rule  # an explicit override wins; the mean per query serves every rule
    table = scores.groupby([*factors, "qid"], observed=True, sort=True).value.mean().reset_index()

    conditions = table[list(factors)].drop_duplicates()
    universe = conditions.merge(results.queries, on="collection", how="inner")
    full = universe.merge(table, on=[*factors, "qid"], how="left")
    absent = full.value.isna() & ~full.set_index([*factors, "qid"]).index.isin(
        table.set_index([*factors, "qid"]).index
    )
    missing = (
        full.assign(absent=absent)
        .groupby(list(factors), observed=True)
        .absent.sum()
        .rename("missing")
        .reset_index()
    )
    if results.conventions.missing == "zero":
        from leakeval_core.evaluation.measures import parse_measure

        family = parse_measure(measure).family  # as `scoring` fills a query a run misses
        unranked = family.nothing_to_credit if family.unranked is None else family.unranked
        full.loc[absent, "value"] = unranked
    else:
        full = full[~absent]
    notes = gaps.statements(_lacking(gaps, missing, results.queries) if allow_incomplete else None)
    if full.empty and notes:
        raise LeakevalError("no condition can be computed. " + " ".join(notes))
    left_out = replace(gaps, gaps=()) if allow_incomplete else gaps
    return PerQuery(
        full.reset_index(drop=True),
        factors,
        detected,
        missing,
        notes,
        left_out,
        results.scoring_warnings(measure),
        results.notes,
        _judged(results, factors, conditions),
        results.unscored,
    )


def _judged(results: ExperimentScores, factors, conditions: pd.DataFrame) -> pd.DataFrame:
    """`PerQuery.judged`: the scored runs' top-10 counts, summed per condition of the
    table (a broken or left-out condition has none)."""
    runs = results.runs[results.runs.error == ""]
    counts = runs.groupby(list(factors), observed=True)[["top_judged", "top_ranked"]].sum()
    return conditions.merge(counts.reset_index(), on=list(factors), how="inner")


def _at_any(table: pd.DataFrame, conditions: Sequence[Levels]) -> np.ndarray:
    """Which rows belong to any of the conditions."""
    mask = np.zeros(len(table), dtype=bool)
    for levels in conditions:
        mask |= table.index.isin(select(table, levels).index)
    return mask


def _lacking(gaps, missing: pd.DataFrame, queries: pd.DataFrame) -> dict[tuple, tuple[int, int]]:
    """Per incomplete condition: the queries of its collection no run of it scored, and
    how many the collection has (all of them where none of its runs scored)."""
    total = queries.groupby("collection").size()
    counted = {
        tuple(row[f] for f in gaps.factors): int(row["missing"])
        for row in missing.to_dict("records")
    }
    out = {}
    for levels in gaps.conditions():
        key = tuple(levels.values())
        of = int(total.get(levels["collection"], 0))
        out[key] = (counted.get(key, of), of)
    return out
