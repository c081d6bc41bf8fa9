"""leakeval from Python: a few verbs over the core, for notebooks and scripts.

`score` takes qrels and runs in whatever shape a researcher already has (files, pandas
frames, pyarrow tables, pytrec_eval's dicts of dicts) and returns tables. The experiment
verbs (`load_experiment`, `experiment_scores`, `compare`, `inflation`) and `detect_leakage`
are the functions the CLI and the app call, so a number computed here is the number they
show. Wrong input raises `LeakevalError` saying what is wrong.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leakeval_core.analysis.options import Statistics
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DEFAULT_MEASURES, Measure
from leakeval_core.experiment.manifest import Experiment
from leakeval_core.experiment.manifest import load_experiment as _load_experiment
from leakeval_core.leakage.options import DetectionOptions

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.analysis.inflation import Inflation
    from leakeval_core.evaluation.scoring import ScoreDiagnostics
    from leakeval_core.experiment.scores import ExperimentScores

__all__ = [
    "Scores",
    "compare",
    "detect_leakage",
    "experiment_scores",
    "inflation",
    "load_experiment",
    "score",
]

Table = Any
"""A path, a pandas DataFrame, a pyarrow Table, or a dict of dicts (qid -> docid -> value)."""

COLUMN_ALIASES = {
    "qid": ("qid", "query_id", "q_id", "query", "topic", "topic_id"),
    "docid": ("docid", "doc_id", "docno", "document_id", "did"),
    "grade": ("grade", "relevance", "rel", "label", "judgment"),
    "score": ("score", "sim", "similarity", "rank_score"),
}
"""Column names recognised without a mapping (ranx, ir_measures and pandas habits)."""


@dataclass(frozen=True)
class Scores:
    """Per-query scores of one or more runs, as long and wide tables."""

    table: pd.DataFrame = field(repr=False)
    """run, qid, measure, value: one row per (run, query, measure)."""
    diagnostics: dict[str, ScoreDiagnostics] = field(repr=False)
    """Per run: what the scorer decided (missing queries, ties, undefined first ranks)."""
    measures: tuple[Measure, ...]
    conventions: Conventions

    def per_query(self) -> pd.DataFrame:
        """run, qid, measure, value."""
        return self.table.copy()

    def means(self) -> pd.DataFrame:
        """One row per run, one column per measure: the mean over scored queries.

        first_rel_rank is NaN where a query has no relevant document within depth; such
        queries are left out of its mean (that mean is MFR).
        """
        wide = self.table.pivot_table(
            index="run", columns="measure", values="value", aggfunc="mean", sort=False
        )
        return wide[[m.name for m in self.measures]].rename_axis(columns=None)


def score(
    qrels: Table,
    runs: Table | Mapping[str, Table] | Sequence[str | os.PathLike[str]],
    measures: str | Sequence[str | Measure] = DEFAULT_MEASURES,
    conventions: Conventions = Conventions(),
    columns: Mapping[str, str] | None = None,
) -> Scores:
    """Score runs against qrels under explicit conventions.

    `runs` is one run, a mapping of name -> run, or a list of run files. `columns` maps
    your column names to leakeval's (`qid`, `docid`, `score`, `grade`) where they are not
    among the common ones (query_id, doc_id, relevance, ...).

    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> bm25 = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 0.5, "d4": 1.0}}
    >>> result = score(qrels, {"bm25": bm25}, ["ndcg_cut_10", "P_1"])
    >>> result.means().round(4).to_dict("index")
    {'bm25': {'ndcg_cut_10': 0.8155, 'P_1': 0.5}}
    """
    import pandas as pd

    from leakeval_core.evaluation.measures import parse_measures
    from leakeval_core.evaluation.qrels import PreparedQrels
    from leakeval_core.evaluation.scoring import score_run

    measures = parse_measures(measures)
    prepared = PreparedQrels(_as_frame(qrels, "grade", "qrels", columns), conventions)
    tables, diagnostics = [], {}
    for name, run in _named_runs(runs).items():
        result = score_run(
            _as_frame(run, "score", f"run {name!r}", columns), prepared, measures, name=name
        )
        tables.append(result.scores.assign(run=name))
        diagnostics[name] = result.diagnostics
    table = pd.concat(tables, ignore_index=True)[["run", "qid", "measure", "value"]]
    return Scores(table, diagnostics, measures, conventions)


def load_experiment(path: str | os.PathLike[str]) -> Experiment:
    """Read and validate an experiment folder (or its experiment.toml).

    >>> experiment = load_experiment(demo_path)  # a folder written by `leakeval demo`
    >>> experiment.design.leakage, experiment.design.leaked, experiment.design.clean
    ('leakage', 'leaked', 'none')
    """
    return _load_experiment(path)


def experiment_scores(
    experiment: Experiment | str | os.PathLike[str],
    measures: str | Sequence[str | Measure] = DEFAULT_MEASURES,
    conventions: Conventions = Conventions(),
) -> ExperimentScores:
    """The SCORES table of an experiment (cached on disk by content), with per-run notes.

    >>> scores = experiment_scores(demo_path, ["P_1"])
    >>> sorted(scores.scores.columns)
    ['collection', 'fold', 'leakage', 'measure', 'model', 'qid', 'run_id', 'train_size', 'value']
    """
    from leakeval_core.experiment.scores import score_experiment

    return score_experiment(_experiment(experiment), measures, conventions)


def compare(
    experiment: Experiment | str | os.PathLike[str],
    measure: str = DEFAULT_MEASURES[0],
    vary: str | None = None,
    baseline: object | None = None,
    statistics: Statistics = Statistics(),
    conventions: Conventions = Conventions(),
) -> pd.DataFrame:
    """Paired tests between the levels of one factor, corrected within each collection.

    `vary` defaults to the design's leakage factor, compared against its clean level: the
    table `leakeval compare` prints and the app marks with stars.

    >>> rows = compare(demo_path, "ndcg_cut_10")
    >>> len(rows), int(rows.family_size.iloc[0]), rows[["a", "b"]].iloc[0].tolist()
    (45, 15, ['leaked', 'none'])
    """
    from leakeval_core.analysis.compare import compare_levels
    from leakeval_core.analysis.folds import per_query

    experiment = _experiment(experiment)
    design = experiment.design
    vary = vary or design.leakage
    if vary is None:
        raise LeakevalError("give vary=FACTOR: " + design.why_not("compare", "leakage"))
    if baseline is None and vary == design.leakage:
        baseline = design.clean
    results = experiment_scores(experiment, [measure], conventions)
    return compare_levels(
        per_query(results, measure),
        vary,
        baseline,
        statistics,
    )


def inflation(
    experiment: Experiment | str | os.PathLike[str],
    measure: str = DEFAULT_MEASURES[0],
    threshold: float | None = None,
    statistics: Statistics = Statistics(),
    conventions: Conventions = Conventions(),
    top: int = 10,
) -> Inflation:
    """How much of each leaked-vs-clean gain lands on topics with a near-duplicate.

    >>> result = inflation(demo_path, "ndcg_cut_10")
    >>> at_2000 = result.summary.query("train_size == 2000")
    >>> bool(at_2000.delta_leaked.mean() > at_2000.delta_other.mean() + 0.05)
    True
    """
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.analysis.inflation import inflation as split_by_leakage
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.leakage.table import leaked_qids, load_leakage

    experiment = _experiment(experiment)
    experiment.design.require("Inflation", "leakage")
    leakage = load_leakage(experiment)
    if leakage.empty:
        raise LeakevalError(
            f"{experiment.root}: inflation needs leakage pairs; add [training_queries] or "
            "[leakage] table to experiment.toml"
        )
    results = experiment_scores(experiment, [measure], conventions)
    return split_by_leakage(
        per_query(results, measure),
        leaked_qids(leakage, leakage.threshold if threshold is None else threshold),
        experiment.design,
        parse_measure(measure).better,
        top,
        statistics.correction,
    )


def detect_leakage(
    topics: str | os.PathLike[str] | pd.DataFrame,
    training_queries: str | os.PathLike[str] | pd.DataFrame,
    options: DetectionOptions = DetectionOptions(),
    fields: Sequence[str] = ("title", "description"),
) -> pd.DataFrame:
    """Near-duplicates of test topics among training queries: the LEAKAGE table.

    `topics` is a topics file, an ir_datasets id or alias (`robust04`), or a frame with qid
    and title (description, narrative optional); `training_queries` is a query file, an
    ir_datasets id, or a frame with qid and text.

    >>> import pandas as pd
    >>> topics = pd.DataFrame({"qid": ["301"], "title": ["international organized crime"]})
    >>> log = pd.DataFrame({"qid": ["7", "8"],
    ...                     "text": ["International organized crime!", "cheap flights"]})
    >>> pairs = detect_leakage(topics, log)
    >>> pairs[["test_qid", "train_qid", "similarity", "category"]].round(4).to_dict("records")
    [{'test_qid': '301', 'train_qid': '7', 'similarity': 1.0, 'category': 'identical'}]
    """
    import pandas as pd

    from leakeval_core.experiment.collections import topics_from, training_chunks
    from leakeval_core.leakage.detect import detect, topic_texts
    from leakeval_core.leakage.table import LEAKAGE_COLUMNS

    frame = isinstance(topics, pd.DataFrame)
    topics = _topics_frame(topics) if frame else topics_from(str(topics))
    if isinstance(training_queries, pd.DataFrame):
        missing = {"qid", "text"} - set(training_queries.columns)
        if missing:
            raise LeakevalError(
                f"training queries need columns qid and text; missing {sorted(missing)}"
            )
        log = training_queries[["qid", "text"]].astype(str)
    else:
        log = training_chunks(training_queries, options.chunk_size)
    pairs = detect(topic_texts(topics, tuple(fields)), log, options)
    return pairs[LEAKAGE_COLUMNS[1:]].reset_index(drop=True)


# --------------------------------------------------------------------------- input shapes


def _experiment(value: Experiment | str | os.PathLike[str]) -> Experiment:
    return value if isinstance(value, Experiment) else _load_experiment(value)


def _named_runs(runs: Any) -> dict[str, Any]:
    """name -> run, from one run, a mapping, or a list of run files."""
    from leakeval_core.io.trec import unique_run_names

    if isinstance(runs, Mapping) and runs and all(isinstance(v, Mapping) for v in runs.values()):
        # a dict of dicts is one pytrec_eval run (qid -> docid -> score) unless its values
        # are themselves runs (name -> qid -> docid -> score)
        first = next(iter(runs.values()))
        if all(isinstance(v, Mapping) for v in first.values()):
            return dict(runs)
        return {"run": runs}
    if isinstance(runs, Mapping):
        return dict(runs)
    if isinstance(runs, list | tuple):
        if not runs:
            raise LeakevalError("no run given")
        if all(isinstance(r, str | os.PathLike) for r in runs):
            return dict(zip(unique_run_names(list(runs)), runs, strict=True))
        return {f"run{i + 1}": run for i, run in enumerate(runs)}
    if isinstance(runs, str | os.PathLike):
        return dict(zip(unique_run_names([runs]), [runs], strict=True))
    return {"run": runs}


def _as_frame(value: Any, column: str, what: str, columns: Mapping[str, str] | None):
    """A run or qrels as a reader's table or a frame with qid, docid and `column`."""
    import pandas as pd
    import pyarrow as pa

    from leakeval_core.io import trec

    if isinstance(value, str | os.PathLike):
        if not Path(value).exists():
            raise LeakevalError(f"{what}: {value}: no such file")
        return trec.read_qrels_table(value) if column == "grade" else trec.read_run_table(value)
    if isinstance(value, Mapping):
        rows = [
            (str(q), str(d), v)
            for q, docs in value.items()
            if _is_mapping(q, docs, what)
            for d, v in docs.items()
        ]
        value = pd.DataFrame(rows, columns=["qid", "docid", column])
    if isinstance(value, pa.Table):
        value = value.to_pandas()
    if not isinstance(value, pd.DataFrame):
        raise LeakevalError(
            f"{what}: expected a file path, a DataFrame, a pyarrow Table or a dict of dicts, "
            f"got {type(value).__name__}"
        )
    return _checked(_renamed(value, column, what, columns), column, what)


def _is_mapping(qid: object, docs: object, what: str) -> bool:
    if not isinstance(docs, Mapping):
        raise LeakevalError(
            f"{what}: query {qid!r} maps to {type(docs).__name__}, not to {{docid: value}}"
        )
    return True


def _renamed(frame, column: str, what: str, columns: Mapping[str, str] | None):
    mapping = dict(columns or {})
    found = {}
    for wanted in ("qid", "docid", column):
        given = [k for k, v in mapping.items() if v == wanted and k in frame.columns]
        alias = [c for c in frame.columns if str(c).lower() in COLUMN_ALIASES[wanted]]
        source = (given or alias or [None])[0]
        if source is None:
            raise LeakevalError(
                f"{what}: no {wanted} column among {', '.join(map(str, frame.columns))}; "
                f"pass columns={{'your_name': '{wanted}'}}"
            )
        found[source] = wanted
    return frame[list(found)].rename(columns=found)


def _checked(frame, column: str, what: str):
    import numpy as np
    import pandas as pd

    out = pd.DataFrame({"qid": frame.qid.astype(str), "docid": frame.docid.astype(str)})
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna() | ~np.isfinite(values.to_numpy(dtype=float, na_value=np.nan))
    if bad.any():
        row = int(np.argmax(bad.to_numpy()))
        raise LeakevalError(
            f"{what}: row {row + 1}: {column} {frame[column].iloc[row]!r} is not a finite number"
        )
    if column == "grade":
        if (values != values.round()).any():
            row = int(np.argmax((values != values.round()).to_numpy()))
            raise LeakevalError(
                f"{what}: row {row + 1}: grade {float(values.iloc[row])!r} is not an integer"
            )
        out["grade"] = values.astype("int64").to_numpy()
    else:
        out["score"] = values.astype("float64").to_numpy()
    repeated = out.duplicated(["qid", "docid"])
    if repeated.any():
        row = int(np.argmax(repeated.to_numpy()))
        raise LeakevalError(
            f"{what}: row {row + 1}: docid {out.docid.iat[row]!r} appears twice for query "
            f"{out.qid.iat[row]!r}"
        )
    if out.empty:
        raise LeakevalError(f"{what}: empty")
    return out


def _topics_frame(frame):
    if not {"qid", "title"} <= set(frame.columns):
        raise LeakevalError("topics need columns qid and title (description, narrative optional)")
    out = frame.astype({"qid": str, "title": str}).copy()
    for column in ("description", "narrative"):
        out[column] = out[column].fillna("").astype(str) if column in out else ""
    return out[["qid", "title", "description", "narrative"]]
