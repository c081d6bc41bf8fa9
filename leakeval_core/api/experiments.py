"""Opening an experiment folder: its manifest, and its SCORES table."""

from __future__ import annotations

import os
from collections.abc import Sequence

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DEFAULT_MEASURES, Measure
from leakeval_core.experiment.manifest import Experiment
from leakeval_core.experiment.manifest import load_experiment as _load_experiment
from leakeval_core.experiment.scores import ExperimentScores, Progress

__all__ = ["experiment_scores", "load_experiment"]


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
    progress: Progress | None = None,
) -> ExperimentScores:
    """The SCORES table of an experiment (cached on disk by content), with per-run notes.

    >>> scores = experiment_scores(demo_path, ["P_1"])
    >>> sorted(scores.table.columns)
    ['collection', 'fold', 'leakage', 'measure', 'model', 'qid', 'run_id', 'train_size', 'value']
    """
    from leakeval_core.api.study import Study
    from leakeval_core.evaluation.measures import parse_measures

    names = tuple(m.name for m in parse_measures(measures))
    return Study.open(experiment).scores(conventions, names, progress)


def validate(
    path: str | os.PathLike[str], progress: Progress | None = None
) -> tuple[Experiment, list[str]]:
    """Check a manifest and every file it names, and that no condition lacks a run its
    siblings have (`experiment.completeness`); the problems, each a file:line message or
    the missing run's path.

    >>> experiment, problems = validate(demo_path)
    >>> len(experiment.runs), problems
    (450, [])
    """
    from pathlib import Path

    from leakeval_core.errors import LeakevalError
    from leakeval_core.experiment.collections import load_collection
    from leakeval_core.experiment.completeness import completeness
    from leakeval_core.io import query_files, trec
    from leakeval_core.leakage.table import experiment_method

    experiment = _load_experiment(path)
    problems: list[str] = []

    def check(step) -> None:
        try:
            step()
        except LeakevalError as exc:
            problems.append(str(exc))

    check(lambda: experiment_method(experiment))
    for spec in experiment.collections.values():
        check(lambda spec=spec: load_collection(spec))
    if isinstance(experiment.training_queries, Path):
        check(lambda: query_files.read_queries(experiment.training_queries))
    paths = [run["path"] for run in experiment.runs]
    for done, run in enumerate(paths):
        if progress:
            progress(done, len(paths), str(run))
        check(lambda run=run: trec.read_run_table(run))  # every check, without a frame
    if progress:
        progress(len(paths), len(paths), "done")
    return experiment, problems + completeness(experiment).problems()


def collection_stats(
    name: str | None = None,
    topics: str | os.PathLike[str] | None = None,
    qrels: str | os.PathLike[str] | None = None,
) -> tuple[str, dict]:
    """What a collection holds (an ir_datasets id or alias, or topics and qrels files):
    its source and the counts a reader checks first.

    >>> source, counts = collection_stats(topics=demo_path / "collections/core17/topics.txt",
    ...                                   qrels=demo_path / "collections/core17/qrels.txt")
    >>> counts["topics"], counts["judged_topics"]
    (50, 50)
    """
    from pathlib import Path

    from leakeval_core.analysis.collection_stats import collection_summary
    from leakeval_core.errors import LeakevalError
    from leakeval_core.experiment.collections import load_collection
    from leakeval_core.experiment.manifest import CollectionSpec

    if name and (topics or qrels):
        raise LeakevalError("give an ir_datasets id or topics and qrels files, not both")
    if name:
        spec = CollectionSpec(name, ir_datasets=name)
    elif topics and qrels:
        spec = CollectionSpec("local", topics=Path(topics), qrels=Path(qrels))
    else:
        raise LeakevalError("give an ir_datasets id (e.g. robust04) or both topics and qrels")
    collection = load_collection(spec)
    return collection.source, collection_summary(collection.topics, collection.qrels)


def grade_counts(qrels):
    """Judgments per relevance grade."""
    from leakeval_core.analysis.collection_stats import grade_counts as counts

    return counts(qrels)
