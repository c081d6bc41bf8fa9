"""`card`: a contamination card, the leakage and audit figures a model card or a results PR
carries, with the command that gives them again.

A card asks nothing new. Its leaked topics and share are the leaked rule's (`LeakageTable`:
the pairs, the topics they are counted among, the threshold in force) and its verdicts are
rows of the one `audit`, so a card, the app and `leakeval audit --json` cannot disagree. It
only chooses what a reader outside the project needs: the logs searched and how much of the
training data they cover, the share with its rule, a few pairs to judge by eye, the verdict
with its interval and mde, and the command. `present.card` words it.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from leakeval_core.api.arguments import baseline_names, source_of, view_of
from leakeval_core.api.audits import AUDIT_NOTE, audit, audit_family, why_not_audit
from leakeval_core.api.study import Study, collection_of
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.rule import LEAKS

if TYPE_CHECKING:
    from leakeval_core.analysis.statistics_options import Statistics
    from leakeval_core.evaluation.measures import Measure
    from leakeval_core.experiment.scores import Progress
    from leakeval_core.leakage.logs import TrainingLog
    from leakeval_core.leakage.rule import LeakageTable

__all__ = ["CARD_FILE", "EXAMPLES", "Card", "card", "card_command"]

CARD_FILE = "card.md"
"""The file a card's command writes (its JSON beside it, `card.json`)."""
EXAMPLES = 5
"""Leaked topics shown per collection, each with its nearest training query."""


@dataclass(frozen=True)
class Card:
    """One model's (or several models') contamination card over one or more collections."""

    title: str
    leakage: pd.DataFrame = field(repr=False)
    """Per collection: topics (those leaked ones are counted among), all_topics, leaked,
    share, study_share (the leakage study's, where it has one) and rule (which pairs make a
    topic leaked, in the words of `Study.leaked_rule`)."""
    categories: pd.DataFrame = field(repr=False)
    """collection, category, pairs: the categories of the pairs that make a topic leaked."""
    examples: pd.DataFrame = field(repr=False)
    """Up to `EXAMPLES` leaked topics per collection with their nearest training query:
    collection, test_qid, test_text, train_qid, train_text, method, similarity, category."""
    verdicts: pd.DataFrame = field(repr=False)
    """The audit's leaked-vs-other rows for these collections and models (`Audit.table`);
    empty when there is no audit (`no_verdict` says why)."""
    logs: tuple[TrainingLog, ...]
    """The training logs the pairs were found in, where known."""
    source: str
    """Where the pairs come from."""
    method: str
    threshold: float
    """The main method's threshold in force; a View's threshold that no detected pair is
    cut by (judged pairs are leaked as judged) is not one."""
    measure: Measure
    statistics: Statistics
    baseline: str | None
    factor: str | None
    """The audit's column naming the audited system."""
    twins: bool
    """The audit is of leaked-trained conditions against clean-trained twins, not of models
    against a baseline system."""
    keys: tuple[str, ...]
    """The audit's columns that place a row (collection, other factors)."""
    family: str
    """The verdicts' correction family in a sentence, with its m (`audit_family`): the
    card's table may show one model of it."""
    no_verdict: str
    warnings: tuple[str, ...]
    """What every reader of the card must be told: the audit's scoring warnings (too
    little of a run judged, a measure at 0 on every query), a sampled training log, a
    flagged share far below the study's."""
    caveat: str
    command: str | None
    """The command that writes this very card; None for data given in memory."""

    @property
    def markdown(self) -> str:
        """The card as GitHub-flavoured Markdown: a model card's or a PR's section."""
        from leakeval_core.present.card import card_markdown

        return card_markdown(self)

    def as_dict(self) -> dict:
        """Every figure on the card, unrounded: `card.json`."""
        from leakeval_core.api.results import records

        return {
            "title": self.title,
            "measure": self.measure.name,
            "better": self.measure.better,
            "baseline": self.baseline,
            "audited": self.factor,
            "statistics": self.statistics.describe("split"),
            "family": self.family,
            "leakage": self.source,
            "method": self.method,
            "threshold": self.threshold,
            "logs": [
                {
                    "name": log.name,
                    "queries": log.queries,
                    "sample_of": log.sample_of,
                    "stands_for": log.stands_for,
                    "coverage": log.coverage,
                }
                for log in self.logs
            ],
            "collections": records(self.leakage),
            "categories": records(self.categories),
            "examples": records(self.examples),
            "audit": records(self.verdicts),
            "no_verdict": self.no_verdict,
            "warnings": list(self.warnings),
            "caveat": self.caveat,
            "command": self.command,
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n"


def card(
    data: Any = None,
    runs: Any = None,
    *,
    baseline: object | None = None,
    leakage: Any = None,
    topics: Any = None,
    model: str | None = None,
    collections: Sequence[str] | None = None,
    reproduce: Sequence[str] | None = None,
    out: str = CARD_FILE,
    view: View | None = None,
    progress: Progress | None = None,
    train_qrels: Any = None,
    **settings: Any,
) -> Card:
    """A contamination card: the leaked share per collection and, with runs, the audit.

    `data`, `runs`, `baseline` and `leakage` are `audit`'s: an experiment (folder or
    `Study`), or qrels with the model runs and the baseline run. Without runs, `topics` (a
    topics file, an ir_datasets id or a frame with qid and title) and `leakage` (pairs, as
    `audit` takes them) give a card of the leakage alone. `model` keeps one audited model
    (without runs it only names the card); `collections` keeps some of an experiment's.
    `reproduce` is the command line's inputs for what is not an experiment folder
    (`--qrels … --run … --baseline … --pairs …`): without them such a card says it cannot be
    made again from a command. `out` is the file the card's command writes it to.

    >>> import pandas as pd
    >>> topics = pd.DataFrame({"qid": ["1", "2"], "title": ["cheap flights", "tax law"]})
    >>> pairs = pd.DataFrame({"test_qid": ["1"], "train_qid": ["9"],
    ...                       "train_text": ["cheap flight"], "similarity": [0.93]})
    >>> made = card(topics=topics, leakage=pairs)
    >>> made.leakage[["topics", "leaked", "share"]].to_dict("records")
    [{'topics': 2, 'leaked': 1, 'share': 0.5}]
    """
    view = view_of(view, settings)
    if data is None:
        if topics is None or leakage is None:
            raise LeakevalError(
                "a card needs an experiment, qrels with runs and a baseline, or topics with "
                "leakage pairs"
            )
        source, name = None, collection_of(topics)
        pairs, counted = _given(topics, leakage, name)
        every = counted
    else:
        source = source_of(data, runs, None, leakage, train_qrels=train_qrels)
        source.leaked(view, "The contamination card")  # the one error saying how to add pairs
        pairs, counted = source.pairs(view), source.counted(view)
        every = source.titles() if isinstance(source, Study) else counted
    names = _collections(collections, sorted(counted.collection.unique()))
    counted = counted[counted.collection.isin(names)]
    verdicts, factor, keys, base, family, why, scored = _verdicts(
        source, baseline, model, names, view, progress
    )
    warnings = [*scored, *_warnings(pairs, counted, view)]
    settled = _settled(view, source, pairs)
    twins = _twins(source, factor)
    models = [model] if model else []
    if not (model or verdicts.empty or twins):
        models = list(dict.fromkeys(verdicts[factor]))
    return Card(
        title=_title(models, names, pairs.logs),
        leakage=_leakage(pairs, counted, every, view),
        categories=_categories(pairs, counted, view),
        examples=_examples(pairs, counted, every, view),
        verdicts=verdicts,
        logs=pairs.logs,
        source=pairs.source,
        method=pairs.method,
        threshold=settled.threshold_or(pairs.threshold),
        measure=view.parsed_measure,
        statistics=view.statistics,
        baseline=base,
        factor=factor,
        twins=twins,
        keys=keys,
        family=family,
        no_verdict=why,
        warnings=tuple(warnings),
        caveat=AUDIT_NOTE,
        command=_command(
            source, reproduce, settled, baseline, model, collections, out, train_qrels
        ),
    )


def card_command(
    inputs: Sequence[str], view: View, options: Sequence[str] = (), out: str = CARD_FILE
) -> str:
    """`leakeval card` with these inputs and options and the view's settings, writing `out`:
    run where the card was made, it writes the same card to the same file."""
    return shlex.join(["leakeval", "card", *inputs, *options, *view.to_flags(), "--out", out])


def _given(topics: Any, leakage: Any, name: str) -> tuple[LeakageTable, pd.DataFrame]:
    """Pairs and the topics they are counted among, for a card of the leakage alone."""
    from leakeval_core.api.inputs import leakage_pairs, topics_frame
    from leakeval_core.experiment.collections import topics_from

    frame = topics_frame(topics) if isinstance(topics, pd.DataFrame) else topics_from(str(topics))
    counted = pd.DataFrame(
        {"collection": name, "qid": frame.qid.astype(str), "title": frame.title.astype(str)}
    ).drop_duplicates("qid", ignore_index=True)
    return leakage_pairs(leakage, name), counted


def _collections(wanted: Sequence[str] | None, known: list[str]) -> list[str]:
    if not wanted:
        return known
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise LeakevalError(
            f"unknown collection {unknown[0]!r}; collections: {', '.join(known) or 'none'}"
        )
    return [c for c in known if c in wanted]


def _verdicts(source, baseline, model: str | None, names: list[str], view: View, progress):
    """The audit's leaked-vs-other rows of these collections (and `model`), the audited
    factor, the key columns, the baseline, the rows' correction family in a sentence, why
    there is no verdict ("" when there is), and the audit's scoring warnings."""
    nothing = pd.DataFrame()
    if source is None:
        why = (
            "No runs were given, so there is no audit: the card reports the leakage alone. "
            "Give the model's and a baseline's runs for a verdict."
        )
        return nothing, None, (), None, "", why, ()
    if isinstance(source, Study) and (why := why_not_audit(source.design)):
        return nothing, None, (), None, "", why, ()
    result = audit(source, baseline=baseline, view=view, progress=progress)
    leaked = ~result.table.split.str.startswith("group ")  # leaked, or by answers
    rows = result.table[leaked & result.table.collection.isin(names)]
    # said before `model` keeps one row of it: m counts every comparison corrected together
    family = audit_family(rows, result.factor, result.keys, view.statistics)
    if model is not None:
        # twins are audited by their leakage level: their model is the system factor's
        system = source.design.system if _twins(source, result.factor) else result.factor
        audited = list(dict.fromkeys(rows[system].astype(str)))
        rows = rows[rows[system].astype(str) == model]
        if rows.empty:
            raise LeakevalError(
                f"no audited model {model!r}; models: {', '.join(audited) or 'none'}"
            )
    return (
        rows.reset_index(drop=True),
        result.factor,
        result.keys,
        result.baseline,
        family,
        "",
        result.scoring_warnings,
    )


def _twins(source, factor: str | None) -> bool:
    """Whether the audit is of leaked-trained conditions against their clean twins."""
    return isinstance(source, Study) and factor is not None and factor == source.design.leakage


def _warnings(pairs: LeakageTable, counted: pd.DataFrame, view: View) -> list[str]:
    """The sentences every answer on these pairs carries (`Study.leakage_warnings`)."""
    from leakeval_core.leakage.table import leakage_warnings

    return leakage_warnings(pairs, counted, view.threshold)


def _leakage(
    pairs: LeakageTable, counted: pd.DataFrame, every: pd.DataFrame, view: View
) -> pd.DataFrame:
    """Per collection, the leaked share by the one rule, with how many topics there are."""
    from leakeval_core.leakage.table import leak_share

    share = leak_share(pairs, counted, view.threshold)
    share["all_topics"] = share.collection.map(every.groupby("collection").qid.nunique())
    share["rule"] = share.collection.map(pairs.reasons(counted, view.threshold))
    columns = ["collection", "topics", "all_topics", "leaked", "share", "study_share", "rule"]
    if pairs.answered:  # which leaked with an answer: they add up to the topics counted
        kinds = pairs.leak_counts(counted, view.threshold).drop(columns="topics")
        share = share.merge(kinds, on="collection", how="left")
        columns[4:4] = list(LEAKS)
    return share[columns]


def _categories(pairs: LeakageTable, counted: pd.DataFrame, view: View) -> pd.DataFrame:
    """Per collection, the categories of the pairs that make a counted topic leaked, as the
    Leakage overlap page counts them (`category_counts`)."""
    from leakeval_core.leakage.table import category_counts

    mine = pairs.table.merge(
        counted[["collection", "qid"]].rename(columns={"qid": "test_qid"}),
        on=["collection", "test_qid"],
    )
    parts = [
        category_counts(replace(pairs, table=rows), view.threshold).assign(collection=name)
        for name, rows in mine.groupby("collection", sort=True)
    ]
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["pairs"])
    table = table[table.pairs > 0]
    return table.reindex(columns=["collection", "category", "pairs"]).reset_index(drop=True)


def _examples(
    pairs: LeakageTable, counted: pd.DataFrame, every: pd.DataFrame, view: View
) -> pd.DataFrame:
    """The first `EXAMPLES` leaked topics of each collection, most similar first, each with
    its nearest training query; a pair that names no topic text takes the topic's title."""
    reached = pairs.table[pairs.reached(view.threshold)].merge(
        counted[["collection", "qid"]].rename(columns={"qid": "test_qid"}),
        on=["collection", "test_qid"],
    )
    reached = reached.sort_values(
        ["collection", "similarity", "test_qid", "train_qid"],
        ascending=[True, False, True, True],
        kind="stable",
    )
    nearest = reached.drop_duplicates(["collection", "test_qid"])
    shown = nearest.groupby("collection", sort=True).head(EXAMPLES)
    if "title" in every:
        titles = every.set_index(["collection", "qid"]).title
        keys = list(zip(shown.collection, shown.test_qid, strict=True))
        found = [titles.get(key, "") for key in keys]
        shown = shown.assign(test_text=shown.test_text.where(shown.test_text != "", found))
    columns = ["collection", "test_qid", "test_text", "train_qid", "train_text"]
    return shown[[*columns, "method", "similarity", "category"]].reset_index(drop=True)


def _settled(view: View, source, pairs: LeakageTable) -> View:
    """The view as the card's command states it: only what changes a number, the same for
    the app (which settles the method and threshold it shows) and the command line. An
    experiment that detects its pairs names its method, which would otherwise be whatever
    is most accurate on the machine the command runs on; a threshold that every detected
    method of the pairs takes anyway is left out, and so is a method the pairs ignore."""
    detects = (
        isinstance(source, Study)
        and source.experiment.leakage_table is None
        and source.experiment.training_queries is not None
    )
    from leakeval_core.leakage.rule import JUDGED

    detected = [m for m in pairs.table.method.unique() if m != JUDGED]
    threshold = view.threshold
    if threshold is not None and all(pairs.default(m) == threshold for m in detected):
        threshold = None
    method = source.method(view) if detects else None
    return view.replace(method=method, threshold=threshold, collection=None)


def _command(
    source, reproduce, view: View, baseline, model, collections, out, train_qrels=None
) -> str | None:
    options = ["--model", model] if model else []
    if isinstance(source, Study):
        inputs = [_named(source.experiment.root)]
        named = baseline_names(baseline) or ()
        options = [*(arg for base in named for arg in ("--baseline", str(base))), *options]
        options += [arg for name in collections or () for arg in ("--collection", name)]
        if train_qrels is not None:  # given in place of the folder's own
            if not isinstance(train_qrels, str | os.PathLike):
                return None  # a frame: no command gives it again
            options += ["--train-qrels", _named(train_qrels)]
    elif reproduce is None:
        return None
    else:
        inputs = list(reproduce)
    return card_command(inputs, view, options, out)


def _named(folder) -> str:
    """A folder as the card's command names it: from the current folder where it lies under
    it, so that a card pasted into a pull request carries no home directory; else whole."""
    relative = os.path.relpath(folder)
    return str(folder) if relative.startswith("..") else relative


def _title(models: list[str], names: list[str], logs) -> str:
    where = ", ".join(names)
    if models:
        return f"Contamination card: {', '.join(models)} on {where}"
    searched = ", ".join(log.name for log in logs)
    return f"Contamination card: {where}" + (f" against {searched}" if searched else "")
