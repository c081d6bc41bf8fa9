"""A BEIR folder as an experiment's collection: `beir = FOLDER`, `split = NAME`."""

from __future__ import annotations

import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.errors import ParseError
from leakeval_core.experiment.collections import document_text, load_collection
from leakeval_core.experiment.manifest import load_experiment
from tests import formats as fmt


@pytest.fixture
def study(tmp_path):
    return fmt.beir_experiment(tmp_path / "study")


def test_a_beir_folder_is_a_collection(study):
    experiment = load_experiment(study)
    spec = experiment.collections["scifact"]
    assert spec.beir == (study / "beir").resolve() and spec.split == "test"
    collection = load_collection(spec)
    assert collection.topics.qid.tolist() == list(fmt.RUN)
    assert collection.qrels.grade.dtype == "int64" and len(collection.qrels) == 12
    assert document_text(collection, "d3") == "Title of d3\n\nText of d3."
    assert document_text(collection, "nope") is None
    assert len(experiment.runs) == 2


def test_the_experiment_scores_as_its_files_do(study):
    """The experiment door gives what the API door gives on the same files."""
    qrels = study / "beir"
    runs = {"bm25": study / "runs" / "bm25.json", "mine": study / "runs" / "mine.json"}
    from_files = api.score(qrels, runs, ["ndcg_cut_10"]).means()
    scores = api.experiment_scores(load_experiment(study), ["ndcg_cut_10"]).table
    means = scores.groupby("model").value.mean()
    assert means.to_dict() == pytest.approx(from_files["ndcg_cut_10"].to_dict())
    comparison = api.compare(study, vary="model", baseline="bm25", measure="ndcg_cut_10")
    assert comparison.table[["a", "b"]].iloc[0].tolist() == ["mine", "bm25"]


def test_only_the_splits_queries_are_topics(study):
    """BEIR's queries.jsonl holds every split's queries."""
    dev = pd.DataFrame({"qid": ["q1"], "docid": ["d1"], "grade": [1]})
    dev.rename(columns={"qid": "query-id", "docid": "corpus-id", "grade": "score"}).to_csv(
        study / "beir" / "qrels" / "dev.tsv", sep="\t", index=False
    )
    text = (study / "experiment.toml").read_text().replace('"test"', '"dev"')
    (study / "experiment.toml").write_text(text)
    collection = load_collection(load_experiment(study).collections["scifact"])
    assert collection.topics.qid.tolist() == ["q1"]


@pytest.mark.parametrize(
    "lines, message",
    [
        (['beir = "beir"', 'ir_datasets = "beir/scifact/test"'], "it gives ir_datasets and beir"),
        (['ir_datasets = "robust04"', 'split = "dev"'], "split goes with beir = FOLDER"),
        (['beir = "beir"', 'split = "train"'], "has no qrels/train.tsv"),
        (['beir = "nowhere"'], "no such file"),
        (['beir = "beir"', "split = 3"], "must be a split's name"),
    ],
)
def test_a_wrong_beir_collection_is_one_clear_error(study, lines, message):
    manifest = study / "experiment.toml"
    head, _, tail = manifest.read_text().partition("[runs]")
    head = head.split("[collections.scifact]")[0] + "[collections.scifact]\n"
    manifest.write_text(head + "\n".join(lines) + "\n[runs]" + tail)
    with pytest.raises(ParseError, match=message) as caught:
        load_experiment(study)
    assert str(caught.value).startswith(str(manifest))
