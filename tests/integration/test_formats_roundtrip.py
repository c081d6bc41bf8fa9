"""Real Robust04 files written out in the benchmarks' formats give the TREC files' figures:
every measure per query, the comparisons and the audit."""

from __future__ import annotations

import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.evaluation.measures import ALL_TREC
from leakeval_core.io import query_files, trec
from tests import formats as fmt
from tests.support import realdata

MEASURES = [m for m in ALL_TREC if m not in ("runid", "relstring")]


@pytest.fixture(scope="module")
def trec_files(tmp_path_factory):
    """Robust04's qrels and topics, BM25 (its five folds' runs as one) and BM25+RM3."""
    folder = tmp_path_factory.mktemp("trec")
    bm25 = pd.concat(
        [
            trec.read_run(realdata("robust04", "runs", f"bm25.top150.fold{i}.run"))
            for i in range(1, 6)
        ]
    )
    path = folder / "bm25.run"
    path.write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} bm25\n" for q, d, s in bm25.itertuples(index=False))
    )
    return {
        "qrels": realdata("robust04", "qrels.txt"),
        "topics": realdata("robust04", "topics.txt"),
        "runs": {"bm25": path, "rm3": realdata("robust04", "runs", "bm25-rm3.top1000.run")},
    }


@pytest.fixture(scope="module")
def formats(trec_files, tmp_path_factory):
    """The same data as each format holds it: name -> (qrels, runs)."""
    folder = tmp_path_factory.mktemp("formats")
    qrels = trec.read_qrels(trec_files["qrels"])
    topics = query_files.read_topics(trec_files["topics"])
    runs = {name: trec.read_run(path) for name, path in trec_files["runs"].items()}
    beir = fmt.write_beir(folder / "beir", topics, qrels)
    mteb = {n: fmt.write_mteb(folder / f"{n}_predictions.json", r) for n, r in runs.items()}
    ranx = {n: fmt.write_ranx(folder / f"{n}.ranx.json", r, "score") for n, r in runs.items()}
    terrier = {n: fmt.pyterrier_run(r) for n, r in runs.items()}
    (folder / "pt").mkdir()
    for name, frame in terrier.items():
        frame.to_parquet(folder / "pt" / f"{name}.parquet")
    fmt.pyterrier_qrels(qrels).to_csv(folder / "pt" / "qrels.csv", index=False)
    return {
        "beir+mteb": (beir, mteb),
        "ranx": (fmt.write_ranx(folder / "qrels.ranx.json", qrels, "grade"), ranx),
        "pyterrier frames": (fmt.pyterrier_qrels(qrels), terrier),
        "pyterrier files": (
            folder / "pt" / "qrels.csv",
            {n: folder / "pt" / f"{n}.parquet" for n in runs},
        ),
    }


@pytest.fixture(scope="module")
def expected(trec_files):
    qrels, runs = trec_files["qrels"], trec_files["runs"]
    return figures(qrels, runs)


def figures(qrels, runs) -> dict[str, pd.DataFrame]:
    leaked = [str(q) for q in range(301, 451) if q % 3 == 0]  # a fixed third of the topics
    scores = api.score(qrels, runs, MEASURES).table
    compare = api.compare(qrels, runs, baseline="bm25", measure="ndcg_cut_10").table
    audit = api.audit(qrels, runs, baseline="bm25", leakage=leaked, measure="ndcg_cut_10")
    return {"scores": scores, "compare": compare, "audit": audit.table}


@pytest.mark.parametrize("kind", ["beir+mteb", "ranx", "pyterrier frames", "pyterrier files"])
def test_every_format_gives_the_trec_files_figures(formats, expected, kind):
    qrels, runs = formats[kind]
    got = figures(qrels, runs)
    order = ["run", "qid", "measure"]
    pd.testing.assert_frame_equal(
        got["scores"].sort_values(order).reset_index(drop=True),
        expected["scores"].sort_values(order).reset_index(drop=True),
    )
    assert len(expected["scores"].qid.unique()) == 249
    for table in ("compare", "audit"):  # the collection is named after the qrels' file
        pd.testing.assert_frame_equal(
            got[table].drop(columns="collection"), expected[table].drop(columns="collection")
        )
        assert len(got[table]) == 1


def test_the_beir_folder_holds_the_topics(formats, trec_files):
    beir, _ = formats["beir+mteb"]
    topics = query_files.read_topics(trec_files["topics"])
    got = query_files.read_topics(beir)
    assert got.qid.tolist() == topics.qid.tolist()
    assert got.title.tolist() == topics.title.tolist()
