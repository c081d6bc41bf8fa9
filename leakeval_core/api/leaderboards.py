"""`leaderboard`: who is ahead on all topics, and on the topics that did not leak?

Per collection (and each level of the design's other factors), every system ranked on the
topics all of them scored and on those of them without a near-duplicate, with the
randomised Tukey HSD test's groups and rank intervals on each (`analysis.tukey`), and the
pairs whose verdict or order changes when the leaked topics are left out. The audit's leaderboard
(`Audit.board`) is this same result for the systems it audits, so the app, the report, the
CLI and the API show one set of groups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from leakeval_core.analysis.procedures import MANY_SYSTEMS
from leakeval_core.api.arguments import covered_of, per_query_of, source_of, view_of
from leakeval_core.api.results import Result, records, rows_at
from leakeval_core.api.study import RunSet, Study
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError

if TYPE_CHECKING:
    from leakeval_core.analysis.statistics_options import Statistics
    from leakeval_core.evaluation.measures import Measure
    from leakeval_core.experiment.scores import Progress

__all__ = ["Leaderboard", "leaderboard", "stacked_parts", "standings_of"]

SYSTEM_FIGURES = ("mean", "ci_low", "ci_high", "rank", "group", "rank_low", "rank_high")
"""A system's figures on one set of topics; the clean set's carry `clean_` before them in
`Leaderboard.table`."""


@dataclass(frozen=True)
class Leaderboard(Result):
    """Systems ranked on all topics and on the clean ones, with their HSD groups."""

    table: pd.DataFrame = field(repr=False)
    """Per place (`keys`) and system: on all topics (`topics` of them, every one scored by
    every system) its mean as scored, t interval, rank, group letters, rank interval
    (rank_low, rank_high); the same on the clean topics (`clean_` before each); and the
    rank change from all to clean."""
    pairs: pd.DataFrame = field(repr=False)
    """Per place, topic set (`topics`: all or clean, over `n_topics`) and pair: a and b
    (the better-ranked first), a's mean minus b's in the measure's better direction, the
    HSD test's p, and whether they differ at α."""
    tau: pd.DataFrame = field(repr=False)
    """Per place, Kendall's tau between the ranking on all topics and on the clean ones."""
    keys: tuple[str, ...]
    """The columns that place a leaderboard: collection, and the design's other factors."""
    measure: Measure
    statistics: Statistics
    resamples: int = MANY_SYSTEMS.resamples
    """Permutations of the HSD test."""
    caption: str = ""
    leaked: Mapping[str, str] = field(default_factory=dict)
    """Per collection, how many topics are leaked and by which rule (`Study.leaked_rule`)."""
    warnings: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    scoring_warnings: tuple[str, ...] = ()
    conventions_notes: tuple[str, ...] = ()
    """As `Audit.conventions_notes`: in the caption, and atop the CSV."""

    @property
    def systems(self) -> pd.DataFrame:
        """The long form: per place, topic set (all, clean) and system, best first: n_topics,
        system, mean, its interval, group, rank_low, rank_high."""
        if self.table.empty:
            return pd.DataFrame()
        parts = []
        for topics, prefix in (("all", ""), ("clean", "clean_")):
            count = "topics" if topics == "all" else "clean_topics"
            part = self.table[[*self.keys, "system", count]].rename(columns={count: "n_topics"})
            for figure in SYSTEM_FIGURES:
                part[figure] = self.table[f"{prefix}{figure}"]
            parts.append(part[part.group.notna()].assign(topics=topics))
        long = pd.concat(parts, ignore_index=True)
        order = long.groupby([*self.keys, "topics"], sort=False).ngroup()
        long = long.assign(_order=order).sort_values(["_order", "rank", "system"], kind="stable")
        first = [*self.keys, "topics", "n_topics", "system"]
        columns = [*first, *(c for c in long.columns if c not in first and c != "_order")]
        return long[columns].reset_index(drop=True)

    @property
    def changes(self) -> pd.DataFrame:
        """Per place and pair (a ahead of b on all topics): whether they differ on all and
        on clean topics, both differences in the better direction, both p, and the change
        when the leaked topics are left out (`analysis.tukey.CHANGES`): "different → tied",
        "tied → different", "reversed" (different on both, the other way round), "order
        reversed (tied on both)", or "unchanged"; `reversed` says whether the order of the
        two means flips at all."""
        from leakeval_core.analysis.tukey import changes

        if self.pairs.empty:
            return pd.DataFrame()
        out = []
        for where, part in _places(self.pairs, self.keys):
            both = changes(part[part.topics == "all"], part[part.topics == "clean"])
            out.append(both.assign(**where))
        return _placed(pd.concat(out, ignore_index=True), self.keys)

    def summary(self) -> pd.DataFrame:
        keep = [
            *self.keys,
            "system",
            "mean",
            "group",
            "rank_low",
            "rank_high",
            "clean_mean",
            "clean_group",
            "clean_rank_low",
            "clean_rank_high",
        ]
        return self.table[[c for c in keep if c in self.table]]

    def places(self) -> dict[str, dict[str, object]]:
        """Each leaderboard's levels, by a label naming those that vary here
        ("train_size=2000"; the collection's name where only it varies), in sorted order:
        a page shows one, chosen with `at`."""
        if self.table.empty:
            return {}
        placed = self.table[list(self.keys)].drop_duplicates()
        named = [c for c in placed.columns if placed[c].nunique() > 1]
        return {
            (", ".join(f"{c}={row[c]}" for c in named) or "all"): row
            for row in placed.to_dict("records")
        }

    def at(self, levels: Mapping[str, object]) -> Leaderboard:
        return replace(
            self,
            table=rows_at(self.table, levels),
            pairs=rows_at(self.pairs, levels),
            tau=rows_at(self.tau, levels),
        )

    def as_dict(self) -> dict:
        """Every figure, for `leakeval leaderboard --json`: per collection (and place), each
        topic set's systems with their groups and rank intervals, and its pairs."""
        systems, changed = self.systems, self.changes
        entries = []
        for where, part in _places(systems, self.keys):
            entry: dict[str, Any] = {"collection": where.get("collection")}
            levels = {k: v for k, v in where.items() if k != "collection"}
            if levels:
                entry["levels"] = levels
            sets = []
            pairs = rows_at(self.pairs, where)
            for topics, rows in part.groupby("topics", sort=False):
                these = pairs[pairs.topics == topics]
                sets.append(
                    {
                        "topics": topics,
                        "n_topics": int(rows.n_topics.iloc[0]),
                        "systems": records(
                            rows[["system", "mean", "group", "rank_low", "rank_high"]]
                        ),
                        "pairs": records(these[["a", "b", "difference", "p", "different"]]),
                    }
                )
            entry["topic_sets"] = sets
            if len(changed):
                entry["changes"] = records(rows_at(changed, where).drop(columns=list(self.keys)))
            entries.append(entry)
        return {
            "measure": self.measure.name,
            "better": self.measure.better,
            "statistics": MANY_SYSTEMS.describe(self.statistics.alpha, self.resamples),
            "caption": self.caption,
            "leaked": dict(self.leaked),
            "warnings": list(self.warnings),
            "incomplete": list(self.incomplete),
            "scoring_warnings": list(self.scoring_warnings),
            "conventions_notes": list(self.conventions_notes),
            "collections": entries,
        }


def leaderboard(
    data: Any,
    runs: Any = None,
    *,
    view: View | None = None,
    leakage: Any = None,
    covers: Any = None,
    columns: Mapping[str, str] | None = None,
    resamples: int | None = None,
    progress: Progress | None = None,
    format: str | Mapping[str, str] | None = None,
    train_qrels: Any = None,
    **settings: Any,
) -> Leaderboard:
    """Every system ranked on all topics and on the clean ones, with the randomised Tukey
    HSD test's groups and rank intervals.

    `data` is an experiment (its folder, or one loaded) whose `[design]` names the system
    factor; or qrels, with `runs` (files, frames or dicts, by name) and `leakage` (pairs,
    or the leaked topic ids). `covers` (topic ids, or a file with a qid column) keeps the
    topics the leakage judgment covers, as `audit` does: a topic nobody judged is not
    clean. `resamples`: the test's permutations (default 10,000).

    >>> qrels = {str(q): {"d": 1} for q in range(12)}
    >>> top = {str(q): {"d": 2.0, "x": 1.0} for q in range(12)}  # relevant first
    >>> low = {str(q): {"d": 1.0, "x": 2.0} for q in range(12)}  # relevant second
    >>> board = leaderboard(qrels, {"top": top, "low": low}, leakage=["0", "1"],
    ...                     measure="P_1", resamples=999)
    >>> board.systems.set_index(["topics", "system"]).group.to_dict()
    {('all', 'top'): 'a', ('all', 'low'): 'b', ('clean', 'top'): 'a', ('clean', 'low'): 'b'}
    >>> board.systems.n_topics.tolist()  # the topics every system scored; without the leaked
    [12, 12, 10, 10]
    """
    view = view_of(view, settings)
    source = source_of(
        data,
        runs,
        columns,
        leakage,
        format=format,
        collection=view.collection,
        train_qrels=train_qrels,
    )
    count = MANY_SYSTEMS.resamples if resamples is None else int(resamples)
    if count < 1:
        raise LeakevalError(f"resamples must be 1 or more, got {resamples}")
    if isinstance(source, Study) and covers is None:
        key = ("leaderboard", view, count)
        return source.remember(
            key, lambda report: _leaderboard(source, view, count, None, report), progress
        )
    return _leaderboard(source, view, count, covers, progress)


def _leaderboard(source, view: View, resamples: int, covers, progress) -> Leaderboard:
    per_query = per_query_of(source, view, progress)
    if isinstance(source, RunSet):
        system = source.FACTOR
    else:
        source.design.require("The leaderboard", "system")
        system = source.design.system
    places = [f for f in per_query.factors if f != system]
    leaked = source.leaked(view, "The leaderboard")
    covered = covered_of(source, covers)
    board = standings_of(source, per_query, view, system, places, {}, leaked, covered, resamples)
    if board.table.empty:
        raise LeakevalError(
            f"a leaderboard needs two or more {system} levels scored on the same topics"
        )
    return board


def standings_of(
    source,
    per_query,
    view: View,
    system: str,
    places: Sequence[str],
    fixed: Mapping[str, object],
    leaked: pd.DataFrame | None,
    covered: pd.DataFrame | None,
    resamples: int = MANY_SYSTEMS.resamples,
) -> Leaderboard:
    """The leaderboard of the `system` factor's levels at each combination of `places`
    (the rows at `fixed` levels only), on the topics every system scored, restricted to
    those `covered` where given; clean: those not `leaked`. The audit calls this for its
    own leaderboard."""
    from leakeval_core.analysis import audit as analysis
    from leakeval_core.analysis.folds import select
    from leakeval_core.present.story import leaked_sentence

    measure, statistics = view.parsed_measure, view.statistics
    boards, pairs, taus = [], [], []
    table = select(per_query.table, fixed)
    for where, part in _places(table, places):
        scores = {str(s): rows.set_index("qid").value for s, rows in part.groupby(system)}
        if len(scores) < 2:
            continue
        collection = where.get("collection")
        clean = pd.Index(
            sorted(
                set(part.qid)
                - (set() if leaked is None else set(leaked.qid[leaked.collection == collection]))
            )
        )
        if covered is not None:
            mine = set(covered.qid[covered.collection == collection])
            scores = {s: v[v.index.isin(mine)] for s, v in scores.items()}
            clean = clean[clean.isin(mine)]
        board, tau, tested = analysis.leaderboard(
            scores,
            clean,
            measure.direction,
            seed=statistics.seed,
            alpha=statistics.alpha,
            permutations=resamples,
        )
        boards.append(board.assign(**where))
        pairs.append(tested.assign(**where))
        taus.append(pd.DataFrame([{**where, **tau, "systems": len(scores)}]))
    rules = source.leaked_rule(view) if leaked is not None else {}
    return Leaderboard(
        table=_placed(stacked_parts(boards), places),
        pairs=_placed(stacked_parts(pairs), places),
        tau=stacked_parts(taus),
        keys=tuple(places),
        measure=measure,
        statistics=statistics,
        resamples=resamples,
        caption=" ".join(
            [
                _caption(
                    measure,
                    statistics,
                    resamples,
                    leaked_sentence(rules, source.pairs(view).source) if rules else "",
                    view.split == "answer",
                ),
                *per_query.caption_notes(),
            ]
        ),
        leaked=rules,
        warnings=tuple(source.leakage_warnings(view)) if leaked is not None else (),
        incomplete=per_query.incomplete,
        scoring_warnings=per_query.scoring_warnings,
        conventions_notes=per_query.conventions_notes,
    )


def _caption(measure, statistics, resamples: int, leaked: str, by_answers: bool) -> str:
    split = (
        " (the clean topics of the split by answers too: neither answer- nor query-leaked)"
        if by_answers
        else ""
    )
    return (
        f"Mean {measure.label} on the topics every system scored and on those of them "
        f"without a near-duplicate{split}. {leaked} Systems that share a letter are not "
        f"significantly different ({MANY_SYSTEMS.describe(statistics.alpha, resamples)}); "
        "a rank interval runs from 1 + the systems significantly better to the number of "
        f"systems − those significantly worse. Rank 1 is the best ({measure.direction.words})."
    ).replace("  ", " ")


def _places(table: pd.DataFrame, places: Sequence[str]):
    """(levels, rows) for each combination of `places` in `table`, in sorted order."""
    if not places:
        yield {}, table
        return
    for combo, part in table.groupby(list(places), sort=True):
        combo = combo if isinstance(combo, tuple) else (combo,)
        yield dict(zip(places, combo, strict=True)), part


def _placed(table: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    keys = [k for k in keys if k in table]
    return table[[*keys, *(c for c in table.columns if c not in keys)]] if len(table) else table


def stacked_parts(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The non-empty parts one below the other; an empty table where none has a row."""
    parts = [p for p in parts if not p.empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
