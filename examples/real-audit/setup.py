"""Lays out the real-audit example: the public runs and the study's judged near-duplicates.

    python examples/real-audit/setup.py REALDATA_DIR     (a folder laid out like ../shared/realdata)

Runs (linked, or for Robust04's BM25 joined from its five fold files, never committed):
  runs/robust04/bm25.run            BM25 top-150 (Georgetown-IR-Lab/cedr)
  runs/robust04/bm25-rm3.run        Anserini BM25+RM3, title queries (capreolus)
  runs/core18/bm25.run              Anserini BM25 (webis-de/SPIRE-22)
  runs/core18/bm25-rm3.run          Pyserini BM25+RM3, title queries (capreolus)
  runs/core18/bm25-rm3-desc.run     Pyserini BM25+RM3, description queries (capreolus)
Leakage (written from the judgments leakeval ships, leakeval_core/demo/source, MIT):
  judged-pairs.csv    every judged (topic, training query) pair, method "judged":
                      near_duplicate (and similarity) 1 for a near-duplicate, 0 for a
                      look-alike of another need; leaked as judged, at any threshold
  judged-topics.csv   the topics those judgments cover: the even-numbered Robust04 and
                      Core 2018 topics (the development half); odd ones were not judged here
Your own model: put its runs at runs/<collection>/<name>.run and reopen the app.
"""

from __future__ import annotations

import csv
import re
import sys
from importlib import resources
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLLECTIONS = ("robust04", "core18")


def link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.exists():
        target.unlink()
    target.symlink_to(source)


def topic_ids(name: str) -> list[str]:
    text = resources.files("leakeval_core.demo").joinpath(f"source/{name}-topics.txt").read_text()
    return re.findall(r"<num>\s*Number:\s*(\d+)", text)


def main(realdata: Path) -> None:
    runs = HERE / "runs"
    folds = sorted((realdata / "robust04" / "runs").glob("bm25.top150.fold*.run"))
    joined = runs / "robust04" / "bm25.run"
    joined.parent.mkdir(parents=True, exist_ok=True)
    if joined.is_symlink():
        joined.unlink()
    joined.write_text("".join(path.read_text() for path in folds))
    link(
        realdata / "robust04" / "runs" / "bm25-rm3.top1000.run", runs / "robust04" / "bm25-rm3.run"
    )
    link(realdata / "core18" / "runs" / "bm25.top1000.run", runs / "core18" / "bm25.run")
    link(
        realdata / "core18" / "runs" / "bm25-rm3-title.top1000.run",
        runs / "core18" / "bm25-rm3.run",
    )
    link(
        realdata / "core18" / "runs" / "bm25-rm3-desc.top1000.run",
        runs / "core18" / "bm25-rm3-desc.run",
    )
    covered = {name: {q for q in topic_ids(name) if int(q) % 2 == 0} for name in COLLECTIONS}
    with open(HERE / "judged-topics.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["collection", "qid"])
        for name in COLLECTIONS:
            writer.writerows((name, q) for q in sorted(covered[name], key=int))
    judged = resources.files("leakeval_core.demo").joinpath("source/judged-queries.tsv")
    with judged.open() as source, open(HERE / "judged-pairs.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            [
                "collection",
                "test_qid",
                "train_qid",
                "train_text",
                "method",
                "similarity",
                "near_duplicate",
                "category",
            ]
        )
        for row in csv.DictReader(source, delimiter="\t"):
            for name in COLLECTIONS:
                if row["topic"] in covered[name]:
                    near = row["near_duplicate"] == "1"
                    writer.writerow(
                        [
                            name,
                            row["topic"],
                            row["train_qid"],
                            row["train_text"],
                            "judged",
                            1.0 if near else 0.0,
                            int(near),
                            row["title_relation"] if near else "",
                        ]
                    )
    print(f"laid out {HERE}; topics and qrels come from ir_datasets", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
