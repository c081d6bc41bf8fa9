"""The dashboard on an experiment whose collection is a BEIR folder: its topics, its
documents' text from corpus.jsonl, and uploads in the benchmarks' formats."""

from __future__ import annotations

import gzip
import json

import pytest

from tests import formats as fmt


@pytest.fixture
def beir_app(open_app, tmp_path):
    root = fmt.beir_experiment(tmp_path / "data" / "beir-study")
    return lambda page: open_app(root.parent, tmp_path / "cache", page), root


def test_the_dataset_browser_shows_a_beir_corpus_text(beir_app):
    app, _ = beir_app
    at = app("app_pages/datasets.py")
    assert not at.exception, [e.value for e in at.exception]
    texts = [area.value for area in at.text_area]
    assert any("Title of d1" in text for text in texts), texts


@pytest.mark.parametrize("kind", ["mteb", "ranx-gz", "pyterrier-csv"])
def test_an_upload_in_a_benchmarks_format_is_scored(beir_app, tmp_path, kind):
    from tests.app.apptest import open_tab

    app, _ = beir_app
    run = fmt.RUN
    data = {
        "mteb": json.dumps({"mteb_model_meta": {}, "default": {"test": run}}).encode(),
        "ranx-gz": gzip.compress(json.dumps(run, indent=2).encode()),
        "pyterrier-csv": (
            "qid,docid,docno,rank,score,query\n"
            + "".join(
                f"{q},{i},{d},{i},{s},text\n"
                for q, docs in run.items()
                for i, (d, s) in enumerate(docs.items())
            )
        ).encode(),
    }[kind]
    at = app("app_pages/datasets.py")
    open_tab(at, "datasets_tab", "Score your own run")
    at.file_uploader[0].set_value((f"mine.{kind}", data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.main.error, [e.value for e in at.main.error]
    tables = [frame.value for frame in at.dataframe if "measure" in frame.value.columns]
    assert tables and tables[-1]["mean"].notna().all()


def test_an_uploaded_evaluation_is_taken_as_published(beir_app):
    """A trec_eval -q file uploaded where a run goes: its values as they are, on the
    measures it carries."""
    from tests.app.apptest import open_tab, widget

    app, _ = beir_app
    lines = [f"{m}\tq{q}\t{v}" for q in range(1, 7) for m, v in (("P_10", 0.1 * q), ("map", 0.5))]
    data = "\n".join(["runid\tall\tmine", *lines, "P_10\tall\t0.3500"]).encode()
    at = app("app_pages/datasets.py")
    open_tab(at, "datasets_tab", "Score your own run")
    at.file_uploader[0].set_value(("mine.eval", data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    (table,) = [frame.value for frame in at.dataframe if "measure" in frame.value.columns]
    assert dict(zip(table.measure, table["mean"], strict=True)) == pytest.approx(
        {"AP": 0.5, "P@10": 0.35}
    )
    assert [e.value for e in at.main.error] == [
        "leakeval: the uploaded values hold no nDCG@10; they carry AP, P@10: choose one of "
        "them as the measure"
    ]
    widget(at.sidebar.selectbox, "measure").set_value("P_10").run()
    assert not at.exception and not at.main.error, [e.value for e in at.main.error]
