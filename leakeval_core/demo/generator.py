"""A deterministic, clearly labelled *simulated* leakage study on the real TREC topics.

It exists so the dashboard can be demonstrated and tested without licensed data. The topic
texts are the real Robust04, Core17 and Core18 topics, and the topics the leakage study's
annotators found near-duplicates for carry those real training queries (`source/`, with
their origins and licenses). Everything else (judgments, runs, the rest of the training log)
comes from one seed. The planted effect mirrors Fröbe et al. (SPIRE 2022):
- about 70% of topics have near-duplicates among 40k training queries;
- under `leakage = leaked`, re-rankers score higher on exactly those topics, by an amount
  proportional to the leaked share of the training data (1000 / train_size);
- topics without a near-duplicate differ between leakage levels only by training noise;
- models memorise to different degrees, so at train_size 2000 the model ranking changes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from leakeval_core.demo.precomputed import DEMO_METHOD, precompute
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.scores import Progress
from leakeval_core.io.query_files import read_topics
from leakeval_core.io.trec import write_qrels
from leakeval_core.leakage.labels import LABEL_COLUMNS
from leakeval_core.leakage.relations import CATEGORIES
from leakeval_core.leakage.text import content_terms, normalize

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


SOURCE = Path(__file__).parent / "source"
"""The real topic texts and judged training queries the demo is built on (see its README)."""

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
        if seed == DEMO_SEED:  # what is shipped was detected in this seed's demo
            precompute(tmp)
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
    topics = _real_topics()
    judged = _judged_queries()
    # the collections share topics (Core17's are Robust04's, as are half of Core18's): a
    # topic leaks, and has its near-duplicates, in every collection that has it
    unique = topics.drop_duplicates("qid").reset_index(drop=True)
    unique["leaked"] = _leaked(unique, judged, rng)
    topics["leaked"] = topics.qid.map(unique.set_index("qid").leaked)
    planted = _planted_duplicates(unique, judged, rng)
    truth = (
        topics[["collection", "qid"]]
        .merge(planted.drop(columns="collection"), left_on="qid", right_on="test_qid")
        .drop(columns="qid")
    )
    lookalikes = judged[judged.near_duplicate == "0"].train_text
    train = _training_queries(topics, truth, lookalikes, subjects, rng)
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
    _labels(topics, judged, train).to_csv(root / "leakage" / "labels.tsv", sep="\t", index=False)

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
        shutil.copyfile(SOURCE / f"{collection}-topics.txt", folder / "topics.txt")
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
    (root / "experiment.toml").write_text(
        _MANIFEST.replace("{method}", DEMO_METHOD), encoding="utf-8"
    )


def _real_topics() -> pd.DataFrame:
    """collection, qid, title, description, narrative of the real topics, in file order."""
    return pd.concat(
        [
            read_topics(SOURCE / f"{name}-topics.txt").assign(collection=name)
            for name in _COLLECTIONS
        ],
        ignore_index=True,
    )[["collection", "qid", "title", "description", "narrative"]]


def _judged_queries() -> pd.DataFrame:
    return pd.read_csv(SOURCE / "judged-queries.tsv", sep="\t", dtype=str, keep_default_na=False)


def _leaked(topics: pd.DataFrame, judged: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
    """Topics with a confirmed near-duplicate are leaked; the others at the rate that makes
    the share about LEAK_RATE, as in the study."""
    confirmed = topics.qid.isin(judged[judged.near_duplicate == "1"].topic).to_numpy()
    rest = (~confirmed).sum()
    rate = max(0.0, (LEAK_RATE * len(topics) - confirmed.sum()) / max(rest, 1))
    return confirmed | (rng.random(len(topics)) < rate)


def _planted_duplicates(
    topics: pd.DataFrame, judged: pd.DataFrame, rng: np.random.Generator
) -> pd.DataFrame:
    """The near-duplicates planted in the log: the annotators' confirmed queries where the
    topic has them, else 1-5 written from its title in each category's form."""
    confirmed = judged[judged.near_duplicate == "1"].groupby("topic")
    real = {topic: group for topic, group in confirmed}
    rows = []
    for t in topics[topics.leaked].itertuples():
        if t.qid in real:
            group = real[t.qid]
            rows += [
                (t.collection, t.qid, t.title, text, relation)
                for text, relation in zip(group.train_text, group.title_relation, strict=True)
            ]
            continue
        title = normalize(pd.Series([t.title])).iat[0]
        terms = [w for w in title.split() if content_terms(w)]
        for category in rng.choice(CATEGORIES, size=rng.integers(1, 6)):
            if category == "generalization" and len(terms) < 2:
                category = "specialization"  # a one-word title has nothing to drop
            if category == "identical":
                text = t.title.strip() if rng.random() < 0.5 else title
            elif category == "reformulation":
                text = f"{rng.choice(['what is', 'what are'])} {title}"
            elif category == "specialization":  # a restriction the title lacks
                extra = [x for x in _SPECIALISERS if not content_terms(x) <= set(terms)]
                text = f"{title} {rng.choice(extra)}"
            else:
                text = " ".join(terms[:-1])
            rows.append((t.collection, t.qid, t.title, text, category))
    truth = pd.DataFrame(
        rows, columns=["collection", "test_qid", "test_text", "train_text", "category"]
    )
    return truth.drop_duplicates(["collection", "test_qid", "train_text"]).reset_index(drop=True)


def _labels(topics: pd.DataFrame, judged: pd.DataFrame, train: pd.DataFrame) -> pd.DataFrame:
    """The annotators' judgments of the demo's Robust04 topics, as labelled pairs
    (leakeval_core.leakage.labels), their queries under the demo log's qids. Only Robust04:
    the collections share topic ids, and the format has no collection.

    Nothing is fitted on these here: they exist so the leakage page can show detection
    quality (in-sample for the hybrid, which was fitted on the same judgments).
    """
    part = topics[topics.collection == "robust04"].set_index("qid")
    labels = judged[judged.topic.isin(part.index)].copy()
    labels["train_qid"] = labels.train_text.map(dict(zip(train.text, train.qid, strict=True)))
    for column in ("title", "description", "narrative"):
        labels[column] = labels.topic.map(part[column])
    return labels.sort_values(["topic", "train_qid"], kind="stable")[list(LABEL_COLUMNS)]


def _training_queries(
    topics: pd.DataFrame,
    truth: pd.DataFrame,
    lookalikes: pd.Series,
    subjects: list[str],
    rng: np.random.Generator,
) -> pd.DataFrame:
    """40k log-like queries: the planted near-duplicates, the judged look-alikes, and
    random ones.

    A random query that is itself a near-duplicate of some topic (its content terms contain
    the topic title's) is dropped, so the planted pairs are the only near-duplicates.
    """
    known = pd.concat([truth.train_text, lookalikes], ignore_index=True).drop_duplicates()
    n_random = N_TRAINING_QUERIES - len(known)
    templates = rng.choice(_RANDOM_TEMPLATES, size=n_random * 3)
    subj = rng.choice(subjects, size=n_random * 3)
    asp = rng.choice(_ASPECTS, size=n_random * 3)
    places = rng.choice(_PLACES, size=n_random * 3)
    texts = pd.Series(
        [t.format(s=s, a=a, x=x) for t, s, a, x in zip(templates, subj, asp, places, strict=True)]
    )
    titles_by_term: dict[str, list[frozenset[str]]] = {}
    for title in normalize(topics.title):
        terms = content_terms(title)
        if terms:
            titles_by_term.setdefault(min(terms), []).append(terms)
    clash = np.fromiter(
        (
            any(title <= terms for term in terms for title in titles_by_term.get(term, ()))
            for terms in map(content_terms, texts)
        ),
        bool,
    )
    texts = texts[~clash & ~texts.isin(known)].drop_duplicates().head(n_random)
    all_texts = pd.concat([known, texts], ignore_index=True)
    qids = rng.choice(np.arange(1_000_000, 9_999_999), size=len(all_texts), replace=False)
    train = pd.DataFrame({"qid": qids.astype(str), "text": all_texts.to_numpy()})
    return train.sample(frac=1.0, random_state=int(rng.integers(1 << 31))).reset_index(drop=True)


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
description = \"\"\"SIMULATED runs and judgments generated by `leakeval demo` on the real \
Robust04 (250 topics), Core17 (50) and Core18 (50) topics: not real retrieval results. Three \
re-rankers trained with and without 1000 leaked queries mixed into 2k-32k training queries; \
the leaked topics' training queries are the ones the SPIRE 2022 annotators confirmed, where \
they judged the topic; 5-fold cross-validation over topics.\"\"\"
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
method = "{method}"
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
