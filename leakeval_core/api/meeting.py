"""The meeting: `story`, the leakage effect in one screen, and `report`, the HTML file.

Both compute through the other verbs (`inflation`, `compare`, the condition means), so the
Story's numbers are the Inflation tab's and the report's, and the report is the app's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from leakeval_core.api.arguments import per_query_of, refuse_left_out, view_of
from leakeval_core.api.study import Study
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError

if TYPE_CHECKING:
    from leakeval_core.present.story import Story

__all__ = [
    "report",
    "story",
    "story_answers",
    "story_factors",
    "story_kind",
    "story_levels",
    "story_numbers",
    "story_pair",
    "story_record",
    "story_test_line",
]


def story_kind(data: Any) -> str:
    """ "twins" where the experiment has leaked and clean training, else "audit" where it
    names a baseline system; the error says what a story needs otherwise."""
    design = Study.open(data).design
    if design.leakage is not None:
        return "twins"
    if design.baseline is not None:
        return "audit"
    raise LeakevalError(
        "The story needs "
        + design.why_not("x", "leakage").split("needs ", 1)[1]
        + ", or a baseline system to audit against (`[design] baseline = …`)"
    )


def story_record(told: Story) -> dict:
    """The story as `leakeval story --json` writes it: its sentences, the pair, how it was
    picked, and every answer it stands beside (each audited model's, in the design's
    order), with its verdict."""
    from leakeval_core.api.results import records

    keep = [c for c in told.answers.columns if c != "split"]
    return {
        "kind": told.kind,
        "headline": told.headline,
        "answer": told.answer,
        "detail": told.detail,
        "evidence": told.evidence,
        "pair": {f: str(v) for f, v in told.pair.items()},
        "opening": told.opening,
        "verdict": told.facts.verdict,
        "statistics": told.statistics.describe("split"),
        "leaked": told.leaked,
        "warnings": list(told.warnings),
        "notes": list(told.notes),
        "incomplete": list(told.incomplete),
        "scoring_warnings": list(told.scoring_warnings),
        "answers": records(told.answers[keep]),
    }


def story_answers(told: Story, measure) -> list[str]:
    """Each answer beside the story's own, in a line: the audit Story's list of models."""
    from leakeval_core.present.story import answer_line

    system = told.facts.subject_factor
    rows = told.answers.to_dict("records")
    if "baseline" in told.answers and told.answers.baseline.nunique() > 1:
        rows = [{**row, system: f"{row[system]} against {row['baseline']}"} for row in rows]
    return [answer_line(row, measure, system) for row in rows]


def story_test_line(told: Story) -> str:
    """How the story's answers were tested, in a line (a slide's caption)."""
    from leakeval_core.present.story import test_line

    return test_line(told.facts, told.statistics)


def story_numbers(told: Story, measure) -> list[tuple[str, str, str | None, str]]:
    """The story's figures as (label, value, interval, what it is): the app's cards."""
    from leakeval_core.present.story import numbers

    return numbers(told.facts, measure)


def story_factors(data: Any) -> list[str]:
    """The factors that fix a story's pair: all but the leakage factor (twins), or all
    including the system, whose level names the audited model (audit), and `baseline`
    where the design names several to audit against."""
    study = Study.open(data)
    design = study.design
    factors = [f for f in study.experiment.condition_factors if f != design.leakage]
    several = design.leakage is None and len(design.baselines) > 1
    return [*factors, "baseline"] if several else factors


def story_levels(data: Any, factor: str) -> list:
    """The levels a story's `factor` may take: an audit's models are the systems other than
    its baselines, and `baseline` is one of those."""
    study = Study.open(data)
    design = study.design
    if factor == "baseline":
        return list(design.baselines)
    levels = study.levels(factor)
    if design.leakage is None and factor == design.system:
        return [v for v in levels if v not in design.baselines]
    return levels


def story_pair(data: Any, view: View | None = None, **settings: Any) -> dict:
    """The pair a story opens on, within the view's collection when it names one. Twins:
    where leaked topics gain most over the others (the clearest case, labelled as picked
    after looking). Audit: the first model the design gives, picked before looking at any
    result."""
    study = Study.open(data)
    return _opening_pair(study, view_of(view, settings), story_kind(study))


def _opening_pair(study: Study, view: View, kind: str) -> dict:
    from leakeval_core.present.story import default_pair

    table = _rows(study, view, kind)
    if view.collection is not None and "collection" in table:
        within = table[table.collection == view.collection]
        table = within if len(within) else table
    factors = story_factors(study)
    if kind == "audit":
        first = table.iloc[0]
        return {f: first[f].item() if hasattr(first[f], "item") else first[f] for f in factors}
    return default_pair(table, factors)


def _rows(study: Study, view: View, kind: str):
    """The rows a story picks from: inflation per pair (twins), audit per model (audit),
    in the order the design gives."""
    from leakeval_core.api.audits import audit
    from leakeval_core.api.leakage import inflation
    from leakeval_core.leakage.rule import headline_rows

    if kind == "twins":
        return headline_rows(inflation(study, view=view).table)
    result = audit(study, view=view)
    return headline_rows(result.table).reset_index(drop=True)


def story(
    data: Any, *, view: View | None = None, pair: Mapping[str, object] | None = None, **settings
) -> Story:
    """The story of one pair of conditions (default: `story_pair`), or, for an experiment
    with a baseline and no clean twins, of one model audited against the baseline, beside
    every other model's answer: the headline with its numbers, the test of the difference,
    a chart, the top topics. Every number is one the `inflation` or `audit` result holds.

    >>> told = story(demo_path, measure="ndcg_cut_10")
    >>> told.headline.startswith("Leaked training improves nDCG@10 from")
    True
    """
    view = view_of(view, settings)
    study = Study.open(data)
    kind = story_kind(study)
    if pair is not None:
        opening, pair = "chosen", dict(pair)
        if kind == "audit" and set(story_factors(study)) - set(pair):
            # a pair naming only some levels (a baseline among several, say): the opening
            # pair's fill the rest
            pair = {**_opening_pair(study, view, kind), **pair}
    else:
        opening = "clearest" if kind == "twins" else "first"
        pair = _opening_pair(study, view, kind)
    named = [str(b) for b in study.design.baselines]
    if "baseline" in pair and (kind != "audit" or str(pair["baseline"]) not in named):
        raise LeakevalError(
            f"baseline {pair['baseline']!r} is not one the design audits against: "
            + (", ".join(named) if kind == "audit" else "a story of twins has none")
        )
    _refuse_left_out(study, view, pair, kind)
    return (_twins if kind == "twins" else _audited)(study, view, pair, opening)


def _refuse_left_out(study: Study, view: View, pair: dict, kind: str) -> None:
    """A pair with an incomplete or broken side has no story: the error says which side
    and what it lacks, instead of a headline computed without it."""
    design = study.design
    if kind == "twins":
        sides = [{**pair, design.leakage: level} for level in (design.leaked, design.clean)]
    else:
        sides = [pair, {**pair, design.system: pair.get("baseline", design.baseline)}]
    refuse_left_out(study, view, *sides, before="No story for this pair. ")


def _facts(row, statistics, **given):
    """The Facts fields every story takes from its leaked-minus-other row, and the words
    for the interval its statistics drew."""
    from leakeval_core.present.story import Facts

    return Facts(
        leaked_topics=int(row.leaked_topics),
        other_topics=int(row.other_topics),
        gain_leaked=float(row.gain_leaked),
        gain_other=float(row.gain_other),
        difference=float(row.difference),
        ci_low=float(row.ci_low),
        ci_high=float(row.ci_high),
        p=float(row.p),
        p_adjusted=float(row.p_adjusted),
        family_size=int(row.family_size),
        test=str(row.test),
        interval=statistics.interval_name("split"),
        verdict=str(row.verdict),
        mde=float(row.mde),
        confidence=float(row.confidence),
        topics_needed=tuple(row.topics_needed),
        **given,
    )


def _twins(study: Study, view: View, pair: dict, opening: str) -> Story:
    from leakeval_core.analysis.audit import gain_share
    from leakeval_core.api.leakage import inflation
    from leakeval_core.api.results import rows_at
    from leakeval_core.leakage.rule import headline_rows
    from leakeval_core.present.story import tell

    design, measure, statistics = study.design, view.parsed_measure, view.statistics
    result = inflation(study, view=view)
    table = headline_rows(result.table)  # split by answers: answer-leaked vs clean
    rows = rows_at(table, pair)
    row = rows.iloc[0]
    topics = rows_at(result.gains, pair)
    a_levels = {**pair, design.leakage: design.leaked}
    b_levels = {**pair, design.leakage: design.clean}
    share = gain_share(topics.gain.to_numpy(), topics.leaked.to_numpy(), seed=statistics.seed)
    facts = _facts(
        row,
        statistics,
        kind="twins",
        pair=pair,
        a=f"leaked training ({design.leakage} {design.leaked})",
        b=f"clean training ({design.leakage} {design.clean})",
        mean_a=float(topics.a.mean()),
        mean_b=float(topics.b.mean()),
        gain=float(topics.gain.mean()),
        left_out=_left_out(study, view, [a_levels, b_levels], len(topics)),
        family=(
            "comparisons by answers (three each) of the pairs of conditions"
            if view.split == "answer"
            else "pairs of conditions"
        )
        + (f" of {row.collection}" if "collection" in row.index else ""),
        share=share[0],
        share_low=share[1],
        share_high=share[2],
    )
    x = design.size if design.size in pair else next(iter(pair), None)
    trend = rows_at(table, {k: v for k, v in pair.items() if k != x})
    if x is not None:
        trend = trend.sort_values(x)
    top = _with_queries(
        rows_at(result.top, pair).rename(columns={"inflation": "gain"}),
        pair,
        study,
        view,
        {str(design.leaked): "A (leaked)", str(design.clean): "B (clean)"},
    )
    return tell(
        facts,
        measure,
        statistics,
        trend.reset_index(drop=True),
        x,
        top,
        rows,
        opening,
        *_leakage_notes(study, view, pair),
    )


def _audited(study: Study, view: View, pair: dict, opening: str) -> Story:
    import pandas as pd

    from leakeval_core.analysis.audit import gain_share
    from leakeval_core.api.audits import audit
    from leakeval_core.api.results import rows_at
    from leakeval_core.leakage.rule import headline_rows
    from leakeval_core.present.story import tell

    design, measure, statistics = study.design, view.parsed_measure, view.statistics
    base = pair.get("baseline", design.baseline)  # a pair names it among several
    full = audit(study, view=view)
    result = full.at({**pair, "baseline": str(base)})
    leaked_rows = headline_rows(result.table)
    if leaked_rows.empty or not result.closer:  # a model another collection has, say
        where = ", ".join(f"{k}={v}" for k, v in pair.items() if k != design.system)
        raise LeakevalError(
            f"{pair[design.system]} is not audited at {where}: it has no complete runs there, "
            f"or scores as {base} on every topic; choose another {design.system}."
        )
    row = leaked_rows.iloc[0]
    look = result.closer[0]
    if look.leaked is None:
        raise LeakevalError("The story needs the leaked topics: leakage pairs, not only groups")
    gain, flags = look.gain, look.leaked.to_numpy()
    share = gain_share(gain.to_numpy(), flags, seed=statistics.seed)
    facts = _facts(
        row,
        statistics,
        kind="audit",
        pair=pair,
        subject_factor=design.system,
        a=str(pair[design.system]),
        b=str(base),
        mean_a=float(look.model.mean()),
        mean_b=float(look.baseline.mean()),
        gain=float(gain.mean()),
        left_out=_left_out(study, view, [pair, {**pair, design.system: base}], len(gain), True),
        family=(
            f"models of {pair['collection']}"
            if len(design.baselines) == 1
            else f"comparisons of {pair['collection']}'s models with its "
            f"{len(design.baselines)} baselines"
        )
        if view.split != "answer"
        else f"comparisons of {pair['collection']}'s models by answers (three each)",
        share=share[0],
        share_low=share[1],
        share_high=share[2],
    )
    top = pd.DataFrame(
        {
            "qid": gain.index[flags],
            "A (model)": look.model[flags].to_numpy(),
            "B (baseline)": look.baseline[flags].to_numpy(),
            "gain": gain[flags].to_numpy(),
        }
    )
    top = top[top.gain > 0].sort_values(["gain", "qid"], ascending=[False, True]).head(10)
    top = _with_queries(top.assign(collection=pair["collection"]), pair, study, view, {})
    # every model's answer against every baseline
    where = {k: v for k, v in pair.items() if k not in (design.system, "baseline")}
    answers = rows_at(headline_rows(full.table), where)
    return tell(
        facts,
        measure,
        statistics,
        result.categories.reset_index(drop=True),
        None,
        top,
        answers,
        opening,
        *_leakage_notes(study, view, pair),
    )


def _left_out(
    study: Study, view: View, sides: list[dict], kept: int, covered_only: bool = False
) -> int:
    """How many topics one of the story's sides scored that its gains lack (no value on
    the other side): neither count has them, and the story says so. An audit counts only
    the topics its leakage judgment covers, as the audit does."""
    from leakeval_core.api.results import rows_at

    table = per_query_of(study, view).table
    scored = set().union(*(set(rows_at(table, levels).qid) for levels in sides))
    covered = study.covered() if covered_only else None
    if covered is not None:
        scored &= set(covered.qid[covered.collection == sides[0]["collection"]])
    return len(scored) - kept


def _leakage_notes(study: Study, view: View, pair: dict) -> tuple[str, tuple, tuple, tuple, tuple]:
    """The story's leaked rule for its collection, the warnings it must carry, the
    incomplete conditions, the scoring warnings, and its notes: the conventions of the
    collections and the Judged@10 of the systems its pair compares, where under 90%."""
    from leakeval_core.present.story import leaked_sentence

    rules = study.leaked_rule(view)
    sentence = leaked_sentence(rules, study.pairs(view).source, pair.get("collection"))
    scored = per_query_of(study, view)
    # twins compare the pair's leakage levels; an audit its model and baseline
    compared = ("baseline", study.design.system) if "baseline" in pair else ()
    judged = scored.judged_note({k: v for k, v in pair.items() if k not in compared})
    split = (
        [
            "Split by answers: the story's leaked topics are the answer-leaked ones (a "
            "near-duplicate training query's positive is a relevant document) and its others "
            "the clean ones; the query-leaked topics' comparisons are in the audit and "
            "inflation tables."
        ]
        if view.split == "answer"
        else []
    )
    notes = (*split, *scored.conventions_notes, *([judged] if judged else []))
    warnings = tuple(study.leakage_warnings(view))
    return sentence, warnings, scored.incomplete, scored.scoring_warnings, notes


def _with_queries(top, pair: dict, study: Study, view: View, names: dict):
    """The topics' titles and the training query that makes each one leaked."""
    from leakeval_core.api.study import nearest_pairs

    rows = top.copy()
    if "collection" not in rows.columns:
        rows["collection"] = pair.get("collection", study.titles().collection.iloc[0])
    given = study.pairs(view)
    pairs = given.table[given.reached(view.threshold)]  # the pairs that make a topic leaked
    best = nearest_pairs(pairs)
    texts = (
        pairs.sort_values(["similarity", "train_qid"], ascending=[False, True], kind="stable")
        .drop_duplicates(["collection", "test_qid"])
        .rename(columns={"test_qid": "qid", "train_text": "leaked training query"})
    )
    rows = rows.merge(study.titles(), on=["collection", "qid"], how="left").merge(
        best.merge(texts[["collection", "qid", "leaked training query"]], on=["collection", "qid"]),
        on=["collection", "qid"],
        how="left",
    )
    rows = rows.rename(columns=names)
    value_columns = [c for c in rows.columns if c.startswith(("A (", "B ("))]
    order = ["collection", "qid", "title", *value_columns, "gain"]
    order += ["leaked training query", "similarity", "category"]
    return rows[order].reset_index(drop=True)


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
    significance table with its paired differences, inflation, the audit, the leaderboard
    on all and on clean topics with its groups, and the system ranking change. A section
    that needs a role or pairs the experiment lacks says why.

    >>> html = report(demo_path, measure="ndcg_cut_10")
    >>> html.startswith("<!DOCTYPE html>") and "Inflation" in html
    True
    """
    from leakeval_core.api.comparison import compare, condition_means, ranking_change
    from leakeval_core.api.leakage import inflation
    from leakeval_core.present.report import ReportParts, render_report

    view = view_of(view, settings)
    study = Study.open(data)
    design = study.design_with(factor, leaked, clean)
    per_query = per_query_of(study, view)
    factors = [f for f in per_query.factors if f != "collection"]
    parts = ReportParts(
        experiment=study.experiment,
        design=design,
        measure=view.parsed_measure,
        statistics=view.statistics,
        conventions=view.conventions,
        fold_rule=per_query.fold_rule,
        factors=factors,
        conventions_notes=per_query.conventions_notes,
    )
    roles = parts.roles
    try:
        parts.story = story(study, view=view)
    except LeakevalError as exc:
        parts.story = f"Not applicable: {exc}"
    if not study.pairs(view).empty:
        from leakeval_core.api.leakage import leakage_overview
        from leakeval_core.present.story import leaked_sentence

        parts.overlap = leakage_overview(study, view)
        parts.pairs_source = study.pairs(view).source
        parts.leaked = leaked_sentence(study.leaked_rule(view), parts.pairs_source)
        parts.rule = study.pairs(view).rule(view.threshold)
        parts.warnings = tuple(study.leakage_warnings(view))
    parts.warnings = (*per_query.incomplete, *per_query.scoring_warnings, *parts.warnings)
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
    if design.baseline is not None:
        from leakeval_core.api.audits import audit

        try:
            parts.audit = audit(study, view=view)
        except LeakevalError as exc:
            parts.audit = f"Not applicable: {exc}"
    if design.has("system"):
        from leakeval_core.api.leaderboards import leaderboard

        try:
            parts.leaderboard = leaderboard(study, view=view)
        except LeakevalError as exc:  # no pairs, or one system per place
            parts.leaderboard = f"Not applicable: {exc}"
    if design.has("system", "leakage"):
        within = [f for f in ("collection", roles[0]) if f not in (design.system, design.leakage)]
        parts.ranking = ranking_change(study, view, list(dict.fromkeys(within)), design)
    else:
        parts.ranking = design.why_not("Not applicable: the ranking change", "system", "leakage")
    return render_report(parts, top)
