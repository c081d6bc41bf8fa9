"""Writers of the benchmarks' own formats, for the tests that read them back.

Each writes what the tool itself writes (checked against their code): BEIR's folder, MTEB's
saved predictions (v1: the mapping; v2: wrapped with the model and per subset and split),
ranx's JSON, PyTerrier's frames, JSON lines, and a Hugging Face `save_to_disk` folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa


def nested(frame: pd.DataFrame, value: str) -> dict[str, dict[str, float | int]]:
    """qid -> docid -> value, in the frame's order."""
    out: dict[str, dict] = {}
    for qid, docid, v in zip(frame.qid, frame.docid, frame[value], strict=True):
        out.setdefault(str(qid), {})[str(docid)] = v.item() if hasattr(v, "item") else v
    return out


def write_beir(folder: Path, topics: pd.DataFrame, qrels: pd.DataFrame, split="test") -> Path:
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        for qid, title in zip(topics.qid, topics.title, strict=True):
            fh.write(json.dumps({"_id": qid, "text": title, "metadata": {}}) + "\n")
    body = qrels.rename(columns={"qid": "query-id", "docid": "corpus-id", "grade": "score"})
    body[["query-id", "corpus-id", "score"]].to_csv(
        folder / "qrels" / f"{split}.tsv", sep="\t", index=False
    )
    return folder


def write_corpus(folder: Path, docs: dict[str, tuple[str, str]]) -> None:
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for docid, (title, text) in docs.items():
            fh.write(json.dumps({"_id": docid, "title": title, "text": text}) + "\n")


def write_mteb(path: Path, run: pd.DataFrame, v2: bool = True, splits=("test",)) -> Path:
    """MTEB's `{Task}_predictions.json`: v2 wraps the mapping (`_save_task_predictions`)."""
    mapping = nested(run, "score")
    if v2:
        data = {"mteb_model_meta": {"model_name": "m", "revision": "r"}}
        data["default"] = {split: mapping for split in splits}
    else:
        data = mapping
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_ranx(path: Path, frame: pd.DataFrame, value: str) -> Path:
    """ranx's `Run.save` / `Qrels.save` as JSON: the mapping, indented."""
    path.write_text(json.dumps(nested(frame, value), indent=4), encoding="utf-8")
    return path


def pyterrier_run(run: pd.DataFrame) -> pd.DataFrame:
    """PyTerrier's result frame: qid, docid (its internal int), docno, rank, score, query."""
    frame = run.rename(columns={"docid": "docno"}).copy()
    frame["docid"] = range(len(frame))
    frame["rank"] = frame.groupby("qid").cumcount()
    frame["query"] = "text of " + frame.qid.astype(str)
    return frame[["qid", "docid", "docno", "rank", "score", "query"]]


def pyterrier_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    return qrels.rename(columns={"docid": "docno", "grade": "label"})


def write_hf(folder: Path, frame: pd.DataFrame, shards: int = 2) -> Path:
    """`Dataset.save_to_disk`: arrow IPC stream files, state.json lists them."""
    folder.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    names = []
    step = -(-table.num_rows // shards)
    for i in range(shards):
        name = f"data-{i:05d}-of-{shards:05d}.arrow"
        with (
            pa.OSFile(str(folder / name), "wb") as sink,
            pa.ipc.new_stream(sink, table.schema) as writer,
        ):
            writer.write_table(table.slice(i * step, step))
        names.append({"filename": name})
    (folder / "state.json").write_text(json.dumps({"_data_files": names, "_split": None}))
    (folder / "dataset_info.json").write_text(json.dumps({"features": {}}))
    return folder


RUN = {f"q{q}": {f"d{d}": float(10 - abs(q - d)) for d in range(1, 9)} for q in range(1, 7)}
"""A small run over q1..q6 and d1..d8 (each query's own-numbered document first)."""


def beir_experiment(root: Path) -> Path:
    """An experiment folder whose collection is a BEIR folder (with a corpus), and two MTEB
    prediction files as its runs (`runs/{model}.json`)."""
    topics = pd.DataFrame({"qid": list(RUN), "title": [f"query {q}" for q in RUN]})
    qrels = pd.DataFrame(
        [(q, f"d{int(q[1:]) + k}", 2 - k) for q in RUN for k in (0, 1)],
        columns=["qid", "docid", "grade"],
    )
    folder = write_beir(root / "beir", topics, qrels)
    write_corpus(folder, {f"d{d}": (f"Title of d{d}", f"Text of d{d}.") for d in range(1, 9)})
    (root / "runs").mkdir(parents=True)
    run = pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["qid", "docid", "score"],
    )
    write_mteb(root / "runs" / "mine.json", run)
    write_mteb(root / "runs" / "bm25.json", run.assign(score=-run.score), v2=False)
    (root / "experiment.toml").write_text(
        'name = "BEIR study"\n'
        "[collections.scifact]\n"
        'beir = "beir"\n'
        'split = "test"\n'
        "[runs]\n"
        'pattern = "runs/{model}.json"\n'
    )
    return root
