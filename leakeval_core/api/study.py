"""What the verbs compute on: an experiment opened once, or runs handed over in memory.

A `Study` loads each thing an experiment's numbers need (scores per conventions, one
per-query table per measure, leakage pairs per detection method, collections) on first use
and keeps it, so the app, which holds one per experiment, and a script calling several
verbs on one, never parse or score twice. Under it, the disk cache is keyed by content.

`RunSet` is the folder-free twin: qrels and named runs (files, frames, dicts), scored into
the same per-query table with one factor, `run`, so `compare` and `inflation` treat them
exactly as an experiment's conditions.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation import priority
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.experiment.design import Design, infer_design
from leakeval_core.experiment.manifest import Experiment, load_experiment
from leakeval_core.io.topic_groups import read_topic_groups

if TYPE_CHECKING:
    from leakeval_core.analysis.folds import PerQuery
    from leakeval_core.api.view import View
    from leakeval_core.evaluation.judged_topics import JudgedTopics
    from leakeval_core.experiment.cache import Cache
    from leakeval_core.experiment.collections import Collection
    from leakeval_core.experiment.scores import ExperimentScores, Progress
    from leakeval_core.leakage.labels import LabelledPairs
    from leakeval_core.leakage.table import LeakageTable

__all__ = ["RunSet", "Study", "collection_of", "needs_pairs"]


def needs_pairs(feature: str, error: str = "") -> str:
    """The one wording of "this needs leakage pairs", wherever a feature lacks them: the
    cause where reading or detecting them failed (a collection that could not be loaded),
    else how to add them."""
    if error:
        return f"{feature} needs leakage pairs, and they could not be found: {error}"
    return (
        f"{feature} needs leakage pairs: add `[training_queries]` or `[leakage] table` "
        "to experiment.toml"
    )


KEPT = {"result": 128, "scores": 8, "per_query": 32}
"""How many of the most recently used values a study keeps of each kind that grows with the
settings: a served app whose readers try many measures, conventions and thresholds rebuilds
the oldest (from the disk cache where there is one) instead of growing without bound."""


class _Build:
    """One value being built on a thread of its own, and the last step it reported."""

    def __init__(self, key: tuple, chain: tuple) -> None:
        self.key = key
        self.chain = (*chain, key)
        """The keys whose builds wait for this one, itself last: a build asking for one of
        them again builds it in place rather than waiting for itself."""
        self.changed = threading.Condition()
        self.step: tuple | None = None
        self.finished = False
        self.value: Any = None
        self.error: BaseException | None = None

    def report(self, done: int, total: int, what: str) -> None:
        with self.changed:
            self.step = (done, total, what)
            self.changed.notify_all()

    def finish(self, value: Any = None, error: BaseException | None = None) -> None:
        with self.changed:
            self.value, self.error, self.finished = value, error, True
            self.changed.notify_all()

    def wait(self, progress: Progress | None) -> Any:
        """The value, once `settle` returns: the build's error raised if it failed."""
        self.settle(progress)
        if self.error is not None:
            raise self.error
        return self.value

    def settle(self, progress: Progress | None) -> None:
        """Wait for the build to finish, relaying its steps to `progress` meanwhile: each
        new one, and the last one again every `HEARTBEAT` seconds while the build is silent.
        When `progress` raises (a reader of the app clicked away, and Streamlit stops their
        rerun through it), the caller leaves and the build goes on for whoever asks next.
        A reader's request waiting here is out of the build's way (`priority`)."""
        with priority.stepping_aside():
            self._settle(progress)

    def _settle(self, progress: Progress | None) -> None:
        seen = None
        while True:
            with self.changed:
                self.changed.wait_for(
                    lambda seen=seen: (
                        self.finished or (progress is not None and self.step is not seen)
                    ),
                    timeout=HEARTBEAT if progress is not None and seen is not None else None,
                )
                step, finished = self.step, self.finished
            if progress is not None and step is not None:
                seen = step
                progress(*step)
            if finished:
                return


HEARTBEAT = 0.25
"""Seconds between calls of a waiting caller's progress while the build reports nothing new.
Streamlit stops a rerun whose reader has clicked elsewhere only inside one of its own calls
(the progress bar's), so this is how soon such a click is answered during a silent stretch
of a long build."""


class _Memo:
    """Build each keyed value once, on a thread of its own; callers of one key wait for it.

    The app's sessions share a study. A session asking for a value another is still
    building joins that build, with its progress, rather than starting it again, and a
    session asking for any other value never waits for it. A build runs on its own thread
    so that it outlives its caller: a reader who clicks away mid-way stops only their wait
    (Streamlit interrupts a rerun from inside its progress bar), and the next reader finds
    the build where it was. A build is called with a `report(done, total, what)` for its
    progress; it may ask for other keys, and a failed one is tried again by the next caller.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[tuple, Any] = {}
        self._building: dict[tuple, _Build] = {}
        self._here = threading.local()

    def get(
        self, key: tuple, build: Callable[[Progress], Any], progress: Progress | None = None
    ) -> Any:
        chain = getattr(self._here, "chain", ())
        if key in chain:  # asked for by its own build: built in place, as a call would be
            return build(progress or _silent)
        with self._lock:
            if key in self._values:
                self._values[key] = self._values.pop(key)  # the most recent last
                return self._values[key]
            pending = self._building.get(key)
            if pending is None:
                pending = self._building[key] = _Build(key, chain)
                threading.Thread(
                    target=self._run, args=(pending, build), name="leakeval-build", daemon=True
                ).start()
        return pending.wait(progress)

    def _run(self, pending: _Build, build: Callable[[Progress], Any]) -> None:
        self._here.chain = pending.chain
        try:
            value = build(pending.report)
        except BaseException as exc:  # every waiter raises it; the next caller builds anew
            with self._lock:
                del self._building[pending.key]
            pending.finish(error=exc)
            return
        with self._lock:  # stored before the build is forgotten: no caller misses both
            self._values[pending.key] = value
            self._evict(pending.key[0])
            del self._building[pending.key]
        pending.finish(value)

    def _evict(self, kind: object) -> None:
        kept = KEPT.get(kind)
        if kept is not None:
            for old in [k for k in self._values if k[0] == kind][:-kept]:
                del self._values[old]

    def has(self, key: tuple) -> bool:
        return key in self._values

    def find(self, wanted: Callable[[tuple], bool]) -> Any:
        """A value already built under a key that `wanted` accepts, else None."""
        with self._lock:
            return next((v for k, v in self._values.items() if wanted(k)), None)


def _silent(done: int, total: int, what: str) -> None:
    """Progress nobody watches."""


class Study:
    """An experiment opened for analysis."""

    def __init__(self, experiment: Experiment, cache: Cache | None = None) -> None:
        self.experiment = experiment
        self.cache = cache
        self._memo = _Memo()

    @classmethod
    def open(cls, source: Study | Experiment | str | Path, cache: Cache | None = None) -> Study:
        if isinstance(source, Study):
            return source
        if isinstance(source, Experiment):
            return cls(source, cache)
        return cls(load_experiment(source), cache)

    @property
    def design(self) -> Design:
        return self.experiment.design

    def remember(
        self, key: tuple, build: Callable[[Progress], Any], progress: Progress | None = None
    ) -> Any:
        """A verb's result, built once per study and settings (`key` holds the View);
        `build` is called with where to report its progress, which reaches `progress`."""
        return self._memo.get(("result", *key), build, progress)

    def remembers(self, key: tuple) -> bool:
        """Whether a result is in memory already (the app shows a spinner when not)."""
        return self._memo.has(("result", *key))

    @property
    def name(self) -> str:
        return self.experiment.name

    @property
    def collection_names(self) -> list[str]:
        return list(self.experiment.collections)

    # ------------------------------------------------------------------------ scores

    def scores(
        self,
        conventions: Conventions,
        measures: tuple[str, ...] | None = None,
        progress: Progress | None = None,
    ) -> ExperimentScores:
        """The SCORES table for these measures (the defaults when None)."""
        from leakeval_core.evaluation.measures import DEFAULT_MEASURES, parse_measures
        from leakeval_core.experiment.scores import score_experiment

        names = tuple(m.name for m in parse_measures(measures or DEFAULT_MEASURES))
        return self._memo.get(
            ("scores", names, conventions),
            lambda report: score_experiment(
                self.experiment, names, conventions, self.cache, progress=report
            ),
            progress,
        )

    def offered_measures(self) -> tuple[str, ...]:
        """Every measure a figure of this experiment can be drawn for, the study's first
        (`measures.offered_measures`): what its runs can be scored on, or what all of its
        published evaluations carry."""
        from leakeval_core.evaluation.measures import offered_measures

        return offered_measures(self._carried())

    @property
    def published(self) -> bool:
        """Whether its runs are published per-query evaluations: values computed under
        conventions someone else chose, which nothing here can recompute."""
        return self._carried() is not None

    def scoring_measures(self) -> tuple[str, ...]:
        """What is scored at once (the dashboard's first compute): the dashboard's
        measures, or every measure the published evaluations carry."""
        from leakeval_core.evaluation.measures import DASHBOARD_MEASURES

        carried = self._carried()
        return DASHBOARD_MEASURES if carried is None else self.offered_measures()

    def _carried(self) -> tuple[str, ...] | None:
        from leakeval_core.evaluation.published import carried_measures

        return self._memo.get(
            ("carried",), lambda _: carried_measures(run["path"] for run in self.experiment.runs)
        )

    def scores_ready(self, conventions: Conventions, measures) -> bool:
        """Whether these scores are in memory (the app draws a progress bar when not)."""
        names = tuple(m.name for m in measures)
        return self._memo.has(("scores", names, conventions))

    def per_query(
        self,
        measure: str,
        conventions: Conventions,
        progress: Progress | None = None,
        allow_incomplete: bool = False,
    ) -> PerQuery:
        """One value per (condition, query): folds combined, missing queries per convention,
        incomplete conditions left out unless allowed (`folds.per_query`)."""
        from leakeval_core.analysis.folds import per_query
        from leakeval_core.evaluation.measures import scored_with

        def build(report: Progress) -> PerQuery:
            scored = self._memo.find(
                lambda key: key[0] == "scores" and key[2] == conventions and measure in key[1]
            )
            wanted = scored_with(measure, self.scoring_measures())
            return per_query(
                scored or self.scores(conventions, wanted, report),
                measure,
                allow_incomplete=allow_incomplete,
            )

        key = ("per_query", measure, conventions, allow_incomplete)
        return self._memo.get(key, build, progress)

    # ----------------------------------------------------------------------- leakage

    def method(self, view: View | None = None) -> str:
        """The detection method: the view's, else `[leakage] method` where installed, else
        the most accurate installed one."""
        from leakeval_core.leakage.table import experiment_method

        if view is not None and view.method is not None:
            return view.method
        return self._memo.get(("method",), lambda _: experiment_method(self.experiment, self.cache))

    def methods(self) -> tuple[str, ...]:
        """The detection methods that can give this experiment's pairs here: the installed
        ones, and those whose pairs were computed ahead of time (the demo ships its own)."""
        from leakeval_core.leakage.table import experiment_methods

        return self._memo.get(
            ("methods",), lambda _: experiment_methods(self.experiment, self.cache)
        )

    def leakage(
        self,
        method: str | None = None,
        progress: Progress | None = None,
        max_queries: int | None = None,
    ) -> LeakageTable:
        """The experiment's leakage pairs; a detection that fails is kept as the table's
        `error`, so that everything that does not need leaked flags still works."""

        from leakeval_core.leakage.table import (
            LEAKAGE_COLUMNS,
            LeakageTable,
            experiment_options,
            load_leakage,
        )

        method = method or self.method()

        def build(report: Progress) -> LeakageTable:
            try:
                return load_leakage(
                    self.experiment,
                    self.cache,
                    progress=report,
                    options=experiment_options(self.experiment, self.cache, method),
                    max_queries=max_queries,
                )
            except LeakevalError as exc:
                return LeakageTable(pd.DataFrame(columns=LEAKAGE_COLUMNS), "none", str(exc))

        return self._memo.get(("leakage", method), build, progress)

    def leakage_ready(self, method: str) -> bool:
        return self._memo.has(("leakage", method))

    def pairs(self, view: View) -> LeakageTable:
        """The leakage pairs under the view; with `[training_queries] qrels`, each says which
        of its topic's relevant documents (at the view's level) its training query's
        positives are (`leakage.answers`)."""
        method = self.method(view)
        pairs = self.leakage(method)
        if self.experiment.training_qrels is None or pairs.empty:
            return pairs
        levels = self.relevance_levels(view)
        return self._memo.get(
            ("answers", method, tuple(levels.items())),
            lambda _: answered(pairs, self.judged_qrels(), self.training_answers(), levels),
        )

    def relevance_levels(self, view: View) -> dict[str, int]:
        """Per collection, the relevance level in force: the view's, or where it is left at
        leakeval's default, the collection's own (TREC DL's official 2)."""
        return {
            name: view.conventions.declared(spec.conventions).relevance_level
            for name, spec in self.experiment.collections.items()
        }

    def training_answers(self):
        """`[training_queries] qrels` read once (`leakage.answers.TrainingAnswers`)."""
        from leakeval_core.leakage.answers import training_answers

        return self._memo.get(
            ("training answers",), lambda _: training_answers(self.experiment.training_qrels)
        )

    def judged_qrels(self) -> dict[str, pd.DataFrame]:
        """Each collection's qrels (qid, docid, grade), of those that have them."""
        return {
            name: self.collection(name).qrels
            for name, spec in self.experiment.collections.items()
            if spec.judged
        }

    def threshold(self, view: View) -> float:
        """The threshold in force for the main detection method: the view's, else the
        method's own (judged pairs ignore it)."""
        return view.threshold_or(self.pairs(view).threshold)

    def leaked(self, view: View, feature: str | None = None) -> pd.DataFrame | None:
        """collection, qid of every leaked topic (`leakage.rule`): judged pairs as judged,
        detected ones at the view's threshold, else their method's own.

        Without pairs: None, or, when `feature` says what needs them, the error saying how
        to add them.
        """
        from leakeval_core.leakage.table import leaked_qids

        pairs = self.pairs(view)
        if pairs.empty:
            if feature is not None:
                raise LeakevalError(needs_pairs(feature, pairs.error))
            return None
        return leaked_qids(pairs, view.threshold)

    def judged(self, view: View) -> dict[str, JudgedTopics]:
        """Per collection, the topics a figure is computed over: of those the pairs cover
        (`[leakage] covers`), else of every topic, the ones the scorer keeps under the
        view's conventions (`judged_topics`)."""
        from leakeval_core.evaluation.judged_topics import judged_topics

        conventions = view.conventions

        def build(_: Progress) -> dict[str, JudgedTopics]:
            covered = self.covered()
            topics = self.titles() if covered is None else covered
            return {
                name: judged_topics(
                    topics.qid[topics.collection == name],
                    self.collection(name).qrels,
                    conventions,
                )
                if spec.judged
                else self._published_topics(name, topics.qid[topics.collection == name])
                for name, spec in self.experiment.collections.items()
            }

        return self._memo.get(
            ("judged", conventions.relevance_level, conventions.no_relevant), build
        )

    def _published_topics(self, name: str, topics: pd.Series) -> JudgedTopics:
        """Of a collection without qrels, the topics its published evaluations hold a value
        for (`published_queries`): what its figures are over."""
        from leakeval_core.evaluation.judged_topics import JudgedTopics
        from leakeval_core.evaluation.per_query_files import Evaluation
        from leakeval_core.evaluation.published import published_queries, read_published

        def build(_: Progress) -> frozenset[str]:
            paths = [run["path"] for run in self.experiment.runs if run["collection"] == name]
            read = read_published(paths, judged=False)
            return frozenset(published_queries(r for r in read if isinstance(r, Evaluation)))

        held = self._memo.get(("published_topics", name), build)
        given = list(dict.fromkeys(topics.astype(str)))
        return JudgedTopics(
            tuple(q for q in given if q in held),
            tuple(q for q in given if q not in held),
            "has no published value",
        )

    def counted(self, view: View) -> pd.DataFrame:
        """collection, qid of the topics leaked ones are counted among (`judged`)."""
        return counted_frame(self.judged(view))

    def leaked_rule(self, view: View) -> dict[str, str]:
        """Per collection, how many topics are leaked and by which rule, in words: "172
        leaked of 249 judged topics (672 has no relevant document): lexical similarity ≥
        0.691" (`LeakageTable.statements`)."""
        return leaked_rule(self, view)

    def leakage_warnings(self, view: View) -> list[str]:
        """Sentences every answer must carry (an empty list when none): the training log is
        a sample of the log it stands for; a collection's flagged share is below half the
        leakage study's; a pairs file's shared documents were counted at another relevance
        level than the one in force."""
        from leakeval_core.leakage.table import leakage_warnings

        levels = set(self.relevance_levels(view).values())
        return leakage_warnings(
            self.pairs(view),
            self.counted(view),
            view.threshold,
            levels.pop() if len(levels) == 1 else None,  # each its own: none to compare
        )

    def nearest(self, view: View) -> pd.DataFrame:
        """collection, qid, similarity and category of each topic's nearest training query
        (topics without a candidate pair are absent)."""
        return nearest_pairs(self.pairs(view).table)

    def covered(self) -> pd.DataFrame | None:
        """collection, qid of the topics the leakage pairs speak for (`[leakage] covers`)."""
        if self.experiment.covers is None:
            return None
        return self._memo.get(
            ("covers",), lambda _: with_collection(read_covers(self.experiment.covers), self)
        )

    def groups(self) -> pd.DataFrame | None:
        """collection, qid, group from `[leakage] groups`."""
        if self.experiment.groups is None:
            return None
        return self._memo.get(
            ("groups",),
            lambda _: with_collection(read_topic_groups(self.experiment.groups), self),
        )

    def design_with(
        self, factor: str | None = None, leaked: object = None, clean: object = None
    ) -> Design:
        """The design with other leakage roles: levels given as text (a flag, a link) or
        as the factor's own values; a factor named without levels takes its levels'
        usual names (leaked/none, contaminated/clean, …)."""
        if factor is None and leaked is None and clean is None:
            return self.design
        factor = factor or self.design.leakage
        if factor is None:
            raise LeakevalError(self.design.why_not("Inflation", "leakage"))
        if factor != self.design.leakage and (leaked is None or clean is None):
            levels = {f: self.levels(f) for f in self.experiment.factors if f != "collection"}
            named = infer_design({"leakage": factor}, levels)
            leaked = named.leaked if leaked is None else leaked
            clean = named.clean if clean is None else clean
        leaked = self.design.leaked if leaked is None else leaked
        clean = self.design.clean if clean is None else clean
        return replace(
            self.design,
            leakage=factor,
            leaked=self.level(factor, leaked),
            clean=self.level(factor, clean),
        )

    # ---------------------------------------------------------------- the experiment

    def levels(self, factor: str) -> list:
        return self.experiment.levels(factor)

    def level(self, factor: str, text: object) -> object:
        """A level given as text (a URL, a flag) as the factor's own value."""
        if factor not in self.experiment.conditions:
            raise LeakevalError(
                f"unknown factor {factor!r}; factors: {', '.join(self.experiment.factors)}"
            )
        for value in self.levels(factor):
            if str(value) == str(text):
                return value
        raise LeakevalError(
            f"{text!r} is not a level of {factor}: {', '.join(map(str, self.levels(factor)))}"
        )

    def collection(self, name: str) -> Collection:
        from leakeval_core.experiment.collections import load_collection

        if name not in self.experiment.collections:
            known = ", ".join(self.experiment.collections)
            raise LeakevalError(f"unknown collection {name!r}; collections: {known}")
        return self._memo.get(
            ("collection", name), lambda _: load_collection(self.experiment.collections[name])
        )

    def titles(self) -> pd.DataFrame:
        """collection, qid and title of every topic."""

        return self._memo.get(
            ("titles",),
            lambda _: pd.concat(
                [
                    self.collection(name).topics[["qid", "title"]].assign(collection=name)
                    for name in self.experiment.collections
                ],
                ignore_index=True,
            ),
        )

    def labels(self) -> LabelledPairs | None:
        """The experiment's labelled pairs (`[leakage] labels`), checked against its topics."""

        from leakeval_core.leakage.labels import read_labels

        if self.experiment.labels is None:
            return None
        return self._memo.get(
            ("labels",),
            lambda _: read_labels(
                self.experiment.labels,
                pd.concat([self.collection(n).topics for n in self.experiment.collections]),
            ),
        )

    def ground_truth(self) -> LeakageTable | None:
        from leakeval_core.leakage.table import ground_truth

        return self._memo.get(("truth",), lambda _: ground_truth(self.experiment))

    def run_file(self, path: Path) -> pd.DataFrame:
        from leakeval_core.io.trec import read_run

        return self._memo.get(("run", str(path)), lambda _: read_run(path))


def counted_frame(judged: Mapping[str, JudgedTopics]) -> pd.DataFrame:
    """collection, qid of the judged topics of each collection."""
    return pd.DataFrame(
        [(name, qid) for name, topics in judged.items() for qid in topics.qids],
        columns=["collection", "qid"],
    )


def leaked_rule(source: Study | RunSet, view: View) -> dict[str, str]:
    """Per collection, the leaked count of the judged topics, the rule, and the topics left
    out: one sentence for every door."""
    judged = source.judged(view)
    pairs = source.pairs(view)
    counted = counted_frame(judged)
    said = pairs.statements(counted, view.threshold, {name: t.note for name, t in judged.items()})
    if pairs.answered:  # and which of them leaked with an answer: `LeakageTable.leaks`
        leaks = pairs.leak_statements(counted, view.threshold, judged=True)
        said = {
            name: f"{text}; {leaks[name]} ({pairs.answers})" if name in leaks else text
            for name, text in said.items()
        }
    return said


def nearest_pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    """Each topic's most similar training query: collection, qid, similarity, category."""
    best = pairs.sort_values(["similarity", "train_qid"], ascending=[False, True], kind="stable")
    best = best.drop_duplicates(["collection", "test_qid"])
    return best.rename(columns={"test_qid": "qid"})[["collection", "qid", "similarity", "category"]]


def read_covers(path) -> pd.DataFrame:
    return read_topic_groups(path, need_group=False)


def with_collection(table: pd.DataFrame, source) -> pd.DataFrame:
    """A topic file without a collection column names topics of the only collection."""
    names = source.collection_names
    if (table.collection == "").any():
        if len(names) != 1:
            raise LeakevalError(
                "a topic file for several collections needs a collection column "
                f"(collections: {', '.join(names)})"
            )
        table = table.assign(collection=table.collection.replace("", names[0]))
    return table.reset_index(drop=True)


class RunSet:
    """Qrels and named runs, scored on demand into the per-query shape of an experiment."""

    FACTOR = "system"
    """The factor its runs are the levels of: named as the design role they play, so that a
    table of run files names its model column as an experiment's `system = "system"` does."""

    def __init__(
        self,
        qrels: Any,
        runs: Any,
        columns: Mapping[str, str] | None = None,
        leakage: Any = None,
        collection: str | None = None,
        format: str | Mapping[str, str] | None = None,
        train_qrels: Any = None,
    ) -> None:
        """`leakage`: a pairs file, frame or table, a list of leaked topic ids, or a list of
        pairs sources (their union); `collection` names the collection, by default after
        the qrels file (`collection_of`), which finds the leakage study's share for it;
        `format` names the runs' file format where their content cannot tell (as `score`);
        `train_qrels` the training queries' positives, which make each pair say which
        answers leaked with it."""
        from leakeval_core.api.inputs import (
            as_run,
            as_table,
            formatted,
            named_runs,
            pairs_collection,
            qrels_name,
        )

        given, named = formatted(qrels, named_runs(runs), format)
        self.runs = {name: as_run(run, name, columns) for name, run in named.items()}
        """Each run's table, or its published per-query values (`evaluation.per_query_files`)."""
        self.qrels = None if qrels is None else as_table(given, "grade", "qrels", columns)
        if self.qrels is None:
            from leakeval_core.evaluation.per_query_files import refuse_unjudged

            refuse_unjudged(self.runs)
        self.qrels_name = qrels_name(qrels, collection)
        """How the warnings name the qrels."""
        self.collection_name = (
            collection
            or (collection_of(qrels) if qrels is not None else pairs_collection(leakage))
            or "collection"
        )
        self.given_leakage = leakage
        self.train_qrels = train_qrels
        """The training queries' positive documents (`leakage.answers.training_answers`)."""
        self._memo = _Memo()

    @property
    def collection_names(self) -> list[str]:
        return [self.collection_name]

    def pairs(self, view: View | None = None) -> LeakageTable:
        """The given leakage as pairs (an empty table, source "none", without any)."""
        from leakeval_core.api.inputs import leakage_pairs
        from leakeval_core.leakage.table import LEAKAGE_COLUMNS, LeakageTable

        def build(_: Progress) -> LeakageTable:
            if self.given_leakage is None:
                return LeakageTable(pd.DataFrame(columns=LEAKAGE_COLUMNS), "none")
            return leakage_pairs(self.given_leakage, self.collection_name)

        pairs = self._memo.get(("pairs",), build)
        if self.train_qrels is None or pairs.empty:
            return pairs
        if self.qrels is None:
            raise LeakevalError(
                "which answers leaked needs the test qrels: the training qrels' documents are "
                "matched to the topics' relevant ones"
            )
        from leakeval_core.api.view import View
        from leakeval_core.io.trec import decoded_frame
        from leakeval_core.leakage.answers import training_answers

        level = (view or View()).conventions.relevance_level
        qrels = {self.collection_name: decoded_frame(self.qrels)}
        given = self._memo.get(("training answers",), lambda _: training_answers(self.train_qrels))
        return self._memo.get(("answers", level), lambda _: answered(pairs, qrels, given, level))

    def nearest(self, view: View) -> pd.DataFrame:
        """Each topic's nearest training query (a judged pair's similarity is its
        judgment: 1 or 0)."""
        return nearest_pairs(self.pairs(view).table)

    def covered(self) -> pd.DataFrame | None:
        return None  # a set of runs has no topic files of its own: `audit` takes them

    def groups(self) -> pd.DataFrame | None:
        return None

    @property
    def design(self) -> Design:
        return Design()

    def levels(self, factor: str) -> list:
        if factor != self.FACTOR:
            raise LeakevalError(f"unknown factor {factor!r}; a set of runs has one: system")
        return list(self.runs)

    def level(self, factor: str, text: object) -> object:
        if str(text) not in self.levels(factor):
            raise LeakevalError(f"no run named {text!r}; runs: {', '.join(self.runs)}")
        return str(text)

    def design_with(
        self, factor: str | None = None, leaked: object = None, clean: object = None
    ) -> Design:
        names = list(self.runs)
        if factor not in (None, self.FACTOR):
            raise LeakevalError(f"unknown factor {factor!r}; a set of runs has one: system")
        if leaked is None or clean is None:
            if len(names) != 2:
                raise LeakevalError(
                    "name the leaked and the clean run (leaked=…, clean=…); runs: "
                    + ", ".join(names)
                )
            leaked, clean = (leaked, clean) if leaked is not None else (names[0], names[1])
            clean = clean if clean is not None else next(n for n in names if n != leaked)
        return Design(
            leakage=self.FACTOR,
            leaked=self.level(self.FACTOR, leaked),
            clean=self.level(self.FACTOR, clean),
        )

    def scores(self, conventions: Conventions, measures: tuple[str, ...]):
        from leakeval_core.api.scoring import score_tables

        return self._memo.get(
            ("scores", measures, conventions),
            lambda _: score_tables(self.qrels, self.runs, measures, conventions, self.qrels_name),
        )

    def per_query(
        self,
        measure: str,
        conventions: Conventions,
        progress: Progress | None = None,
        allow_incomplete: bool = False,
    ) -> PerQuery:
        """As `Study.per_query`; runs given one by one form no design to be incomplete."""
        from leakeval_core.analysis.folds import PerQuery

        def build(_: Progress) -> PerQuery:
            scores = self.scores(conventions, (measure,))
            long = scores.table
            table = long[long.measure == measure][["run", "qid", "value"]].rename(
                columns={"run": self.FACTOR}
            )
            table = table.assign(collection=self.collection_name)
            table = table[["collection", self.FACTOR, "qid", "value"]].reset_index(drop=True)
            missing = pd.DataFrame(
                {"collection": self.collection_name, self.FACTOR: list(self.runs), "missing": 0}
            )
            return PerQuery(
                table,
                ("collection", self.FACTOR),
                "none",
                missing,
                scoring_warnings=scores.scoring_warnings,
            )

        return self._memo.get(("per_query", measure, conventions), build)

    def threshold(self, view: View) -> float:
        """The threshold in force for the main detection method of the given pairs."""
        return view.threshold_or(self.pairs(view).threshold)

    def leaked(self, view: View, feature: str | None = None) -> pd.DataFrame | None:
        """collection, qid of every topic the given leakage makes leaked (`leakage.rule`)."""
        from leakeval_core.leakage.table import leaked_qids

        if self.given_leakage is None:
            if feature is not None:
                raise LeakevalError(
                    f"{feature} needs the leaked topics: pass leakage= (a pairs table or "
                    "file, or a list of topic ids)"
                )
            return None
        return leaked_qids(self.pairs(view), view.threshold)

    def judged(self, view: View) -> dict[str, JudgedTopics]:
        """As `Study.judged`, of the topics the qrels judge."""
        from leakeval_core.evaluation.judged_topics import JudgedTopics, judged_topics
        from leakeval_core.evaluation.published import published_queries

        conventions = view.conventions

        def build(_: Progress) -> dict[str, JudgedTopics]:
            if self.qrels is None:
                queries = tuple(published_queries(self.runs.values()))
                return {self.collection_name: JudgedTopics(queries, (), "")}
            qids = self.qrels["qid"]
            qids = qids.to_pandas() if hasattr(qids, "to_pandas") else qids
            return {
                self.collection_name: judged_topics(
                    pd.unique(qids.astype(str)), self.qrels, conventions
                )
            }

        return self._memo.get(
            ("judged", conventions.relevance_level, conventions.no_relevant), build
        )

    def counted(self, view: View) -> pd.DataFrame:
        """As `Study.counted`."""
        return counted_frame(self.judged(view))

    def leaked_rule(self, view: View) -> dict[str, str]:
        """As `Study.leaked_rule`."""
        return leaked_rule(self, view)

    def leakage_warnings(self, view: View) -> list[str]:
        """As `Study.leakage_warnings`."""
        from leakeval_core.leakage.table import leakage_warnings

        return leakage_warnings(
            self.pairs(view),
            self.counted(view),
            view.threshold,
            view.conventions.relevance_level,
        )

    @property
    def source(self) -> str:
        return self.pairs().source


GENERIC_NAMES = frozenset({"qrels", "qrel", "test", "judgments", "judgements", "truth", "labels"})
"""Qrels file names that say nothing of their collection: its folder names it instead."""


def collection_of(qrels: Any) -> str:
    """A collection's name from its qrels file: the file's stem unless generic (qrels.txt,
    test.qrels), then its folder's (`realdata/robust04/qrels.txt` is robust04)."""
    if not isinstance(qrels, str | os.PathLike):
        return "collection"
    path = Path(qrels)
    stem = path.name.split(".")[0]
    if stem.lower() not in GENERIC_NAMES:
        return stem
    return path.resolve().parent.name or "collection"


def answered(pairs: LeakageTable, qrels, train_qrels: Any, level) -> LeakageTable:
    """`pairs` with each one's shared relevant documents (`leakage.answers.with_answers`)."""
    from leakeval_core.leakage.answers import training_answers, with_answers

    return with_answers(pairs, qrels, training_answers(train_qrels), level)
