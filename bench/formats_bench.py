"""One large run read in each format leakeval reads: wall time and peak memory against the
TREC reader on the same run.

    .venv/bin/python bench/formats_bench.py [--lines 10000000]

The run (Robust04's topics, judged documents first) is written as a TREC run, MTEB v2
predictions, ranx's indented JSON, JSON lines and a PyTerrier frame as Parquet and as TSV.
Each is read by `trec.read_run_table` (format detected from the content) in a fresh process
set up as `leakeval score` sets itself up (`release_memory_promptly`), whose peak RSS above
its RSS before reading is the figure. Writes bench/results/formats_bench.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
QRELS = ROOT.parent / "shared" / "realdata" / "robust04" / "qrels.txt"

from leakeval_core.io import trec  # noqa: E402

READ = """
import resource, sys, time
sys.path.insert(0, {root!r})
from leakeval_core.io.allocator import release_memory_promptly
release_memory_promptly(reuse_small_blocks=True)  # as `leakeval score` does, before pyarrow
from leakeval_core.io import trec
def rss():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmRSS:")) / 1024
base = rss()
start = time.perf_counter()
table = trec.read_run_table({path!r})
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base
print(seconds, peak, table.num_rows)
"""


def blocks(lines: int, qrels):
    """Per query: its id, document ids (judged first) and descending scores."""
    rng = np.random.default_rng(0)
    pools = {q: g.docid.to_numpy(dtype=str) for q, g in qrels.groupby("qid")}
    per_query = lines // len(pools)
    for qid, judged in pools.items():
        filler = np.char.add("DOC-", np.arange(per_query).astype(str))
        docs = np.concatenate([judged, filler])[:per_query]
        yield qid, docs, np.round(np.sort(rng.random(per_query))[::-1], 6)


def write_all(folder: Path, lines: int, qrels) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = {
        "trec": folder / "run.trec",
        "mteb": folder / "Task_predictions.json",
        "ranx": folder / "run.ranx.json",
        "jsonl": folder / "run.jsonl",
        "pyterrier-parquet": folder / "run.parquet",
        "pyterrier-tsv": folder / "run.tsv",
    }
    handles = {k: open(p, "w") for k, p in paths.items() if k != "pyterrier-parquet"}  # noqa: SIM115
    writer = None
    handles["mteb"].write('{"mteb_model_meta": {"model_name": "m", "revision": "r"}, ')
    handles["mteb"].write('"default": {"test": {')
    handles["ranx"].write("{\n")
    handles["pyterrier-tsv"].write("qid\tdocno\tscore\trank\n")
    for i, (qid, docs, scores) in enumerate(blocks(lines, qrels)):
        text = scores.astype(str)
        trec_lines = np.char.add(np.char.add(f"{qid} Q0 ", docs), " 0 ")
        handles["trec"].write("\n".join(np.char.add(trec_lines, np.char.add(text, " b"))) + "\n")
        entries = np.char.add(np.char.add('"', docs), np.char.add('": ', text))
        sep = "" if i == 0 else ", "
        handles["mteb"].write(f'{sep}"{qid}": {{' + ", ".join(entries) + "}")
        sep = "" if i == 0 else ",\n"
        handles["ranx"].write(f'{sep}    "{qid}": {{\n        ' + ",\n        ".join(entries))
        handles["ranx"].write("\n    }")
        records = np.char.add(f'{{"qid": "{qid}", "docid": "', docs)
        records = np.char.add(np.char.add(records, '", "score": '), np.char.add(text, "}"))
        handles["jsonl"].write("\n".join(records) + "\n")
        rows = np.char.add(np.char.add(f"{qid}\t", docs), np.char.add("\t", text))
        rows = np.char.add(np.char.add(rows, "\t"), np.arange(len(docs)).astype(str))
        handles["pyterrier-tsv"].write("\n".join(rows) + "\n")
        table = pa.table(
            {
                "qid": [qid] * len(docs),
                "docno": docs,
                "score": scores,
                "rank": np.arange(len(docs)),
            }
        )
        writer = writer or pq.ParquetWriter(paths["pyterrier-parquet"], table.schema)
        writer.write_table(table)
    handles["mteb"].write("}}}\n")
    handles["ranx"].write("\n}\n")
    for handle in handles.values():
        handle.close()
    writer.close()
    return paths


def read(path: Path) -> dict[str, float]:
    code = READ.format(root=str(ROOT), path=str(path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, peak, rows = done.stdout.split()
    return {"seconds": float(seconds), "peak_mb": float(peak), "rows": int(rows)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000_000)
    args = parser.parse_args()
    qrels = trec.read_qrels(QRELS)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_all(Path(tmp), args.lines, qrels)
        for kind, path in paths.items():
            figures = read(path)
            figures["megabytes"] = path.stat().st_size / 1e6
            results[kind] = figures
            print(f"{kind}: {json.dumps(figures)}")
    trec_peak = results["trec"]["peak_mb"]
    for figures in results.values():
        figures["peak_vs_trec"] = figures["peak_mb"] / trec_peak
    record.write("formats_bench", results, config=vars(args) | {"qrels": str(QRELS)})


if __name__ == "__main__":
    main()
