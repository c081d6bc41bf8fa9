"""The meeting: `story`, the leakage effect in one screen, and `report`, the HTML file.

Both compute through the other verbs (`inflation`, `compare`, the condition means), so the
Story's numbers are the Inflation tab's and the report's, and the report is the app's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from leakeval_core.api.common import view_of
from leakeval_core.api.study import Study
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError

if TYPE_CHECKING:
    from leakeval_core.present.story import Story

__all__ = ["report", "story", "story_factors", "story_pair"]


def story_factors(data: Any) -> list[str]:
    """The factors that fix a story's pair of conditions: all but the leakage factor."""
    study = Study.open(data)
    return [f for f in study.experiment.condition_factors if f != study.design.leakage]


def story_pair(data: Any, view: View | None = None, **settings: Any) -> dict:
    """The pair a story opens on: where leaked topics gain most over the others, by the
    measure's own direction, within the view's collection when it names one."""
    from leakeval_core.present.story import default_pair

    view = view_of(view, settings)
    study = Study.open(data)
    from leakeval_core.api.leakage import inflation

    result = inflation(study, view=view)
    if view.collection is not None and "collection" in result.table:
        within = result.at({"collection": view.collection})
        result = within if len(within.table) else result
    return default_pair(result.table, story_factors(study), view.parsed_measure.better)


def story(
    data: Any, *, view: View | None = None, pair: Mapping[str, object] | None = None, **settings
) -> Story:
    """The story of one pair of conditions (default: `story_pair`): the headline with its
    numbers, the test of the difference, the gain along the size factor, the top topics.

    >>> told = story(demo_path, measure="ndcg_cut_10")
    >>> told.headline.startswith("Leaked training")
    True
    """
    from leakeval_core.api.leakage import inflation
    from leakeval_core.present.story import tell

    view = view_of(view, settings)
    study = Study.open(data)
    design = study.design
    why = design.why_not("The story", "leakage")
    if why:
        raise LeakevalError(why)
    result = inflation(study, view=view)
    pair = dict(pair) if pair is not None else story_pair(study, view)
    return tell(
        result,
        pair,
        design,
        view.parsed_measure,
        view.statistics,
        study.pairs(view).table,
        study.titles(),
    )


def report(
    data: Any,
    *,
    view: View | None = None,
    factor: str | None = None,
    leaked: object = None,
    clean: object = None,
    top: int = 10,
    **settings: Any,
) -> str:
    """One self-contained HTML report for a meeting: the Story, the condition means, the
    significance table with its paired differences, inflation, and the system ranking
    change. A section that needs a role or pairs the experiment lacks says why.

    >>> html = report(demo_path, measure="ndcg_cut_10")
    >>> html.startswith("<!DOCTYPE html>") and "Inflation" in html
    True
    """
    from leakeval_core.api.comparison import compare, condition_means, ranking_change
    from leakeval_core.api.leakage import inflation
    from leakeval_core.present.meeting import ReportParts, render_report

    view = view_of(view, settings)
    study = Study.open(data)
    design = study.design_with(factor, leaked, clean)
    per_query = study.per_query(view.measure, view.conventions)
    factors = [f for f in per_query.factors if f != "collection"]
    parts = ReportParts(
        experiment=study.experiment,
        design=design,
        measure=view.parsed_measure,
        statistics=view.statistics,
        conventions=view.conventions,
        fold_rule=per_query.fold_rule,
        factors=factors,
    )
    roles = parts.roles
    try:
        parts.story = story(study, view=view)
    except LeakevalError as exc:
        parts.story = f"Not applicable: {exc}"
    for collection in study.levels("collection"):
        by = [f for f in roles if f]
        parts.means[collection] = condition_means(study, view, by, {"collection": collection})
    vary, baseline = (design.leakage, design.clean) if design.leakage else (design.system, None)
    if vary is None:
        parts.significance = design.why_not("Not applicable: this section", "leakage")
    else:
        try:
            parts.significance = compare(study, view=view, vary=vary, baseline=baseline)
        except LeakevalError as exc:
            parts.significance = f"Not applicable: {exc}"
    if not design.has("leakage"):
        parts.inflation = design.why_not("Not applicable: this section", "leakage")
    else:
        try:
            parts.inflation = inflation(
                study,
                view=view,
                factor=design.leakage,
                leaked=design.leaked,
                clean=design.clean,
                top=top,
            )
        except LeakevalError as exc:
            parts.inflation = f"Not applicable: {exc}"
    if design.has("system", "leakage"):
        within = [f for f in ("collection", roles[0]) if f not in (design.system, design.leakage)]
        parts.ranking = ranking_change(study, view, list(dict.fromkeys(within)), design)
    else:
        parts.ranking = design.why_not("Not applicable: the ranking change", "system", "leakage")
    return render_report(parts, top)
