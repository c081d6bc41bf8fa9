"""`audit`: does a model do suspiciously better on the topics that leaked into its training?

For a model without a clean-trained twin: its per-topic gain over a baseline that never saw
the training queries (BM25, or the first stage it re-ranks), split by leaked and other topics
(and by any topic groups given). For an experiment with twins the same view takes the leaked
condition's gain over its clean twin. Every figure the app's Audit page, the Story, the
report and `leakeval audit --json` show comes from the one `Audit` this returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from leakeval_core.api.arguments import (
    baseline_names,
    covered_of,
    per_query_of,
    source_of,
    view_of,
)
from leakeval_core.api.leaderboards import Leaderboard, standings_of
from leakeval_core.api.leaderboards import stacked_parts as _frame
from leakeval_core.api.results import Result
from leakeval_core.api.study import RunSet, Study
from leakeval_core.api.terms import TESTS
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.scores import Progress
from leakeval_core.leakage.rule import ANSWER_COMPARISONS, ANSWER_SPLITS, CLEAN

if TYPE_CHECKING:
    from leakeval_core.analysis.statistics_options import Statistics
    from leakeval_core.evaluation.measures import Measure

__all__ = [
    "AUDIT_CAVEAT",
    "AUDIT_NOTE",
    "Audit",
    "CloserLook",
    "audit",
    "audit_family",
    "why_not_audit",
]

AUDIT_CAVEAT = (
    "Observational: the baseline adjusts only for the topic difficulty it measures, and "
    "topics with a near-duplicate in the training queries may differ from the others in "
    "other ways (their subject, how specific they are). A difference that its test and "
    "interval support is a reason to look closer, not proof of memorisation."
)
AUDIT_NOTE = "Observational: the baseline adjusts only for the topic difficulty it measures."
"""The caveat in a line, where a slide has room for no more."""
SENSITIVITY_STEPS = tuple(round(t, 2) for t in np.arange(0.05, 1.0, 0.05))
"""Detection thresholds the sensitivity view recomputes the estimate at."""


@dataclass(frozen=True, eq=False)
class CloserLook:
    """One audited model's gain over the baseline and its topics' nearest training queries.
    Its views cost a permutation test each (hundreds for the sensitivity), and a page shows
    one model's, so each is computed when first asked for and kept."""

    placed: Mapping[str, object]
    """The model's levels: collection, the design's other factors, the audited system, and
    the `baseline` it is audited against."""
    gain: pd.Series
    """Per topic audited (by qid), the model's gain over the baseline in the measure's
    better direction: what its table rows were tested on."""
    model: pd.Series
    baseline: pd.Series
    """The model's and the baseline's values as scored, on `gain`'s topics."""
    leaked: pd.Series | None
    """Whether each of `gain`'s topics is leaked (the `leaked` split's flags); None when
    the audit splits by topic groups only."""
    nearest: pd.DataFrame
    """similarity and category of each topic's nearest training query, by qid."""
    threshold: float
    statistics: Statistics
    level: float
    """The level its table row is tested at: the sensitivity curve is drawn at it too."""

    def is_at(self, levels: Mapping[str, object]) -> bool:
        """As `rows_at` selects rows: levels of factors it is not placed by are ignored."""
        return all(self.placed.get(factor, level) == level for factor, level in levels.items())

    @cached_property
    def response(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The gain by similarity bin and by category, each row placed."""
        from leakeval_core.analysis.audit import dose_response

        bins, kinds = dose_response(self.gain, self.nearest, self.threshold)
        placed = dict(self.placed)
        return bins.assign(**placed), kinds.assign(**placed)

    @cached_property
    def trend(self) -> pd.DataFrame:
        """Spearman's rho between similarity and gain with its permutation p, placed."""
        from leakeval_core.analysis.audit import similarity_trend

        slope = similarity_trend(self.gain, self.nearest, seed=self.statistics.seed)
        return pd.DataFrame([{**dict(self.placed), **slope}])

    @cached_property
    def sensitivity(self) -> pd.DataFrame:
        """The difference and its interval at every detection threshold, with the row's
        test at the row's level."""
        from leakeval_core.analysis.audit import sensitivity

        steps = sorted({*SENSITIVITY_STEPS, round(self.threshold, 3)})
        similarity = self.nearest.similarity.reindex(self.gain.index).fillna(0.0)
        table = sensitivity(self.gain, similarity, steps, self.statistics, self.level)
        return table.assign(**self.placed)


@dataclass(frozen=True)
class Audit(Result):
    """A leakage audit: one row per model, baseline and split of the topics."""

    table: pd.DataFrame = field(repr=False)
    """Per collection (and other factors), model, baseline and split: topics on each side,
    the mean gain over the row's `baseline` on each, their difference, its interval, the p
    and its adjustment over the collection's rows of that split (every model against every
    baseline: one family)."""
    closer: tuple[CloserLook, ...] = field(repr=False)
    """Per audited model, what its closer look (`dose`, `categories`, `trend`,
    `sensitivity`) is computed from when first asked for."""
    standings: Callable[[], Leaderboard | None] = field(repr=False, compare=False)
    """How `board` is drawn when first asked for."""
    baselines: tuple[str, ...]
    """What the models are audited against: the baseline systems (for twins, the clean
    level), each a row's `baseline`; a baseline is never audited itself."""
    threshold: float
    source: str
    measure: Measure
    statistics: Statistics
    keys: tuple[str, ...]
    """The columns that place a row: collection, and the design's other factors."""
    factor: str
    """The column naming the audited system: the system factor, `run`, or for twins the
    leakage factor (its leaked level)."""
    caption: str = ""
    caveat: str = AUDIT_CAVEAT
    leaked: Mapping[str, str] = field(default_factory=dict)
    """Per collection, how many topics are leaked and by which rule (`Study.leaked_rule`)."""
    warnings: tuple[str, ...] = ()
    """What every reader of these figures must be told (`Study.leakage_warnings`)."""
    incomplete: tuple[str, ...] = ()
    """As `Comparison.incomplete`."""
    scoring_warnings: tuple[str, ...] = ()
    """As `Comparison.scoring_warnings`."""
    conventions_notes: tuple[str, ...] = ()
    """The collections scored at a relevance level other than 1 or under conventions of
    their own (`PerQuery.conventions_notes`): in the caption, and atop the CSV."""

    @cached_property
    def board(self) -> Leaderboard | None:
        """The systems ranked on all topics and on those without a near-duplicate, with their
        HSD groups (`leaderboard`, for the systems audited); None without a system factor.
        Its permutation tests cost seconds per audit, and most readers of an audit (the
        Story, a card, the per-model table) never look at its leaderboard, so it is drawn
        once, when first asked for."""
        return self.standings()

    @property
    def leaderboard(self) -> pd.DataFrame:
        """Each system's mean, rank, group and rank interval on all topics and on the topics
        without a near-duplicate (`Leaderboard.table`)."""
        return pd.DataFrame() if self.board is None else self.board.table

    @property
    def tau(self) -> pd.DataFrame:
        """Kendall's tau between the ranking on all topics and on clean topics."""
        return pd.DataFrame() if self.board is None else self.board.tau

    @property
    def baseline(self) -> str:
        """The baseline in words, as a figure's axis names it: "bm25", or "bm25 or rm3"
        where rows are against several (each row's `baseline` says which)."""
        return " or ".join(self.baselines)

    def summary(self) -> pd.DataFrame:
        """The rows as a slide shows them: what places each, its answer, the size of the
        family it was corrected in and the topics each δ would need, as the comparison's
        and the inflation's summaries show them; the test's own p and statistic stay in
        `table`."""
        keep = [
            *self.keys,
            self.factor,
            *(["baseline"] if len(self.baselines) > 1 else []),
            "split",
            "leaked_topics",
            "other_topics",
            "gain_leaked",
            "gain_other",
            "difference",
            "ci_low",
            "ci_high",
            "p_adjusted",
            "family_size",
            "mde",
            "topics_needed",
            "verdict",
        ]
        return self.table[[c for c in keep if c in self.table]]

    @property
    def dose(self) -> pd.DataFrame:
        """The gain by the nearest training query's similarity (equal-count bins)."""
        return _frame([look.response[0] for look in self.closer])

    @property
    def categories(self) -> pd.DataFrame:
        """The gain by the nearest training query's category."""
        return _frame([look.response[1] for look in self.closer])

    @property
    def trend(self) -> pd.DataFrame:
        """Spearman's rho between nearest similarity and gain, with its permutation p."""
        return _frame([look.trend for look in self.closer])

    @property
    def sensitivity(self) -> pd.DataFrame:
        """The difference and its interval at each detection threshold."""
        return _frame([look.sensitivity for look in self.closer])

    def looks(self, split: str = "leaked") -> dict[str, dict[str, object]]:
        """Each audited model's levels, by a label that names them (leaving out any factor
        at one level here, such as the collection of `at(collection=…)`), the largest
        difference on `split` first: the closer look a reader most wants comes first. Choose
        one with `at`."""
        rows = self.table[self.table.split == split].sort_values(
            "difference", ascending=False, kind="stable"
        )
        placed = rows[[*self.keys, self.factor, "baseline"]]
        named = [c for c in placed.columns if placed[c].nunique() > 1]
        named = named or [self.factor]
        return {
            ", ".join(f"{c}={row[c]}" for c in named): {c: row[c] for c in placed.columns}
            for row in placed.to_dict("records")
        }

    def at(self, levels: Mapping[str, object]) -> Audit:
        """Also the closer looks of the models at these levels only: a page that shows one
        model's pays for its permutation tests, not for every model's."""
        from dataclasses import replace

        from leakeval_core.api.results import rows_at

        return replace(
            self,
            table=rows_at(self.table, levels),
            standings=partial(_board_at, self, levels),
            closer=tuple(look for look in self.closer if look.is_at(levels)),
            baselines=tuple(b for b in self.baselines if levels.get("baseline", b) == b),
        )

    def as_dict(self) -> dict:
        """Every figure, for `leakeval audit --json`: the app shows these and nothing else."""

        from leakeval_core.api.results import records

        return {
            "measure": self.measure.name,
            "better": self.measure.better,
            **({"baseline": self.baselines[0]} if len(self.baselines) == 1 else {}),
            "baselines": list(self.baselines),
            "threshold": self.threshold,
            "leakage": self.source,
            "statistics": self.statistics.describe("split"),
            "caption": self.caption,
            "caveat": self.caveat,
            "leaked": dict(self.leaked),
            "warnings": list(self.warnings),
            "incomplete": list(self.incomplete),
            "scoring_warnings": list(self.scoring_warnings),
            "conventions_notes": list(self.conventions_notes),
            "audit": records(self.table),
            "dose_response": records(self.dose),
            "categories": records(self.categories),
            "trend": records(self.trend),
            "sensitivity": records(self.sensitivity),
            "leaderboard": records(self.leaderboard),
            "leaderboard_pairs": records(self.board.pairs) if self.board else [],
            "ranking": records(self.tau),
        }


def audit(
    data: Any,
    runs: Any = None,
    *,
    baseline: object | None = None,
    view: View | None = None,
    leakage: Any = None,
    groups: Any = None,
    covers: Any = None,
    strata: int = 1,
    columns: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    format: str | Mapping[str, str] | None = None,
    train_qrels: Any = None,
    **settings: Any,
) -> Audit:
    """Each model's gain over a baseline on leaked topics, minus its gain on the others.

    `data` is an experiment (its folder, or one loaded) whose `[design]` names a baseline
    system (or several), or has leaked and clean twins; or qrels, with `runs` naming the
    model runs and the baseline runs (`baseline=`, a name or a list of names) as files,
    frames or dicts, and `leakage` the
    pairs (a frame or CSV with test_qid and similarity, optionally category) or the leaked
    topic ids. `groups` (qid,group) adds a split per group; `covers` (topic ids) restricts
    the audit to the topics the leakage judgment covers. With several baselines every model
    is audited against each (never a baseline against another), and the correction runs over
    all those rows of a collection at once. `train_qrels` (the training queries' positive
    documents; an experiment's `[training_queries] qrels` by default) make each pair say which
    answers leaked with it, and `split="answer"` then compares answer-leaked, query-leaked
    and clean topics: three rows in one family. `strata` > 1 permutes the leaked
    flags within that many quantile groups of the baseline's score. Files may be in any format
    `score` reads; `format` names the runs' where their content cannot tell.

    >>> qrels = {str(q): {"d": 1} for q in range(12)}
    >>> bm25 = {str(q): {"d": 1.0, "x": 2.0} for q in range(12)}  # relevant second
    >>> mine = {str(q): {"d": 2.0 if q < 6 else 1.0, "x": 1.5} for q in range(12)}
    >>> result = audit(qrels, {"bm25": bm25, "mine": mine}, baseline="bm25",
    ...                leakage=[str(q) for q in range(6)], measure="P_1")
    >>> result.table[["system", "gain_leaked", "gain_other", "verdict"]].to_dict("records")
    [{'system': 'mine', 'gain_leaked': 1.0, 'gain_other': 0.0, 'verdict': 'inflated'}]
    >>> result.leaked
    {'collection': '6 leaked of 12 judged topics: human-judged pairs'}
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
    if isinstance(source, Study) and groups is None and covers is None:
        # the Story, the Audit page and the report share one audit of the study
        key = ("audit", view, baseline_names(baseline), strata)
        return source.remember(
            key,
            lambda report: _audit(source, view, baseline, strata, None, None, report),
            progress,
        )
    return _audit(source, view, baseline, strata, groups, covers, progress)


def _audit(source, view: View, baseline, strata: int, groups, covers, progress) -> Audit:
    """`groups` and `covers` given in the call take the place of the experiment's own."""
    from leakeval_core.analysis import audit as analysis
    from leakeval_core.analysis.split import Split, leaked_vs_other
    from leakeval_core.api.inputs import as_topic_groups
    from leakeval_core.api.study import with_collection
    from leakeval_core.present.story import leaked_sentence

    measure, statistics = view.parsed_measure, view.statistics
    per_query = per_query_of(source, view, progress)
    contrasts, factor, keys, baselines = _contrasts(source, per_query, baseline_names(baseline))
    threshold = source.threshold(view)
    groups_table = (
        source.groups() if groups is None else with_collection(as_topic_groups(groups), source)
    )
    # without groups to split by, the audit needs the pairs: the error says why there are none
    leaked = source.leaked(view, "The audit" if groups_table is None else None)
    leaks = source.pairs(view).leaks(view.threshold) if view.split == "answer" else None
    covered = covered_of(source, covers)
    nearest = source.nearest(view)

    if strata > 1 and not statistics.procedure.two_sample.strata:
        able = [t for t in TESTS.values() if t.two_sample.strata]
        raise LeakevalError(
            "strata keep each topic's leaked flag within its group of the baseline's score, "
            f"which {statistics.split_test} cannot do: add "
            + " or ".join(
                f"--test {t.key} (or test={t.key}: the {t.two_sample.name})" for t in able
            )
        )
    rows, splits, closer, copies = [], [], [], []
    for where, model, base, model_levels, base_levels in contrasts:
        model_scores = _scores(per_query.table, model_levels)
        base_scores = _scores(per_query.table, base_levels)
        gain = analysis.gains(model_scores, base_scores, measure.direction)
        collection = where["collection"]
        if covered is not None:
            gain = gain[gain.index.isin(covered.qid[covered.collection == collection])]
        if gain.empty:
            continue
        if not gain.to_numpy().any():
            # the baseline itself, given again (an upload of its run): in the family it would
            # only widen every other model's interval
            copies.append(
                f"{model} ({collection})"
                if len(baselines) == 1
                else f"{model} ({base}, {collection})"
            )
            continue
        layers = analysis.strata_of(base_scores.reindex(gain.index), strata) if strata > 1 else None
        flagged = (
            None
            if leaked is None
            else pd.Series(
                gain.index.isin(set(leaked.qid[leaked.collection == collection])), index=gain.index
            )
        )
        for split, family, flags, kept in topic_splits(
            gain.index, collection, leaked, groups_table, leaks
        ):
            rows.append(
                {**where, factor: model, "baseline": base, "split": split, "family": family}
            )
            kept = kept.to_numpy()
            splits.append(
                Split(
                    gain.to_numpy()[kept],
                    flags.to_numpy()[kept],
                    None if layers is None else layers.to_numpy()[kept],
                )
            )
        near = nearest[nearest.collection == collection].set_index("qid")[
            ["similarity", "category"]
        ]
        sides = (model_scores.reindex(gain.index), base_scores.reindex(gain.index), flagged)
        closer.append(({**where, factor: model, "baseline": base}, gain, sides, near))
    same = (
        f"{', '.join(copies)} scores as the baseline on every topic: left out of the audit"
        if copies
        else None
    )
    if not rows:
        nothing = (
            f"{same}; nothing is left to audit."
            if same
            else "no topic is scored by both a model and the baseline."
        )
        raise LeakevalError(" ".join((nothing, *per_query.incomplete)))
    # one family: one collection's models (and conditions), against every baseline, on one
    # split of the topics (the three comparisons of answer-leaked, query-leaked and clean
    # topics are one split)
    table = leaked_vs_other(rows, splits, statistics, ("collection", "family"))
    table = table.drop(columns="family")
    placing = [*keys, factor, "baseline"]
    first = table.drop_duplicates(placing).set_index(placing).confidence
    closer = [
        CloserLook(
            placed,
            gain,
            *sides,
            near,
            threshold,
            statistics,
            1 - first.get(tuple(placed[k] for k in placing), 1 - statistics.alpha),
        )
        for placed, gain, sides, near in closer
    ]
    standings = partial(_leaderboard, source, per_query, view, factor, keys, leaked, covered)
    where_from = source.pairs(view).source
    rules = source.leaked_rule(view)
    return Audit(
        table=_ordered(table, placing),
        closer=tuple(closer),
        standings=standings,
        baselines=baselines,
        threshold=threshold,
        source=where_from,
        measure=measure,
        statistics=statistics,
        keys=tuple(keys),
        factor=factor,
        caption=" ".join(
            [
                _caption(
                    measure,
                    statistics,
                    table,
                    (factor, keys, baselines),
                    leaked_sentence(rules, where_from),
                    strata,
                ),
                *per_query.caption_notes(),
            ]
        ),
        leaked=rules,
        warnings=(*([same] if same else []), *source.leakage_warnings(view)),
        incomplete=per_query.incomplete,
        scoring_warnings=per_query.scoring_warnings,
        conventions_notes=per_query.conventions_notes,
    )


def why_not_audit(design) -> str | None:
    """Why an experiment cannot be audited (it has no baseline and no twins), or None."""
    if design.baseline is not None or design.leakage is not None:
        return None
    return (
        "The audit needs a baseline system (one that never saw the training queries, such "
        "as BM25: set `[design] baseline = …` to a level of the system factor) or twins "
        "trained with and without the leaked queries (`[design] leakage = …`)."
    )


def _scores(table: pd.DataFrame, levels: Mapping[str, object]) -> pd.Series:
    from leakeval_core.analysis.folds import select

    rows = select(table, levels)
    return rows.set_index("qid").value


def _contrasts(source, per_query, baselines: tuple | None):
    """(where, model name, baseline name, the model's levels, the baseline's levels) for
    each model to audit against each baseline, baseline by baseline; the factor the models
    differ in; the key columns; the baselines' names. A baseline is never audited: against
    itself its gain is 0, and against another baseline it answers no question about
    leakage (neither saw the training queries)."""
    factors = list(per_query.factors)
    design = source.design
    if isinstance(source, RunSet):
        names = source.levels(source.FACTOR)
        if baselines is None:
            raise LeakevalError(f"name the baseline run (baseline=…); runs: {', '.join(names)}")
        factor = source.FACTOR
        bases = [source.level(factor, b) for b in baselines]
        model_levels = [n for n in names if n not in bases]
    elif baselines is not None or design.baselines:
        design.require("The audit", "system")
        factor = design.system
        bases = [source.level(factor, b) for b in baselines or design.baselines]
        model_levels = [v for v in source.levels(factor) if v not in bases]
    elif design.leakage is not None:
        factor, model_levels, bases = design.leakage, [design.leaked], [design.clean]
    else:
        raise LeakevalError(why_not_audit(design))
    if not model_levels:
        against = " and ".join(map(str, bases))
        raise LeakevalError(f"nothing to audit against {against}: no other {factor} level")
    keys = [f for f in factors if f != factor]
    combos = per_query.table[keys].drop_duplicates().sort_values(keys)
    contrasts = []
    for combo in combos.itertuples(index=False, name=None):
        where = dict(zip(keys, combo, strict=True))
        for base in bases:
            for level in model_levels:
                contrasts.append(
                    (
                        where,
                        str(level),
                        str(base),
                        {**where, factor: level},
                        {**where, factor: base},
                    )
                )
    return contrasts, factor, keys, tuple(map(str, bases))


def topic_splits(
    index: pd.Index, collection: str, leaked, groups=None, leaks=None
) -> list[tuple[str, str, pd.Series, pd.Series]]:
    """Each way the topics are split, as (split, family, flags, kept): leaked vs other; with
    `leaks` (`LeakageTable.leaks`) instead, the three comparisons of answer-leaked,
    query-leaked and clean topics (`ANSWER_COMPARISONS`), each on the topics of its two
    sides, in one family; and each group vs the rest. `flags` mark the first side among the
    `kept` topics."""
    everyone = pd.Series(True, index=index)
    out = []
    if leaks is not None:
        mine = leaks[leaks.collection == collection].set_index("qid").leak
        kind = pd.Series(mine.reindex(index).fillna(CLEAN).to_numpy(), index=index)
        for (first, second), name in zip(ANSWER_COMPARISONS, ANSWER_SPLITS, strict=True):
            out.append((name, split_family(name), kind == first, kind.isin([first, second])))
    elif leaked is not None:
        flagged = set(leaked.qid[leaked.collection == collection])
        out.append(("leaked", "leaked", pd.Series(index.isin(flagged), index=index), everyone))
    if groups is not None:
        mine = groups[groups.collection == collection]
        for group in sorted(mine.group.unique()):
            members = set(mine.qid[mine.group == group])
            flags = pd.Series(index.isin(members), index=index)
            out.append((f"group {group}", f"group {group}", flags, everyone))
    if not out:
        raise LeakevalError(
            "The audit needs the leaked topics: leakage pairs, or topic groups to split by"
        )
    return out


def _leaderboard(source, per_query, view: View, factor, keys, leaked, covered):
    """Systems ranked on all topics and on the clean ones, per collection (and other
    factors): the models and the baseline; for twins, the systems at the leaked level."""
    design = source.design
    system = factor if isinstance(source, RunSet) or factor == design.system else design.system
    if system is None:
        return None
    fixed = {design.leakage: design.leaked} if factor == design.leakage else {}
    places = [k for k in keys if k != system]
    return standings_of(source, per_query, view, system, places, fixed, leaked, covered)


def _board_at(audit: Audit, levels: Mapping[str, object]) -> Leaderboard | None:
    """`audit`'s leaderboard at these levels (`Audit.at`), drawn from the whole one."""
    return None if audit.board is None else audit.board.at(levels)


def _ordered(table: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    first = [*keys, "split"]
    return table[[*first, *(c for c in table.columns if c not in first)]]


def audit_family(
    rows: pd.DataFrame, factor: str, keys: Sequence[str], statistics: Statistics
) -> str:
    """The correction family of audit rows in one sentence (`family_sentence`): "Bonferroni
    over 6 comparisons: 3 models × 2 baselines, within each collection". The caption of
    several baselines and the card (whose table may show one model of the family) say it;
    `rows` must hold every row of the families they show."""
    from leakeval_core.present.report import family_sentence

    parts = [(factor, "models"), ("baseline", "baselines"), ("comparison", "comparisons")]
    parts += [(k, f"{k} levels") for k in keys if k != "collection"]
    rows = rows.assign(comparison=rows.split, split=rows.split.map(split_family))
    return family_sentence(rows, ("collection", "split"), parts, statistics)


def split_family(split: str) -> str:
    """The family a split's rows are corrected in: its own, or, for the three comparisons
    by answers, theirs together."""
    return "by answers" if split in ANSWER_SPLITS else split


def _caption(measure, statistics, table, placing, leaked: str, strata: int):
    """With several baselines the caption says the family they form: "Bonferroni over 6
    comparisons: 3 models × 2 baselines, within each collection and split"."""
    from leakeval_core.analysis.split import describe

    factor, keys, baselines = placing
    answers = table.split.isin(ANSWER_SPLITS).any()
    sides = (
        "on the first group of each split minus on the second (answer-leaked: a near-duplicate "
        "training query's positive is a relevant document; query-leaked: near-duplicates, "
        "none sharing one; clean: no near-duplicate; leaked_topics and other_topics count "
        "the two groups)"
        if answers
        else "on leaked topics minus on the others"
    )
    over = "each collection's models" + (
        ", the three comparisons of a model one split" if answers else ""
    )
    if len(baselines) == 1:
        return (
            f"{measure.label} gain over {baselines[0]} {sides}. "
            f"{measure.direction.gains}. {leaked} " + describe(statistics, over, strata)
        )
    family = audit_family(table, factor, keys, statistics)
    return (
        f"{measure.label} gain of each model over each baseline ({', '.join(baselines)}; "
        f"never a baseline over another) {sides}. "
        f"{measure.direction.gains}. {leaked} "
        + describe(statistics, over.replace("models", "models against every baseline"), strata)
        + f" {family}"
    )
