"""A deterministic, clearly labelled *simulated* leakage study.

It exists so the dashboard can be demonstrated and tested without licensed data. Everything
comes from one seed. The planted effect mirrors Fröbe et al. (SPIRE 2022):
- about 70% of topics have 1-5 near-duplicates among 40k training queries;
- under `leakage = leaked`, re-rankers score higher on exactly those topics, by an amount
  proportional to the leaked share of the training data (1000 / train_size);
- topics without a near-duplicate differ between leakage levels only by training noise;
- models memorise to different degrees, so at train_size 2000 the model ranking changes.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.scores import Progress
from leakeval_core.io.trec import write_qrels
from leakeval_core.leakage.labels import LABEL_COLUMNS
from leakeval_core.leakage.text import content_terms

__all__ = ["DEMO_SEED", "LEAKED_QUERIES", "MODELS", "TRAIN_SIZES", "generate_demo"]

DEMO_SEED = 2022
TRAIN_SIZES = (2000, 4000, 8000, 16000, 32000)
LEAKED_QUERIES = 1000
N_TRAINING_QUERIES = 40_000
DEPTH = 100
LEAK_RATE = 0.7
_UNJUDGED = 1500  # documents per topic that pooling never judged (so they count as non-relevant)
_BM25_SIGNAL = 1.2
_RERANK_SIGNAL = 1.1

# name: (ranking skill, memorisation of leaked queries)
MODELS = {"monobert": (1.00, 0.55), "monot5": (1.12, 0.25), "colbert": (0.92, 1.25)}
_COLLECTIONS = {"robust04": 250, "core17": 50, "core18": 50}

_ADJECTIVES = [
    "solar",
    "nuclear",
    "coastal",
    "urban",
    "rural",
    "industrial",
    "genetic",
    "antarctic",
    "tropical",
    "migrant",
    "child",
    "prison",
    "organic",
    "wireless",
    "offshore",
    "military",
    "arctic",
    "volcanic",
    "digital",
    "airline",
    "railway",
    "forest",
    "ocean",
    "desert",
    "space",
    "medical",
    "wildlife",
    "border",
    "river",
    "mountain",
]
_NOUNS = [
    "energy",
    "pollution",
    "farming",
    "workers",
    "erosion",
    "fishing",
    "mining",
    "tourism",
    "research",
    "policy",
    "safety",
    "reform",
    "disasters",
    "housing",
    "education",
    "trade",
    "labor",
    "health",
    "transport",
    "security",
    "conservation",
    "technology",
    "insurance",
    "development",
    "flooding",
    "wildfires",
    "drilling",
    "exploration",
    "satellites",
    "vaccines",
]
_ASPECTS = (
    "regulation",
    "in europe",
    "health effects",
    "costs",
    "accidents",
    "legislation",
    "protests",
    "statistics",
    "lawsuits",
    "funding",
    "history",
    "environmental impact",
    "economic impact",
    "corruption",
    "subsidies",
    "new technology",
    "international cooperation",
)
_RANDOM_TEMPLATES = (
    "what is {s}",
    "how does {s} work",
    "{s} {a}",
    "{a} of {s}",
    "{s} near me",
    "best {s} companies",
    "{s} definition",
    "is {s} safe",
    "{s} jobs",
    "history of {s}",
    "{s} salary",
    "why is {s} important",
    "{a} {s} pdf",
    "{s} {x}",
    "{s} in {x}",
    "{x} {s} {a}",
    "{s} {a} {x}",
    "how much does {s} cost in {x}",
)
_PLACES = (
    "2018",
    "2019",
    "2020",
    "california",
    "texas",
    "uk",
    "india",
    "canada",
    "australia",
    "florida",
    "wiki",
    "reddit",
    "ohio",
    "germany",
    "japan",
)
_SPECIALISERS = ("2019", "in the us", "news", "report", "uk", "today", "pdf")
_CATEGORIES = ("identical", "reformulation", "specialization", "generalization")


MARKER = ".leakeval-demo"
"""A file the generator puts in every demo it writes: only such a folder is ever replaced."""


def generate_demo(out: str | Path, seed: int = DEMO_SEED, progress: Progress | None = None) -> Path:
    """Write the demo experiment to `out`, replacing an earlier demo whole; returns the folder.

    It never deletes or overwrites anything it did not create: a symlink, a file, or a folder
    without the demo's marker at `out` is refused with a LeakevalError. The demo is built in
    a temp folder beside `out` and renamed into place, so an interrupted run never leaves a
    half-written demo that looks complete.
    """
    out = Path(out).absolute()
    if out.is_symlink() or (out.exists() and not (out / MARKER).is_file()):
        what = "a symlink" if out.is_symlink() else "something leakeval did not write"
        raise LeakevalError(
            f"{out}: {what} is in the way; leakeval only replaces a demo it generated. "
            "Move it, or generate the demo elsewhere (leakeval demo --out DIR)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        _write_demo(tmp, np.random.default_rng(seed), progress)
        (tmp / MARKER).write_text("generated by `leakeval demo`; safe to replace\n")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return out


def _write_demo(root: Path, rng: np.random.Generator, progress: Progress | None) -> None:
    subjects = [f"{a} {n}" for a in _ADJECTIVES for n in _NOUNS]
    picked = rng.choice(len(subjects), size=sum(_COLLECTIONS.values()), replace=False)
    topic_subjects = [subjects[i] for i in picked]
    topic_aspects = [_ASPECTS[i] for i in rng.integers(len(_ASPECTS), size=len(picked))]
    qids = _topic_ids(rng)

    topics = pd.DataFrame(
        {
            "collection": np.repeat(list(_COLLECTIONS), list(_COLLECTIONS.values())),
            "qid": qids,
            "subject": topic_subjects,
            "aspect": topic_aspects,
        }
    )
    topics["title"] = topics.subject + " " + topics.aspect
    topics["leaked"] = rng.random(len(topics)) < LEAK_RATE

    truth = _planted_duplicates(topics, rng)
    train = _training_queries(topics, truth, subjects, rng)
    truth = truth.assign(
        train_qid=truth.train_text.map(dict(zip(train.text, train.qid, strict=True))),
        method="ground truth",
        similarity=1.0,
    )
    (root / "train").mkdir()
    train[["qid", "text"]].to_csv(
        root / "train" / "queries.tsv", sep="\t", header=False, index=False
    )
    (root / "leakage").mkdir()
    truth.to_csv(root / "leakage" / "ground_truth.csv", index=False)
    _labels(topics, truth, train).to_csv(root / "leakage" / "labels.tsv", sep="\t", index=False)

    tasks = [
        (c, m, lv, ts)
        for c in _COLLECTIONS
        for m in MODELS
        for lv in ("none", "leaked")
        for ts in TRAIN_SIZES
    ]
    done = 0
    for collection, n_topics in _COLLECTIONS.items():
        part = topics[topics.collection == collection].reset_index(drop=True)
        folder = root / "collections" / collection
        folder.mkdir(parents=True)
        _write_topics(part, folder / "topics.txt")
        pools = _pools(part, rng)
        write_qrels(pools[pools.grade >= 0][["qid", "docid", "grade"]], folder / "qrels.txt")
        candidates = _bm25_candidates(pools, n_topics, rng)
        folds = np.arange(n_topics) % 5 + 1
        rng.shuffle(folds)
        for model, (skill, memory) in MODELS.items():
            for train_size in TRAIN_SIZES:
                noise = rng.normal(0.0, 1.0, candidates.grade.shape)
                for leakage in ("none", "leaked"):
                    scores = _rerank(
                        candidates,
                        part.leaked.to_numpy(),
                        skill,
                        memory,
                        train_size,
                        leakage,
                        noise,
                        rng,
                    )
                    for fold in range(1, 6):
                        path = root / "runs" / collection / model / leakage / str(train_size)
                        path.mkdir(parents=True, exist_ok=True)
                        rows = np.flatnonzero(folds == fold)
                        _write_run_matrix(
                            part.qid.to_numpy()[rows],
                            candidates.docid[rows],
                            scores[rows],
                            path / f"fold{fold}.run",
                            model,
                        )
                    done += 1
                    if progress:
                        progress(done, len(tasks), f"{collection}/{model}/{leakage}/{train_size}")
    (root / "experiment.toml").write_text(_MANIFEST, encoding="utf-8")


def _topic_ids(rng: np.random.Generator) -> list[str]:
    robust = [*range(301, 451), *range(601, 701)]
    core17 = sorted(rng.choice(robust[:150], size=50, replace=False).tolist())
    core18 = sorted(rng.choice(robust, size=50, replace=False).tolist())
    return [str(q) for q in (*robust, *core17, *core18)]


def _planted_duplicates(topics: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for t in topics[topics.leaked].itertuples():
        for category in rng.choice(_CATEGORIES, size=rng.integers(1, 6)):
            if category == "identical":
                text = t.title if rng.random() < 0.5 else t.title.lower()
            elif category == "reformulation":
                text = rng.choice(  # the same words asked another way (leakage.text)
                    [
                        f"list of {t.subject} {t.aspect}",
                        f"what are the {t.aspect} of {t.subject}",
                        f"{t.aspect} of {t.subject} information",
                    ]
                )
            elif category == "specialization":
                text = f"{t.title} {rng.choice(_SPECIALISERS)}"
            else:
                text = t.subject
            rows.append((t.collection, t.qid, t.title, text, category))
    truth = pd.DataFrame(
        rows, columns=["collection", "test_qid", "test_text", "train_text", "category"]
    )
    return truth.drop_duplicates(["collection", "test_qid", "train_text"]).reset_index(drop=True)


def _labels(topics: pd.DataFrame, truth: pd.DataFrame, train: pd.DataFrame) -> pd.DataFrame:
    """Robust04's planted pairs as labelled pairs (leakeval_core.leakage.labels), with one
    look-alike per topic as a negative: the first log query (by qid) that names the topic's
    subject without being planted ("what is rural exploration" for "rural exploration
    funding"). Only Robust04: the demo's collections reuse topic ids, and the format has none.

    Nothing is fitted on these: they exist so the leakage page can show detection quality.
    """
    part = topics[topics.collection == "robust04"].set_index("qid")
    texts = {qid: _topic_texts(row.subject, row.aspect) for qid, row in part.iterrows()}
    planted = truth[truth.collection == "robust04"]
    positives = pd.DataFrame(
        {
            "topic": planted.test_qid,
            "train_qid": planted.train_qid,
            "train_text": planted.train_text,
            "title_relation": planted.category,
            "near_duplicate": 1,
        }
    )
    by_subject = {}
    words = train.text.str.split()
    for qid, text, tokens in zip(train.qid, train.text, words, strict=True):
        for pair in itertools.pairwise(tokens):
            by_subject.setdefault(" ".join(pair), []).append((qid, text))
    taken = set(truth.train_text)
    negatives = []
    for qid, row in part.iterrows():
        found = sorted(q for q in by_subject.get(row.subject, []) if q[1] not in taken)
        if found:
            negatives.append((qid, *found[0], "different", 0))
    columns = ["topic", "train_qid", "train_text", "title_relation", "near_duplicate"]
    labels = pd.concat([positives, pd.DataFrame(negatives, columns=columns)], ignore_index=True)
    labels["title"] = labels.topic.map(part.title)
    labels["description"] = labels.topic.map(lambda q: texts[q][0])
    labels["narrative"] = labels.topic.map(lambda q: texts[q][1])
    labels["variant"] = ""
    labels["variant_relation"] = ""
    return labels.sort_values(["topic", "train_qid"], kind="stable")[list(LABEL_COLUMNS)]


def _topic_texts(subject: str, aspect: str) -> tuple[str, str]:
    """A demo topic's description and narrative."""
    return (
        f"Identify documents that discuss {aspect} related to {subject}.",
        f"A relevant document reports on {aspect} of {subject}. Documents that mention "
        f"{subject} only in passing are not relevant.",
    )


def _training_queries(
    topics: pd.DataFrame, truth: pd.DataFrame, subjects: list[str], rng: np.random.Generator
) -> pd.DataFrame:
    """40k log-like queries: the planted near-duplicates plus random ones.

    Random queries may share a topic's subject (hard negatives), but a random query that is
    itself a near-duplicate of some topic (its content terms contain the topic title's, or
    equal the bare subject) is dropped, so the planted pairs are the only near-duplicates.
    """
    n_random = N_TRAINING_QUERIES - len(truth)
    templates = rng.choice(_RANDOM_TEMPLATES, size=n_random * 3)
    subj = rng.choice(subjects, size=n_random * 3)
    asp = rng.choice(_ASPECTS, size=n_random * 3)
    places = rng.choice(_PLACES, size=n_random * 3)
    texts = pd.Series(
        [t.format(s=s, a=a, x=x) for t, s, a, x in zip(templates, subj, asp, places, strict=True)]
    )
    titles_by_subject: dict[str, list[frozenset[str]]] = {}
    for subject, title in zip(topics.subject, topics.title, strict=True):
        titles_by_subject.setdefault(subject, []).append(content_terms(title))
    clash = np.fromiter(
        (
            content_terms(text) == content_terms(s)
            or any(title <= content_terms(text) for title in titles_by_subject.get(s, ()))
            for text, s in zip(texts, subj, strict=True)
        ),
        bool,
    )
    texts = texts[~clash & ~texts.isin(truth.train_text)].drop_duplicates().head(n_random)
    all_texts = pd.concat([truth.train_text, texts], ignore_index=True).drop_duplicates()
    qids = rng.choice(np.arange(1_000_000, 9_999_999), size=len(all_texts), replace=False)
    train = pd.DataFrame({"qid": qids.astype(str), "text": all_texts.to_numpy()})
    return train.sample(frac=1.0, random_state=int(rng.integers(1 << 31))).reset_index(drop=True)


def _write_topics(part: pd.DataFrame, path: Path) -> None:
    blocks = [
        f"<top>\n<num> Number: {t.qid}\n<title> {t.title}\n\n<desc> Description:\n"
        f"{description}\n\n<narr> Narrative:\n{narrative}\n</top>\n"
        for t in part.itertuples()
        for description, narrative in [_topic_texts(t.subject, t.aspect)]
    ]
    path.write_text("\n".join(blocks), encoding="utf-8")


def _pools(part: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Judged pools of 150-700 documents, 3-400 of them relevant, grades 0/1/2.

    Unjudged documents (grade -1 here, never written to the qrels) are added so the
    candidate lists contain what pooling missed.
    """
    frames = []
    for i, qid in enumerate(part.qid):
        n_judged = int(rng.integers(150, 700))
        n_rel = int(min(np.exp(rng.uniform(np.log(3), np.log(400))), 0.8 * n_judged))
        grades = np.zeros(n_judged + _UNJUDGED, dtype=np.int64)
        grades[:n_rel] = np.where(rng.random(n_rel) < 0.3, 2, 1)
        grades[n_judged:] = -1
        frames.append(
            pd.DataFrame(
                {
                    "topic": i,
                    "qid": qid,
                    "docid": [f"SIM-{qid}-{j:04d}" for j in range(len(grades))],
                    "grade": grades,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


class _Candidates(NamedTuple):
    """BM25-like top-100 per topic as (topics × 100) matrices."""

    docid: np.ndarray
    grade: np.ndarray


def _bm25_candidates(pools: pd.DataFrame, n_topics: int, rng: np.random.Generator) -> _Candidates:
    latent = np.clip(pools.grade.to_numpy(), 0, None)
    bm25 = _BM25_SIGNAL * latent + rng.normal(0.0, 1.0, len(pools))
    pools = pools.assign(bm25=bm25).sort_values(["topic", "bm25"], ascending=[True, False])
    top = pools.groupby("topic", sort=True).head(DEPTH)
    docid = top.docid.to_numpy().reshape(n_topics, DEPTH)
    grade = top.grade.to_numpy().reshape(n_topics, DEPTH)
    return _Candidates(docid, grade)


def _rerank(
    candidates: _Candidates,
    leaked: np.ndarray,
    skill: float,
    memory: float,
    train_size: int,
    leakage: str,
    noise: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Re-ranker scores: skill grows with training data; leaked topics gain under leakage."""
    latent = np.clip(candidates.grade, 0, None).astype(float)
    skill_at_size = skill * (1.0 + 0.06 * np.log2(train_size / TRAIN_SIZES[0]))
    scores = _RERANK_SIGNAL * skill_at_size * latent + noise + rng.normal(0.0, 0.25, noise.shape)
    if leakage == "leaked":
        share = LEAKED_QUERIES / train_size
        boost = 3.0 * memory * share * (latent > 0)
        scores = scores + boost * leaked[:, None]
    return scores


def _write_run_matrix(
    qids: np.ndarray, docids: np.ndarray, scores: np.ndarray, path: Path, tag: str
) -> None:
    order = np.argsort(-scores, axis=1, kind="stable")
    docids = np.take_along_axis(docids, order, axis=1)
    scores = np.take_along_axis(scores, order, axis=1)
    import pyarrow as pa
    import pyarrow.csv as pacsv

    n = docids.size
    ranks = np.tile(np.arange(1, docids.shape[1] + 1), (len(qids), 1))
    table = pa.table(
        {
            "qid": pa.array(np.repeat(qids, docids.shape[1]), pa.string()),
            "q0": pa.repeat("Q0", n),
            "docid": pa.array(docids.ravel(), pa.string()),
            "rank": ranks.ravel(),
            "score": np.round(scores.ravel(), 4),  # written in shortest form, e.g. 5.1122
            "tag": pa.repeat(tag, n),
        }
    )
    # pyarrow's writer: 450 run files in about a fifth of pandas' time
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, path, write_options=options)


_MANIFEST = """\
name = "Simulated leakage study (demo)"
description = \"\"\"SIMULATED data generated by `leakeval demo`: not real retrieval results. \
Three collections shaped like Robust04 (250 topics), Core17 (50) and Core18 (50); three \
re-rankers trained with and without 1000 leaked queries mixed into 2k-32k training queries; \
5-fold cross-validation over topics.\"\"\"
simulated = true

[collections.robust04]
topics = "collections/robust04/topics.txt"
qrels = "collections/robust04/qrels.txt"

[collections.core17]
topics = "collections/core17/topics.txt"
qrels = "collections/core17/qrels.txt"

[collections.core18]
topics = "collections/core18/topics.txt"
qrels = "collections/core18/qrels.txt"

[training_queries]
path = "train/queries.tsv"

[leakage]
ground_truth = "leakage/ground_truth.csv"
labels = "leakage/labels.tsv"

[design]
leakage = "leakage"
leaked = "leaked"
clean = "none"
size = "train_size"
system = "model"
fold = "fold"

[runs]
pattern = "runs/{collection}/{model}/{leakage}/{train_size}/fold{fold}.run"
"""
