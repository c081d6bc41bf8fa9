"""The LEAKAGE table: which test topics have near-duplicates among the training queries.

One row per (test topic, training query) candidate pair. The pages only filter it by a
similarity threshold, so moving a slider never recomputes anything.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

import pandas as pd

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.experiment.cache import Cache, hash_key
from leakeval_core.experiment.manifest import MANIFEST, Experiment
from leakeval_core.experiment.scores import Progress
from leakeval_core.leakage import detection_options
from leakeval_core.leakage.detect import LEAKAGE_COLUMNS, TopicTexts, detect, topic_texts
from leakeval_core.leakage.detection_options import (
    METHODS,
    DetectionOptions,
    encoder_of,
    threshold_for,
)
from leakeval_core.leakage.devices import DEVICES, detection_source, ran_on
from leakeval_core.leakage.logs import LOG_SIZES, TrainingLog, known_log, sample_warnings
from leakeval_core.leakage.relations import CATEGORIES
from leakeval_core.leakage.rule import JUDGED, LeakageTable

__all__ = [
    "CATEGORIES",
    "JUDGED",
    "LEAKAGE_COLUMNS",
    "STUDY_SHARES",
    "LeakageTable",
    "agreement",
    "category_counts",
    "detect_leakage",
    "experiment_log",
    "experiment_method",
    "experiment_methods",
    "experiment_topic_texts",
    "ground_truth",
    "leak_share",
    "leakage_key",
    "leakage_warnings",
    "leaked_qids",
    "load_leakage",
]


STUDY_SHARES = {"robust04": 172 / 250, "core17": 37 / 50, "core18": 38 / 50}
"""Share of topics with a near-duplicate in MS MARCO / ORCAS (Fröbe et al., SPIRE 2022)."""


def load_leakage(
    experiment: Experiment,
    cache: Cache | None = None,
    progress: Progress | None = None,
    options: DetectionOptions | None = None,
    max_queries: int | None = None,
) -> LeakageTable:
    """The experiment's leakage pairs, from the first source it has.

    1. `[leakage] table`: pairs the user computed elsewhere;
    2. `[training_queries]`: detected here, cached by input content and options, with
       `experiment_method` unless `options` name one; a log of more than
       `max_queries` that is not cached yet is refused with the command that detects it
       elsewhere (the app's guard against blocking for minutes);
    3. `[leakage] ground_truth`: known pairs (the simulated demo's).
    """
    if experiment.leakage_table is None and experiment.training_queries is not None:
        return detect_leakage(experiment, cache, progress, options, max_queries=max_queries)
    path = experiment.leakage_table or experiment.ground_truth
    if path is None:
        return LeakageTable(pd.DataFrame(columns=LEAKAGE_COLUMNS), "none")
    return _read_pairs(experiment, path)


def experiment_method(experiment: Experiment, cache: Cache | None = None) -> str:
    """The method an experiment is detected with: its `[leakage] method` where this machine
    can give its pairs (`experiment_methods`), else the most accurate installed one. A name
    that is no method is an error in experiment.toml, located at its line."""
    named = experiment.detection_method
    if named is not None and named not in METHODS:
        raise _manifest_error(
            experiment, "method", f"leakage.method {named!r} is not one of {', '.join(METHODS)}"
        )
    return (
        named if named in experiment_methods(experiment, cache) else detection_options.best_method()
    )


def experiment_options(
    experiment: Experiment, cache: Cache | None = None, method: str | None = None
) -> DetectionOptions:
    """How an experiment is detected here: `method` or `experiment_method`'s, its encoder on
    `[leakage] device` (default `auto`). A name that is no device is an error in
    experiment.toml, located at its line."""
    device = experiment.detection_device or "auto"
    if device not in DEVICES:
        raise _manifest_error(
            experiment, "device", f"leakage.device {device!r} is not one of {', '.join(DEVICES)}"
        )
    return DetectionOptions(method=method or experiment_method(experiment, cache), device=device)


def _manifest_error(experiment: Experiment, key: str, why: str) -> ParseError:
    """`why`, at the first line of experiment.toml that sets `key`."""
    manifest = experiment.root / MANIFEST
    lines = manifest.read_text(encoding="utf-8").splitlines()
    line = next((i for i, t in enumerate(lines, 1) if t.strip().startswith(key)), None)
    return ParseError(manifest, line, why)


def experiment_methods(experiment: Experiment, cache: Cache | None = None) -> tuple[str, ...]:
    """The methods that can give this experiment's pairs here: those installed, and those
    whose pairs for these very inputs are already computed (in the cache, or shipped with the
    experiment, as the demo's are). So an installation without the semantic extra shows the
    demo with the method it names, and the same topics leaked, as every other one does."""
    installed = detection_options.available_methods()
    missing = [m for m in METHODS if m not in installed]
    if not missing or experiment.training_queries is None or experiment.leakage_table:
        return installed
    cache = Cache.of_experiment(experiment.root, cache)
    inputs = _inputs_digest(experiment)
    ready = {m for m in missing if cache.has("leakage", _key(inputs, DetectionOptions(method=m)))}
    return tuple(m for m in METHODS if m in installed or m in ready)


def detect_leakage(
    experiment: Experiment,
    cache: Cache | None = None,
    progress: Progress | None = None,
    options: DetectionOptions | None = None,
    fields: tuple[str, ...] = ("title", "description"),
    max_queries: int | None = None,
) -> LeakageTable:
    """Detect near-duplicates of every collection's topics in the training log, cached."""
    options = options or experiment_options(experiment, cache)
    from leakeval_core.experiment.collections import log_size, training_chunks

    source = experiment.training_queries
    cache = Cache.of_experiment(experiment.root, cache)
    key = leakage_key(experiment, options, fields)

    size = None  # counted only where the app asks: its bar then shows the real share done

    def build() -> tuple[pd.DataFrame, dict]:
        record = ran_on(encoder_of(options.method), options.device)  # before the long part
        side = experiment_topic_texts(experiment, fields)
        chunks = training_chunks(source, options.chunk_size)
        return detect(side, chunks, options, progress, size)[LEAKAGE_COLUMNS], record

    hit = cache.get("leakage", key)
    if hit is None and max_queries is not None:
        size = log_size(source, max_queries)
        if size is not None and size > max_queries:
            raise LeakevalError(
                f"the training log {source} holds more than {max_queries:,} queries, too many "
                "to detect in while you wait. Detect them on Dask: `leakeval leakage "
                f"--experiment {experiment.root} --dask --out {experiment.root}/pairs.csv`, "
                'then add `[leakage] table = "pairs.csv"` to experiment.toml'
            )
    table, record = hit if hit is not None else cache.get_or_build("leakage", key, build)
    name = source.name if isinstance(source, Path) else str(source)
    log = experiment_log(experiment)
    return LeakageTable(
        table,
        detection_source(options.method, name, record),
        method=options.method,
        defaults={options.method: threshold_for(options.method)},
        logs=() if log is None else (log,),
    )


def experiment_log(experiment: Experiment) -> TrainingLog | None:
    """The experiment's training log and what it stands for (`[training_queries]
    sample_of`), counted only when it declares one: an ir_datasets id stands for itself.
    A `sample_of` leakeval does not know the size of is an error at its line."""
    source = experiment.training_queries
    if source is None:
        return None
    name = source.name if isinstance(source, Path) else str(source)
    if experiment.sample_of is None:
        return TrainingLog(name)
    from leakeval_core.experiment.collections import log_size

    try:
        full = known_log(experiment.sample_of)
    except LeakevalError as exc:
        raise _manifest_error(experiment, "sample_of", str(exc)) from None
    return TrainingLog(name, log_size(source, LOG_SIZES[full]), full)


def leakage_key(
    experiment: Experiment,
    options: DetectionOptions,
    fields: tuple[str, ...] = ("title", "description"),
) -> str:
    """The cache key of an experiment's detected pairs: its log's and collections' content
    and every detection setting."""
    return _key(_inputs_digest(experiment), options, fields)


def _inputs_digest(experiment: Experiment) -> tuple[str, dict[str, str]]:
    """The content of what detection reads: hashing a large log is the costly part of a key,
    so a caller keying several methods does it once."""
    from leakeval_core.experiment.digests import collection_digest, source_digest

    return (
        source_digest(experiment.training_queries),
        {n: collection_digest(s) for n, s in experiment.collections.items()},
    )


def _key(
    inputs: tuple[str, dict[str, str]],
    options: DetectionOptions,
    fields: tuple[str, ...] = ("title", "description"),
) -> str:
    settings = {k: v for k, v in asdict(options).items() if k != "device"}
    return hash_key("leakage", *inputs, settings, fields)


def experiment_topic_texts(
    experiment: Experiment, fields: tuple[str, ...] = ("title", "description")
) -> TopicTexts:
    """The test side of detection: every collection's topics, labelled by collection."""
    from leakeval_core.experiment.collections import load_collection

    return TopicTexts.concat(
        [
            topic_texts(load_collection(spec).topics, fields, collection=name)
            for name, spec in experiment.collections.items()
        ]
    )


def _read_pairs(experiment: Experiment, path: Path) -> LeakageTable:
    """A `[leakage] table` or ground truth, read as every given pairs file is (`given.py`);
    pairs without a collection column belong to the only collection. Where its sidecar
    names no log, the experiment's declared `[training_queries]` is the one it came from."""
    from leakeval_core.leakage.given import read_pairs

    pairs = read_pairs(path)
    table = pairs.table
    if (table.collection == "").any():
        if len(experiment.collections) != 1:
            raise ParseError(path, 1, "leakage table needs a collection column")
        only = next(iter(experiment.collections))
        table = table.assign(collection=table.collection.replace("", only))
    log = experiment_log(experiment)
    source = (
        "ground truth of the simulated demo"
        if path == experiment.ground_truth and experiment.simulated
        else pairs.source
    )
    return replace(
        pairs,
        table=table,
        source=source,
        logs=pairs.logs or (() if log is None or log.sample_of is None else (log,)),
    )


def leaked_qids(leakage: LeakageTable, threshold: float | None = None) -> pd.DataFrame:
    """collection, qid of every leaked topic: judged pairs as judged, the others at
    `threshold` (the View's) or else their method's default (`rule.py`)."""
    return leakage.leaked(threshold)


def category_counts(leakage: LeakageTable, threshold: float | None = None) -> pd.DataFrame:
    pairs = leakage.table[leakage.reached(threshold)]
    counts = pairs.category.value_counts().reindex(list(CATEGORIES), fill_value=0)
    return pd.DataFrame({"category": counts.index, "pairs": counts.to_numpy()})


def leak_share(
    leakage: LeakageTable, topics: pd.DataFrame, threshold: float | None = None
) -> pd.DataFrame:
    """Per collection: topics, leaked topics, their share, and the study's share.

    `topics` has collection and qid columns: every topic of each collection.
    """
    if not {"collection", "qid"} <= set(topics.columns):
        raise LeakevalError("topics need collection and qid columns")
    flagged = topics.merge(
        leaked_qids(leakage, threshold).assign(leaked=True), on=["collection", "qid"], how="left"
    )
    flagged["leaked"] = flagged.leaked.notna()  # True where leaked_qids has the topic
    out = (
        flagged.groupby("collection", sort=True)
        .agg(topics=("qid", "size"), leaked=("leaked", "sum"))
        .reset_index()
    )
    out["share"] = out.leaked / out.topics
    out["study_share"] = out.collection.map(STUDY_SHARES)
    return out


def agreement(detected: LeakageTable, truth: LeakageTable, threshold: float) -> dict[str, float]:
    """Topic-level precision and recall of detected leakage against known pairs."""
    found = set(map(tuple, leaked_qids(detected, threshold).to_numpy()))
    known = set(map(tuple, leaked_qids(truth, 0.0).to_numpy()))
    hits = len(found & known)
    return {
        "flagged": len(found),
        "known": len(known),
        "precision": hits / len(found) if found else float("nan"),
        "recall": hits / len(known) if known else float("nan"),
    }


def ground_truth(experiment: Experiment) -> LeakageTable | None:
    """Known pairs (the demo writes them), to score detection against; None if absent."""
    if experiment.ground_truth is None:
        return None
    return _read_pairs(experiment, experiment.ground_truth)


def leakage_warnings(
    leakage: LeakageTable,
    topics: pd.DataFrame,
    threshold: float | None = None,
    relevance_level: int | None = None,
) -> list[str]:
    """The sentences every answer built on these pairs must carry (none: an empty list): what
    was wrong in the pairs file's unread fields, shared documents counted at another
    relevance level than `relevance_level`, a training log that is a sample of the log it
    stands for, and a known collection whose flagged share of `topics` (collection, qid) is
    below half the leakage study's."""
    if leakage.empty:
        return list(leakage.warnings)
    level = leakage.answers_level
    stale = (
        [
            f"the pairs' shared_relevant were counted at relevance level {level}, not at "
            f"{relevance_level} as every figure here: give the training qrels "
            "(--train-qrels, train_qrels=) to count them at it"
        ]
        if leakage.answered and None not in (level, relevance_level) and level != relevance_level
        else []
    )
    shares = leak_share(leakage, topics, threshold).dropna(subset=["study_share"])
    return [
        *leakage.warnings,
        *stale,
        *sample_warnings(
            leakage.logs, zip(shares.collection, shares.share, shares.study_share, strict=True)
        ),
    ]
