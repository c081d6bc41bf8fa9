"""The demo generator: what it writes, and that the demo tells the study's story."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from leakeval_core.analysis.folds import per_query
from leakeval_core.demo.generator import MODELS, TRAIN_SIZES, generate_demo
from leakeval_core.io.query_files import read_queries, read_topics
from leakeval_core.io.trec import read_qrels

pytestmark = pytest.mark.demo


def digest(root):
    h = hashlib.blake2b()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


@pytest.mark.slow
def test_the_same_seed_regenerates_the_same_bytes_in_place_of_the_whole_folder(tmp_path):
    from leakeval_core.demo.generator import MARKER

    demo = generate_demo(tmp_path / "demo")
    first = digest(demo)
    (demo / "stray.txt").write_text("x")
    assert generate_demo(demo) == demo  # a demo it wrote (the marker says so) is replaced
    assert (demo / MARKER).is_file() and not (demo / "stray.txt").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp folder left
    assert digest(demo) == first


def test_collections_are_shaped_like_the_real_ones(demo_experiment):
    for name, n_topics in {"robust04": 250, "core17": 50, "core18": 50}.items():
        spec = demo_experiment.collections[name]
        assert len(read_topics(spec.topics)) == n_topics
        qrels = read_qrels(spec.qrels)
        assert set(qrels.grade.unique()) == {0, 1, 2}
        judged = qrels.groupby("qid").size()
        relevant = qrels[qrels.grade > 0].groupby("qid").size()
        assert judged.min() >= 150 and judged.max() < 700
        assert relevant.min() >= 3 and relevant.max() <= 400


def test_training_log_and_ground_truth(demo_experiment):
    train = read_queries(demo_experiment.training_queries)
    truth = pd.read_csv(demo_experiment.ground_truth, dtype=str)
    assert len(train) == 40_000
    assert truth.train_qid.isin(train.qid).all()
    per_topic = truth.groupby(["collection", "test_qid"]).size()
    assert per_topic.between(1, 5).all()
    assert set(truth.category) == {"identical", "reformulation", "specialization", "generalization"}
    share = per_topic.groupby(level="collection").size() / pd.Series(
        {"robust04": 250, "core17": 50, "core18": 50}
    )
    assert share.between(0.6, 0.85).all(), share


def leakage_deltas(demo_experiment, demo_scores):
    truth = pd.read_csv(demo_experiment.ground_truth, dtype=str)
    leaked = set(zip(truth.collection, truth.test_qid, strict=True))
    table = per_query(demo_scores, "ndcg_cut_10").table
    table["leaked_topic"] = [
        (c, q) in leaked for c, q in zip(table.collection, table.qid, strict=True)
    ]
    wide = table.pivot_table(
        index=["collection", "model", "train_size", "qid", "leaked_topic"],
        columns="leakage",
        values="value",
    ).reset_index()
    wide["delta"] = wide.leaked - wide.none
    return wide


def test_leaked_topics_gain_and_gain_shrinks_with_train_size(demo_experiment, demo_scores):
    wide = leakage_deltas(demo_experiment, demo_scores)
    by_size = wide.groupby(["leaked_topic", "train_size"]).delta.mean()
    gains = by_size.loc[True].reindex(TRAIN_SIZES).to_numpy()
    assert gains[0] > 0.05
    assert np.all(np.diff(gains) < 0), gains
    assert np.abs(by_size.loc[False].to_numpy()).max() < 0.015


def test_model_ranking_changes_at_2000(demo_experiment, demo_scores):
    table = per_query(demo_scores, "ndcg_cut_10").table
    means = table.groupby(["train_size", "leakage", "model"]).value.mean()

    def ranking(size, leakage):
        return means.loc[(size, leakage)].sort_values(ascending=False).index.tolist()

    assert ranking(2000, "none") != ranking(2000, "leaked")
    assert ranking(32000, "none") == ranking(32000, "leaked")
    assert sorted(ranking(2000, "none")) == sorted(MODELS)


def test_candidate_lists_contain_unjudged_documents(demo_scores):
    judged = demo_scores.table.query("measure == 'judged_10'").value.mean()
    assert 0.5 < judged < 0.9


def test_the_generator_refuses_to_replace_what_it_did_not_write(tmp_path):

    from leakeval_core.errors import LeakevalError

    mine = tmp_path / "mine"
    (mine / "data.txt").parent.mkdir()
    (mine / "data.txt").write_text("keep me")
    with pytest.raises(LeakevalError, match="something leakeval did not write is in the way"):
        generate_demo(mine)
    link = tmp_path / "link"
    link.symlink_to(mine)
    with pytest.raises(LeakevalError, match="a symlink is in the way"):
        generate_demo(link)
    assert (mine / "data.txt").read_text() == "keep me" and link.is_symlink()
