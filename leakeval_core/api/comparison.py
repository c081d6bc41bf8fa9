"""Comparing conditions: `compare`, and the views of conditions the pages and report show."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from leakeval_core.analysis.compare import condition_label
from leakeval_core.api.arguments import (
    baseline_names,
    per_query_of,
    refuse_left_out,
    source_of,
    view_of,
)
from leakeval_core.api.results import Comparison
from leakeval_core.api.study import Study
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.scores import Progress

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.analysis.compare import Paired
    from leakeval_core.evaluation.measures import Measure
    from leakeval_core.experiment.design import Design

__all__ = [
    "compare",
    "condition_label",
    "condition_means",
    "incomplete_conditions",
    "pair_answer",
    "paired",
    "paired_measures",
    "ranked_lists",
    "ranking_change",
    "scored_collections",
    "scoring_warnings",
    "versus_run",
]


def compare(
    data: Any,
    runs: Any = None,
    *,
    view: View | None = None,
    vary: str | None = None,
    baseline: object | None = None,
    family: Literal["collection", "all"] = "collection",
    columns: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    format: str | Mapping[str, str] | None = None,
    **settings: Any,
) -> Comparison:
    """Paired tests between the levels of one factor, corrected within each collection.

    `data` is an experiment (its folder, or one loaded), or qrels when `runs` names the
    runs to compare (files in any format, frames or dicts, as `score` takes them, `format`
    as there): then the factor is
    `run`, and `baseline` names the run every other is compared with (default: every pair),
    or a list of runs: each other run against each, never one baseline against another, all
    in one family.
    For an experiment, `vary` defaults to the design's leakage factor, compared against its
    clean level: the table `leakeval compare` prints and the app marks with stars. Settings
    (measure=, statistics=, conventions=) are a `View`'s.

    >>> rows = compare(demo_path, measure="ndcg_cut_10").table
    >>> len(rows), int(rows.family_size.iloc[0]), rows[["a", "b"]].iloc[0].tolist()
    (45, 15, ['leaked', 'none'])

    Without an experiment folder:

    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 1.0, "x": 2.0}, "q2": {"d2": 1.0, "x": 2.0},
    ...                  "q3": {"d3": 2.0}},
    ...         "mine": {"q1": {"d1": 2.0, "x": 1.0}, "q2": {"d2": 2.0, "x": 1.0},
    ...                  "q3": {"d3": 2.0}}}
    >>> row = compare(qrels, runs, measure="P_1", baseline="bm25").table.iloc[0]
    >>> row.a, row.b, round(float(row.delta), 4), int(row.n)
    ('mine', 'bm25', 0.6667, 3)
    """
    from leakeval_core.analysis.compare import compare_levels
    from leakeval_core.analysis.procedures import TOPIC_SET_SIZE
    from leakeval_core.present.report import interval_caption, significance_caption

    view = view_of(view, settings)
    source = source_of(data, runs, columns, format=format)
    design = source.design
    if runs is not None:
        vary = vary or source.FACTOR
    vary = vary or design.leakage
    if vary is None:
        raise LeakevalError(
            "give --vary FACTOR (vary= in Python): " + design.why_not("compare", "leakage")
        )
    bases = baseline_names(baseline)
    if bases is not None:
        bases = tuple(source.level(vary, b) for b in bases)
    elif vary == design.leakage:
        bases = (design.clean,)
    statistics = view.statistics
    scored = per_query_of(source, view, progress)
    families = ("collection",) if family == "collection" else ()
    rows = compare_levels(scored, vary, bases, statistics, families)
    if bases is None:
        what = "every pair of levels"
    elif len(bases) == 1:
        what = f"each level vs {bases[0]}"
    else:
        what = (
            f"each other level vs each of {', '.join(map(str, bases))}, never one against another"
        )
    measure = view.parsed_measure
    caption = (
        f"{measure.label}, as scored ({measure.direction.words}): delta is A − B, so a "
        f"positive delta means A is {measure.direction.raw_reads(1.0)}; "
        + significance_caption(vary, what, rows, statistics, family)
        + " "
        + interval_caption(rows, statistics)
        + " "
        + TOPIC_SET_SIZE.caption(statistics.delta, "paired")
    )
    if bases is not None and len(bases) > 1:
        from leakeval_core.present.report import family_sentence

        audited = "models" if runs is not None or vary == design.system else f"{vary} levels"
        others = [f for f in scored.factors if f not in (vary, "collection")]
        parts = [("a", audited), ("b", "baselines"), *((f, f"{f} levels") for f in others)]
        caption += " " + family_sentence(rows, families, parts, statistics)
    caption = " ".join([caption, *scored.caption_notes()])
    return Comparison(
        rows,
        statistics,
        measure,
        caption,
        scored.incomplete,
        scored.scoring_warnings,
        scored.conventions_notes,
    )


def condition_means(
    data: Study | Any, view: View, by: Sequence[str], fixed: Mapping[str, object] | None = None
) -> pd.DataFrame:
    """Each condition's mean with a 95% t interval over queries (folds combined first)."""
    from leakeval_core.analysis.compare import condition_means as means

    study = Study.open(data)
    per_query = per_query_of(study, view)
    return means(per_query, list(by), fixed, measure=view.measure)


def scored_collections(data: Study | Any, view: View) -> list[str]:
    """The experiment's collections that have a scored query under the view's conventions,
    in its order: what a page offers to choose (the others are in no figure, and the
    scoring warnings say why: `PerQuery.unscored`)."""
    study = Study.open(data)
    unscored = per_query_of(study, view).unscored
    return [name for name in study.experiment.collections if name not in unscored]


def incomplete_conditions(data: Study | Any, view: View) -> tuple[str, ...]:
    """What the view's figures must say about the experiment's incomplete and broken
    conditions (`experiment.completeness`), a sentence each: left out of them, or computed
    with the queries each lacks. An error when no condition is left to compute."""
    return per_query_of(Study.open(data), view).incomplete


def scoring_warnings(data: Study | Any, view: View) -> tuple[str, ...]:
    """What the view's figures must say about the runs they come from
    (`PerQuery.scoring_warnings`): the dashboard shows them above every page."""
    return per_query_of(Study.open(data), view).scoring_warnings


def per_query_table(data: Study | Any, view: View) -> pd.DataFrame:
    """The view's measure, one value per condition and query (folds combined)."""
    return per_query_of(Study.open(data), view).table


def fold_rule(data: Study | Any, view: View) -> str:
    """How the experiment's folds were combined: split (concatenated) or repeated (averaged)."""
    return per_query_of(Study.open(data), view).fold_rule


def paired(data: Study | Any, view: View, a: Mapping, b: Mapping) -> Paired:
    """Conditions A and B joined query by query, each topic flagged leaked or not; an error
    where either is left out as incomplete or broken."""
    from leakeval_core.analysis.compare import paired as join

    study = Study.open(data)
    refuse_left_out(study, view, a, b)
    return join(per_query_of(study, view), a, b, study.leaked(view))


def paired_measures(
    data: Study | Any, view: View, a: Mapping, b: Mapping, measures: Sequence[Measure]
) -> pd.DataFrame:
    """Every measure for A and B side by side, one row per query both scored."""
    from leakeval_core.analysis.compare import paired_wide

    study = Study.open(data)
    return paired_wide(
        {m.label: per_query_of(study, view, measure=m.name) for m in measures},
        a,
        b,
        study.leaked(view),
    )


def by_gain(pairs: Paired, view: View) -> pd.DataFrame:
    """Every paired query with A's gain over B in the measure's better direction (`gain`;
    `delta` stays A − B as scored), the largest gain first: the drill-down's order. A query
    without a value on a side (a first relevant rank beyond depth) has no gain and comes
    last."""
    table = pairs.table.assign(gain=view.parsed_measure.direction.orient(pairs.table.delta))
    return table.sort_values(["gain", "qid"], ascending=[False, True], kind="stable")


def pair_answer(pairs: Paired, view: View) -> dict:
    """Do the leaked topics gain more than the others between these two conditions? One
    leaked-minus-other row (`split.leaked_vs_other`) on the pair alone, so it is uncorrected:
    the drill-down's words about its top leaked topics follow this verdict."""
    from leakeval_core.analysis.split import Split, leaked_vs_other

    table = pairs.table[pairs.table.delta.notna()]
    gain = view.parsed_measure.direction.orient(table.delta).to_numpy(float)
    split = Split(gain, table.leaked.to_numpy(bool))
    (row,) = leaked_vs_other([{}], [split], view.statistics).to_dict("records")
    return row


def top_inflating(pairs: Paired, view: View, n: int = 10) -> pd.DataFrame:
    """Leaked topics where A beats B most, by the measure's own direction."""
    from leakeval_core.analysis.compare import top_inflating as top

    return top(pairs, view.parsed_measure.direction, n)


def query_along(
    data: Study | Any, view: View, a: Mapping, b: Mapping, qid: str, factor: str
) -> pd.DataFrame:
    """One query's A, B and A − B at every level of `factor`."""
    from leakeval_core.analysis.compare import query_along as along

    study = Study.open(data)
    return along(per_query_of(study, view), a, b, qid, factor)


def ranking_change(
    data: Study | Any, view: View, within: Sequence[str], design: Design | None = None
) -> pd.DataFrame:
    """Kendall's tau between the system rankings under two leakage levels, with intervals."""
    from leakeval_core.analysis.rank_agreement import ranking_change as change

    study = Study.open(data)
    design = design or study.design
    design.require("The ranking view", "system", "leakage")
    return change(
        per_query_of(study, view),
        design.system,
        design.leakage,
        list(within),
        view.parsed_measure.direction,
    )


def ranked_lists(
    data: Study | Any, view: View, a: Mapping, b: Mapping, qid: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's ranked lists under A and B, each marking how far a document moved."""
    import pandas as pd

    from leakeval_core.analysis.collection_stats import ranked_list
    from leakeval_core.analysis.compare import rank_changes
    from leakeval_core.analysis.folds import select
    from leakeval_core.evaluation.per_query_files import is_evaluation

    study = Study.open(data)
    qrels = study.collection(a["collection"]).qrels

    def rows(levels: Mapping) -> pd.DataFrame:
        """The query's rows from the first of the condition's runs (folds) that has it; a
        published evaluation holds values, not a ranking, and gives none."""
        for path in select(study.experiment.conditions, levels).path:
            if is_evaluation(path):
                continue
            run = study.run_file(path)
            found = run[run.qid == qid]
            if len(found):
                return found
        text = pd.Series(dtype="str")
        return pd.DataFrame({"qid": text, "docid": text, "score": pd.Series(dtype="float64")})

    lists = [ranked_list(rows(levels), qid, qrels, view.conventions) for levels in (a, b)]
    return rank_changes(*lists)


def versus_run(
    data: Study | Any, view: View, values: pd.Series, levels: Mapping
) -> tuple[pd.DataFrame, int, int]:
    """An outside run's per-query values against one condition, on all, leaked and other
    topics, adjusted over the rows of its table."""
    from leakeval_core.analysis.compare import versus_condition

    study = Study.open(data)
    return versus_condition(
        values,
        per_query_of(study, view),
        levels,
        study.leaked(view),
        view.statistics,
    )


def convention_check(
    data: Study | Any, view: View, conditions: list[Mapping], progress: Progress | None = None
) -> pd.DataFrame:
    """The conditions' means recomputed with one convention changed at a time; an
    incomplete or broken condition among them is an error unless the view allows it."""
    from leakeval_core.analysis import convention_check as check

    study = Study.open(data)
    refuse_left_out(study, view, *conditions)
    return check.convention_check(
        study.experiment, conditions, view.measure, view.conventions, progress=progress
    )
