"""Writes the BEIR and MTEB example's inputs from real data, in the formats those tools write.

    python examples/beir-mteb/setup.py REALDATA_DIR    (a folder laid out like ../shared/realdata)

Nothing here is committed but this script and experiment.toml: the qrels, runs and MS MARCO
queries stay where the real data is, and are written anew, in these formats, on every run.

  robust04-beir/queries.jsonl, robust04-beir/qrels/test.tsv
        TREC Robust04 as a BEIR folder (BEIR's GenericDataLoader layout): the 250 topics'
        titles as query text, the official qrels as the test split. No corpus.jsonl: the
        documents are licensed, and leakeval reads the corpus only to show document text.
  predictions/bm25-rm3/Robust04_predictions.json
        "the model": the public Anserini BM25+RM3 run (capreolus), top 100 per query, as
        MTEB v2's `mteb.evaluate(..., prediction_folder="predictions/bm25-rm3")` saves a
        retrieval task's predictions:
        {"mteb_model_meta": {...}, "default": {"test": {qid: {docid: score}}}}.
  bm25.csv
        the baseline: the public BM25 run (Georgetown-IR-Lab/cedr's five folds, joined) as a
        PyTerrier result frame written with `to_csv`: qid, docid, docno, rank, score, query.
  predictions/bm25/Robust04_predictions.json
        the same BM25 run, top 100, as MTEB's saved predictions: the experiment
        (experiment.toml) finds every model's predictions by one pattern.
  train-queries.jsonl
        the training log: the real sample of MS MARCO document-train queries, one JSON
        object a line ({"_id", "text"}), as a BEIR or Hugging Face export writes them.

BM25+RM3 never saw MS MARCO, so this is a negative control: a sound audit finds nothing.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEPTH = 100
"""Documents kept per query of the model's predictions (leakeval scores the top 100)."""
TOPIC = re.compile(r"<num>\s*Number:\s*(\d+).*?<title>(.*?)\n\s*\n?<desc>", re.S)


def write_beir(realdata: Path, folder: Path) -> None:
    topics = (realdata / "robust04" / "topics.txt").read_text(encoding="utf-8")
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        for qid, title in TOPIC.findall(topics):
            fh.write(json.dumps({"_id": qid, "text": " ".join(title.split())}) + "\n")
    with (
        open(realdata / "robust04" / "qrels.txt", encoding="utf-8") as source,
        open(folder / "qrels" / "test.tsv", "w", encoding="utf-8") as fh,
    ):
        fh.write("query-id\tcorpus-id\tscore\n")
        for line in source:
            qid, _, docid, grade = line.split()
            fh.write(f"{qid}\t{docid}\t{grade}\n")


def trec_run(path: Path) -> dict[str, list[tuple[str, float]]]:
    """qid -> [(docid, score)] in the file's order."""
    run: dict[str, list[tuple[str, float]]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            qid, _, docid, _, score, _ = line.split()
            run.setdefault(qid, []).append((docid, float(score)))
    return run


def write_mteb(run: dict[str, list[tuple[str, float]]], model: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ranked = {qid: dict(sorted(docs, key=lambda d: -d[1])[:DEPTH]) for qid, docs in run.items()}
    data = {
        "mteb_model_meta": {"model_name": model, "revision": None},
        "default": {"test": ranked},
    }
    path.write_text(json.dumps(data), encoding="utf-8")


def write_pyterrier(run: dict[str, list[tuple[str, float]]], titles: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["qid", "docid", "docno", "rank", "score", "query"])
        row = 0
        for qid, docs in run.items():
            for rank, (docno, score) in enumerate(sorted(docs, key=lambda d: -d[1])):
                writer.writerow([qid, row, docno, rank, score, titles.get(qid, "")])
                row += 1


def write_queries(realdata: Path, path: Path) -> None:
    with (
        open(realdata / "msmarco" / "doctrain-queries.sample.csv", encoding="utf-8") as source,
        open(path, "w", encoding="utf-8") as fh,
    ):
        for row in csv.DictReader(source):
            fh.write(json.dumps({"_id": row["qid"], "text": row["query"]}) + "\n")


def main(realdata: Path) -> None:
    write_beir(realdata, HERE / "robust04-beir")
    titles = {}
    with open(HERE / "robust04-beir" / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            query = json.loads(line)
            titles[query["_id"]] = query["text"]
    runs = realdata / "robust04" / "runs"
    predictions = HERE / "predictions"
    rm3 = trec_run(runs / "bm25-rm3.top1000.run")
    write_mteb(rm3, "bm25-rm3", predictions / "bm25-rm3" / "Robust04_predictions.json")
    bm25: dict[str, list[tuple[str, float]]] = {}
    for fold in sorted(runs.glob("bm25.top150.fold*.run")):
        bm25.update(trec_run(fold))
    write_pyterrier(bm25, titles, HERE / "bm25.csv")
    write_mteb(bm25, "bm25", predictions / "bm25" / "Robust04_predictions.json")
    write_queries(realdata, HERE / "train-queries.jsonl")
    print(f"laid out {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
