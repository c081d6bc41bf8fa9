"""The SCORES table of an experiment: one row per (run, query, measure), cached on disk.

A broken run is reported next to the others, not raised: in an experiment of 100 runs with
one bad file, the other 99 still score and the bad one is listed with its file:line message.
Its condition is broken (`completeness`), so no figure is computed from it unless asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import COLLECTION_KEYS, Conventions
from leakeval_core.evaluation.measures import DEFAULT_MEASURES, Measure, parse_measures
from leakeval_core.evaluation.per_query_files import is_evaluation
from leakeval_core.evaluation.scoring_warnings import Judged, collection_qrels, run_warnings
from leakeval_core.experiment.cache import Cache, hash_key
from leakeval_core.experiment.completeness import Completeness, completeness
from leakeval_core.experiment.design import Design
from leakeval_core.experiment.digests import (
    collection_digest,
    file_digest,
    scoring_code_digest,
)
from leakeval_core.experiment.manifest import Experiment

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.evaluation.qrels import PreparedQrels
    from leakeval_core.evaluation.scoring import RunScores

__all__ = ["ExperimentScores", "Progress", "score_experiment", "scores_key"]

Progress = Callable[[int, int, str], None]
"""Called as progress(done, total, what) while long work runs."""

_KINDS = ("experiment-scores", "experiment-runs", "experiment-queries")
_COUNTS = ["queries_scored", "no_relevant", "not_in_qrels", "tied_pairs", "first_rel_undefined"]
_JUDGED = {name: type(value) for name, value in asdict(Judged()).items()}
"""Each `Judged` field and its type: counts, and ids (a list or an array from a cache)."""
_RUN_COLUMNS = [*_COUNTS, *_JUDGED, "all_zero", "published", "error"]

NAMED_RUNS = 3
"""How many runs an experiment's scoring warnings name before they only count the rest: a
folder of a hundred runs for a collection whose qrels are in another id space would
otherwise bury every page and report under a hundred sentences of one kind."""


@dataclass(frozen=True)
class ExperimentScores:
    table: pd.DataFrame = field(repr=False)
    """run_id, collection, the pattern's factors, qid, measure, value."""
    runs: pd.DataFrame = field(repr=False)
    """One row per run: factors, scoring diagnostics, and `error` (empty when it scored)."""
    queries: pd.DataFrame = field(repr=False)
    """collection, qid: every query a condition is scored on (qrels with a relevant doc)."""
    measures: tuple[Measure, ...]
    conventions: Conventions
    """`missing` applies per condition, after folds are combined (see folds.per_query)."""
    design: Design = Design()
    """The experiment's factor roles; the fold role says which factor folds combine over."""
    completeness: Completeness = field(default_factory=Completeness)
    """The conditions that lack a run their design expects or hold one that failed: no
    figure is computed from them unless asked (see folds.per_query)."""
    notes: tuple[str, ...] = ()
    """The collections scored at a relevance level other than 1, or under conventions of
    their own (`conventions_notes`): what every caption of these scores says."""
    unscored: dict[str, int] = field(default_factory=dict)
    """The collections none of whose queries is scored, and the relevance level they were
    scored at: their qrels judge no document relevant at it, so every figure leaves them out
    and says so (`unscored_note`), where a figure of nothing would fail."""

    @property
    def failures(self) -> pd.DataFrame:
        return self.runs[self.runs.error != ""]

    def scoring_warnings(
        self, measure: str | None = None, limit: int | None = NAMED_RUNS
    ) -> tuple[str, ...]:
        """What every figure of these scores must say (`evaluation.scoring_warnings`): the
        runs too little of which their collection's qrels judge, and those at 0 on every
        query of `measure` (of any measure when None), each named by its run id; past
        `limit` runs, one more sentence counts the others."""
        only = None if measure is None else (measure,)
        left_out = tuple(unscored_note(name, level) for name, level in self.unscored.items())
        said = []
        for row in self.runs[self.runs.error == ""].to_dict("records"):
            judged = Judged(**{name: kind(row[name]) for name, kind in _JUDGED.items()})
            qrels = collection_qrels(row["collection"])
            queries = int(row["queries_scored"])
            warnings = run_warnings(
                row["run_id"], qrels, judged, tuple(row["all_zero"]), queries, only
            )
            warnings += tuple(row["published"])
            if warnings:
                said.append(warnings)
        if limit is None or len(said) <= limit:
            return (*left_out, *(w for run in said for w in run))
        return (
            *left_out,
            *(w for run in said[:limit] for w in run),
            f"{len(said) - limit} more runs have warnings like these: `leakeval scores` "
            "prints every one.",
        )


def score_experiment(
    experiment: Experiment,
    measures: Sequence[str | Measure] | str = DEFAULT_MEASURES,
    conventions: Conventions = Conventions(),
    cache: Cache | None = None,
    progress: Progress | None = None,
) -> ExperimentScores:
    import numpy as np
    import pandas as pd

    from leakeval_core.evaluation.published import score_published
    from leakeval_core.evaluation.qrels import PreparedQrels
    from leakeval_core.evaluation.scoring import score_files, stacked
    from leakeval_core.experiment.collections import load_collection

    measures = parse_measures(measures)
    cache = Cache.of_experiment(experiment.root, cache)
    key = scores_key(experiment, measures, conventions)
    hits = [cache.get(kind, key) for kind in _KINDS]
    if all(hit is not None for hit in hits):
        return _scores(experiment, *(hit[0] for hit in hits), measures, conventions)
    conditions = experiment.conditions

    # A fold's run holds only its fold's queries, so a run never fills in missing queries;
    # that happens per condition once its folds are combined.
    run_conventions = replace(conventions, missing="drop")
    prepared: dict[str, PreparedQrels] = {}

    def prepare(collection: str) -> PreparedQrels:
        if collection not in prepared:
            spec = experiment.collections[collection]
            qrels = load_collection(spec).qrels
            prepared[collection] = PreparedQrels(qrels, run_conventions.declared(spec.conventions))
        return prepared[collection]

    factor_cols = [c for c in conditions.columns if c not in ("path",)]
    rows = list(conditions.itertuples(index=False))
    # Runs are not cached one by one: scoring one costs about what writing and
    # reading its cache entry does. The experiment's tables above are the cache.
    found: dict[int, RunScores | LeakevalError] = {}
    done = 0
    unjudged: dict[str, np.ndarray] = {}
    """The queries of each collection without qrels: every one its evaluations hold."""
    for collection in dict.fromkeys(row.collection for row in rows):
        todo = [i for i, row in enumerate(rows) if row.collection == collection]
        if not experiment.collections[collection].judged:
            paths = [rows[i].path for i in todo]
            results, unjudged[collection] = score_published(paths, measures, run_conventions)
            done = _found(found, rows, todo, results, done, progress)
            continue
        try:
            qrels = prepare(collection)
        except LeakevalError as exc:
            why = LeakevalError(f"collection {collection!r} could not be loaded: {exc}")
            found.update(dict.fromkeys(todo, why))
            continue
        published = [i for i in todo if is_evaluation(rows[i].path)]
        results, _ = score_published(
            [rows[i].path for i in published], measures, run_conventions, qrels
        )
        done = _found(found, rows, published, results, done, progress)
        ranked = [i for i in todo if i not in published]
        results = score_files([rows[i].path for i in ranked], qrels, measures)
        done = _found(found, rows, ranked, results, done, progress)
    run_rows = []
    for i, row in enumerate(rows):
        factors = {c: getattr(row, c) for c in factor_cols}
        result = found[i]
        if isinstance(result, LeakevalError):
            diagnostics = {
                **dict.fromkeys(_COUNTS, 0),
                **asdict(Judged()),
                "all_zero": [],
                "published": [],
            }
        else:  # `missing_from_run` is meaningless per fold; see folds.per_query
            d = result.diagnostics
            diagnostics = {c: getattr(d, c) for c in _COUNTS}
            diagnostics.update(
                asdict(d.judged),
                all_zero=list(d.all_zero),
                published=[note.text for note in d.published if note.warns],
            )
        error = str(result) if isinstance(result, LeakevalError) else ""
        run_rows.append({**factors, **diagnostics, "error": error})
    if progress:
        progress(len(rows), len(rows), "done")

    scored = [i for i in range(len(rows)) if not isinstance(found[i], LeakevalError)]
    table, owner = stacked([found[i] for i in scored])
    factors = conditions[factor_cols].take(np.asarray(scored, dtype=int)[owner])
    scores = pd.concat([factors.reset_index(drop=True), table], axis=1)
    runs = pd.DataFrame(run_rows, columns=[*factor_cols, *_RUN_COLUMNS])
    queries = pd.concat(
        [
            _scored_queries(name, prepare)
            if name not in unjudged
            else pd.DataFrame({"collection": name, "qid": pd.Series(unjudged[name], dtype="str")})
            for name in conditions.collection.unique()
        ],
        ignore_index=True,
    )
    tables = (scores, runs, queries)
    if runs.error.eq("").all():
        for kind, table in zip(_KINDS, tables, strict=True):
            cache.put(kind, key, table)
    return _scores(experiment, *tables, measures, conventions)


def _found(found: dict, rows: list, todo: list[int], results, done: int, progress) -> int:
    """Keep each of `todo`'s results as it comes, reporting progress; the count done."""
    for i, result in zip(todo, results, strict=True):
        found[i] = result
        done += 1
        if progress:
            progress(done, len(rows), rows[i].run_id)
    return done


def _scores(experiment: Experiment, scores, runs, queries, measures, conventions):
    """The scores with the experiment's design and its incomplete and broken conditions."""
    failed = runs[runs.error != ""]
    unscored = set(runs[runs.error == ""].collection) - set(queries.collection)
    return ExperimentScores(
        scores,
        runs,
        queries,
        measures,
        conventions,
        experiment.design,
        completeness(experiment, dict(zip(failed.run_id, failed.error, strict=True))),
        conventions_notes(experiment, conventions),
        {
            name: conventions.declared(spec.conventions).relevance_level
            for name, spec in experiment.collections.items()
            if name in unscored
        },
    )


def unscored_note(collection: str, level: int) -> str:
    """Why a collection is in no figure: its qrels judge no document relevant."""
    return (
        f"{collection} is left out of every figure: its qrels judge no document relevant "
        f"at relevance level {level} (no grade of {level} or more), so none of its topics "
        "can be scored."
    )


def conventions_notes(
    experiment: Experiment, conventions: Conventions, chosen: bool = True
) -> tuple[str, ...]:
    """The collections scored at a relevance level other than 1, or under conventions of
    their own that the reader did not override (`Conventions.declared`), in a sentence for
    each way they were scored: which, and where it comes from ("dl19 scored at relevance
    level 2 (TREC DL passage ranking's official procedure ...)"; "robust04, core17 and
    core18 scored at relevance level 2."), after condensed lists where they are asked for.
    Without `chosen`, only those under conventions of their own: the sidebar already shows
    the reader's. The captions, the report, the CSVs and the sidebar all say it."""
    said: dict[str, list[str]] = {}
    for name, spec in experiment.collections.items():
        used = conventions.declared(spec.conventions)
        own = [k for k in COLLECTION_KEYS if getattr(used, k) != getattr(conventions, k)]
        shown = [
            k
            for k in COLLECTION_KEYS
            if k in own or (chosen and k == "relevance_level" and used.relevance_level != 1)
        ]
        if shown:
            where = f" ({spec.conventions_from}; a setting of yours overrides it)" if own else ""
            how = f"{', '.join(_setting(used, k) for k in shown)}{where}"
            said.setdefault(how, []).append(name)
    condensed = conventions.condensed_note() if chosen else None
    return (
        *([condensed] if condensed else []),
        *(f"{_listed(names)} scored at {how}." for how, names in said.items()),
    )


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _setting(conventions: Conventions, name: str) -> str:
    value = getattr(conventions, name)
    return {
        "relevance_level": f"relevance level {value}",
        "gain": f"{value} gain",
        "depth": f"depth {value}",
        "tie_order": "ties by docid " + ("ascending" if value == "docid_asc" else "descending"),
    }[name]


def scores_key(
    experiment: Experiment,
    measures: Sequence[str | Measure] | str,
    conventions: Conventions,
) -> str:
    """The cache key of an experiment's scores: the scoring code (`scoring_code_digest`),
    every run file's and collection's content, the conventions, the measures and the
    design. Hashing files is all it costs, so a warm command can look its result up before
    importing anything heavy."""
    runs = experiment.runs
    collections = dict.fromkeys(run["collection"] for run in runs)
    return hash_key(
        "experiment-scores",
        scoring_code_digest(),
        [(run["run_id"], file_digest(run["path"])) for run in runs],
        {
            name: (
                collection_digest(experiment.collections[name]),
                list(experiment.collections[name].conventions),
            )
            for name in collections
        },
        asdict(conventions),
        [m.name for m in parse_measures(measures)],
        list(runs[0]) if runs else [],
    )


def _scored_queries(name: str, prepare: Callable[[str], PreparedQrels]) -> pd.DataFrame:
    """The collection's scored queries; none when the collection itself cannot be read
    (its runs are then all listed as failures)."""
    import pandas as pd

    try:
        qids = prepare(name).qids.astype(str)
    except LeakevalError:
        qids = []
    return pd.DataFrame({"collection": name, "qid": pd.Series(qids, dtype="str")})
