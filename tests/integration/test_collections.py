import json
import os
import subprocess
import sys

import pytest

from leakeval_core.cli import main
from leakeval_core.experiment.collections import (
    ALIASES,
    document_text,
    load_collection,
    resolve_alias,
    topics_from,
)
from leakeval_core.experiment.manifest import CollectionSpec
from tests.support import IRDS_HOME, ROOT, realdata

needs_irds = pytest.mark.skipif(IRDS_HOME is None, reason="real data not available")

EXPECTED = {
    "robust04": (250, 249, 311_410, {0: 293_998, 1: 16_381, 2: 1_031}),
    "core17": (50, 50, 30_030, {0: 21_028, 1: 5_549, 2: 3_453}),
    "core18": (50, 50, 26_233, {0: 22_285, 1: 2_083, 2: 1_865}),
}


def test_aliases():
    assert resolve_alias("robust04") == "disks45/nocr/trec-robust-2004"
    assert resolve_alias("orcas") == "msmarco-document/orcas"
    assert resolve_alias("nyt/trec-core-2017") == "nyt/trec-core-2017"
    assert set(ALIASES) == {"robust04", "core17", "core18", "msmarco-train", "orcas"}


@needs_irds
@pytest.mark.parametrize("alias", list(EXPECTED))
def test_a_trec_qrels_file_is_read_as_ir_datasets_iterates_it(alias):
    """The qrels read from ir_datasets' file are the rows its iterator gives, in order."""
    import ir_datasets
    import pandas as pd

    from leakeval_core.experiment.collections import _trec_qrels_file

    dataset = ir_datasets.load(resolve_alias(alias))
    read = _trec_qrels_file(dataset.qrels_handler())
    assert read is not None
    iterated = pd.DataFrame(
        [(q.query_id, q.doc_id, int(q.relevance)) for q in dataset.qrels_iter()],
        columns=["qid", "docid", "grade"],
    ).astype({"qid": "str", "docid": "str", "grade": "int64"})
    pd.testing.assert_frame_equal(read.reset_index(drop=True), iterated)


@needs_irds
@pytest.mark.parametrize("alias", list(EXPECTED))
def test_real_collections_by_id(alias, capsys):
    topics, judged, qrels, grades = EXPECTED[alias]
    collection = load_collection(CollectionSpec(alias, ir_datasets=alias))
    assert len(collection.topics) == topics
    assert collection.qrels.qid.nunique() == judged
    assert len(collection.qrels) == qrels
    assert collection.qrels.grade.value_counts().to_dict() == grades
    assert main(["collection", "stats", alias, "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["topics"], stats["judged_topics"], stats["qrels"]) == (topics, judged, qrels)
    assert stats["grades"] == {str(g): n for g, n in grades.items()}


@needs_irds
def test_ir_datasets_and_files_agree():
    by_id = load_collection(CollectionSpec("core18", ir_datasets="core18"))
    by_file = load_collection(
        CollectionSpec(
            "core18", topics=realdata("core18", "topics.txt"), qrels=realdata("core18", "qrels.txt")
        )
    )
    assert by_id.topics.qid.tolist() == by_file.topics.qid.tolist()
    assert by_id.topics.title.tolist() == by_file.topics.title.tolist()
    assert (
        by_id.qrels.sort_values(["qid", "docid"]).grade.tolist()
        == by_file.qrels.sort_values(["qid", "docid"]).grade.tolist()
    )
    assert len(topics_from("core18")) == 50


@needs_irds
def test_documents_absent_is_none_not_an_error():
    collection = load_collection(CollectionSpec("core17", ir_datasets="core17"))
    assert document_text(collection, "497476") is None  # how fast: bench/offline_bench.py


@needs_irds
def test_qrels_served_by_ir_datasets_are_keyed_by_their_content(tmp_path, monkeypatch):
    """The qrels file under IR_DATASETS_HOME edited in place (size and mtime kept): a warm
    cache gives what a fresh one gives, never the old numbers; and a reader is told."""
    from leakeval_core import api
    from leakeval_core.api import doors
    from leakeval_core.api.terms import Statistics
    from tests.support import edit_in_place

    experiment = tmp_path / "x"
    (experiment / "runs").mkdir(parents=True)
    (experiment / "runs" / "bm25.run").symlink_to(realdata("core17", "runs", "bm25.top1000.run"))
    (experiment / "experiment.toml").write_text(
        '[collections.core17]\nir_datasets = "core17"\n[runs]\npattern = "runs/{model}.run"\n'
    )
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "warm"))

    def mean() -> float:
        return api.experiment_scores(experiment, ["ndcg_cut_10"]).table.value.mean()

    qrels = IRDS_HOME / "nyt" / "trec-core-2017" / "qrels"
    original = qrels.read_bytes()
    before, seen = mean(), doors.snapshot(api.load_experiment(experiment))
    try:
        edit_in_place(qrels, " 2\n", " 0\n")  # the highly relevant judged not relevant
        warm = mean()
        monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "fresh"))
        assert warm == mean() != before
        assert doors.changes(
            seen, doors.snapshot(api.load_experiment(experiment)), Statistics()
        ) == ("The qrels of core17 changed: its scores are computed anew.",)
    finally:
        qrels.write_bytes(original)
    assert mean() == before


def test_offline_failure_is_fast_and_names_the_file(tmp_path):
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "irds")}
    out = subprocess.run(
        [sys.executable, "-m", "leakeval_core.cli", "collection", "stats", "core17"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,  # a bound, not a target: bench/offline_bench.py times it
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("leakeval: ")
    assert str(tmp_path / "irds" / "nyt" / "trec-core-2017" / "queries.txt") in lines[0]


def test_collection_list(capsys):
    assert main(["collection", "list"]) == 0
    assert "core18          wapo/v2/trec-core-2018" in capsys.readouterr().out


def test_stats_from_files(capsys):
    assert (
        main(
            [
                "collection",
                "stats",
                "--topics",
                str(realdata("core17", "topics.txt")),
                "--qrels",
                str(realdata("core17", "qrels.txt")),
                "--json",
            ]
        )
        == 0
    )
    stats = json.loads(capsys.readouterr().out)
    assert stats["relevant_per_topic"]["min"] >= 1 and stats["topics_without_relevant"] == 0


def test_real_example_scores_like_pytrec_eval(real_example, tmp_path, monkeypatch, capsys):
    import pandas as pd
    import pytrec_eval

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    assert main(["validate", str(real_example)]) == 0
    out = tmp_path / "scores.parquet"  # full precision, unlike the CSV's 6 digits
    assert (
        main(
            [
                "scores",
                str(real_example),
                "--measures",
                "ndcg_cut_10",
                "--depth",
                "1000",
                "--tie-order",
                "docid_desc",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    # the real BM25 runs judge nearly all of their top 10: no scoring warning, even at a
    # depth of 1000, where most of Core's documents are unjudged
    assert "leakeval: warning:" not in capsys.readouterr().err
    scores = pd.read_parquet(out)
    core17 = scores[scores.collection == "core17"].set_index("qid").value
    with (
        open(realdata("core17", "qrels.txt")) as q,
        open(realdata("core17", "runs", "bm25.top1000.run")) as r,
    ):
        reference = pytrec_eval.RelevanceEvaluator(
            pytrec_eval.parse_qrel(q), {"ndcg_cut_10"}
        ).evaluate(pytrec_eval.parse_run(r))
    assert len(core17) == 50
    for qid, value in core17.items():
        assert value == pytest.approx(reference[qid]["ndcg_cut_10"], abs=1e-9)


@pytest.mark.parametrize(
    "page",
    [
        "app_pages/datasets.py",
        "app_pages/leakage.py",
        "app_pages/queries.py",
        "app_pages/conditions.py",
    ],
)
def test_dashboard_opens_the_real_example(real_example, demo_cache, monkeypatch, page):
    """Every page on the real example, which detects with the most accurate installed method
    (hybrid-mpnet, the slowest) once: the session's cache is shared."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("LEAKEVAL_DATA", str(real_example.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not any("Simulated" in w.value for w in at.sidebar.warning)
