"""What changed since the last look: files, and the family a correction runs over."""

import pytest

from leakeval_core import api
from leakeval_core.api import doors
from leakeval_core.api.terms import Statistics
from tests.support import baseline_experiment, edit_in_place, write


@pytest.fixture
def experiment(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    return baseline_experiment(tmp_path / "x")


def look(root):
    return doors.snapshot(api.load_experiment(root))


def audited_family(root) -> dict[str, int]:
    """Collection -> the audit's family size: what the sentence must agree with."""
    table = api.audit(root, measure="ndcg_cut_10").table
    return table.groupby("collection").family_size.max().to_dict()


def test_a_deleted_run_says_it_is_gone_and_what_the_family_is_now(experiment):
    before = look(experiment)
    assert audited_family(experiment) == {"a": 2, "b": 2}
    (experiment / "runs" / "b" / "bm25-rm3.run").unlink()
    after = look(experiment)
    assert doors.changes(before, after, Statistics()) == (
        "runs/b/bm25-rm3.run is gone.",
        "bm25-rm3 is gone from b: Bonferroni is now over 1 model.",
    )
    assert audited_family(experiment) == {"a": 2, "b": 1}
    assert after.fingerprint != before.fingerprint
    assert doors.changes(before, after, Statistics(correction="holm"))[1].endswith(
        "Holm is now over 1 model."
    )
    assert doors.changes(before, after, Statistics(correction="none"))[1].endswith(
        "1 model is now tested, with no correction."
    )


def test_a_run_added_joins_the_family(experiment):
    before = look(experiment)
    rm3 = (experiment / "runs" / "a" / "bm25-rm3.run").read_text()
    write(experiment / "runs" / "a" / "splade.run", rm3)
    assert doors.changes(before, look(experiment), Statistics()) == (
        "runs/a/splade.run appeared.",
        "splade joined a: Bonferroni is now over 3 models.",
    )
    assert audited_family(experiment) == {"a": 3, "b": 2}


def test_nothing_changed_says_nothing(experiment):
    assert doors.changes(look(experiment), look(experiment), Statistics()) == ()


def test_an_edit_keeping_size_and_mtime_gives_new_scores(experiment, hashes_kept_at_once):
    """Through the API: the disk cache is keyed by content, and the content hash of a file
    is kept per identity, which the edit's ctime changes."""

    def mean_of_bm25() -> float:
        table = api.experiment_scores(experiment, ["ndcg_cut_10"]).table
        return table[(table.collection == "a") & (table.model == "bm25")].value.mean()

    before, was = look(experiment), mean_of_bm25()
    assert mean_of_bm25() == was  # the same files: the same numbers (from the cache)
    run = experiment / "runs" / "a" / "bm25.run"
    edit_in_place(run, "Q0 d1-0 ", "Q0 d1-X ")  # a relevant document becomes an unjudged one
    now = mean_of_bm25()
    assert now < was
    assert doors.changes(before, look(experiment), Statistics()) == (
        "runs/a/bm25.run changed: its scores are computed anew.",
    )


def test_a_changed_qrels_and_pairs_file_are_named(experiment):
    before = look(experiment)
    qrels = experiment / "collections" / "b" / "qrels.txt"
    qrels.write_text(qrels.read_text().replace("1 0 d1-0 1", "1 0 d1-0 0"))
    pairs = experiment / "pairs.csv"
    pairs.write_text(pairs.read_text() + "a,7,t7,0.95\n")
    assert doors.changes(before, look(experiment), Statistics()) == (
        "The qrels of b changed: its scores are computed anew.",
        "The pairs (pairs.csv) changed: which topics are leaked is read anew.",
    )


def test_many_runs_are_counted_and_an_incomplete_twin_leaves_the_family(tmp_path):
    """Leaked and clean twins: a condition whose fold is gone is incomplete, so its pair
    leaves the family (a comparison, not a model)."""
    root = tmp_path / "x"
    write(root / "t.txt", "1\tsolar\n2\twind\n")
    write(root / "q.txt", "1 0 a 1\n2 0 b 1\n")
    for model in ("t5", "bert"):
        for leakage in ("leaked", "none"):
            for fold in (1, 2, 3):
                write(root / "runs" / model / leakage / f"fold{fold}.run", "1 Q0 a 1 2 x\n")
    write(
        root / "experiment.toml",
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[runs]\npattern = "runs/{model}/{leakage}/fold{fold}.run"\n',
    )
    before = look(root)
    assert before.family == {"c": ("model=bert", "model=t5")}
    for path in [root / "runs/t5/leaked/fold3.run", *(root / "runs/bert").rglob("*.run")]:
        path.unlink()
    assert doors.changes(before, look(root), Statistics()) == (
        "7 runs (runs/bert/leaked/fold1.run, runs/bert/leaked/fold2.run, "
        "runs/bert/leaked/fold3.run and 4 more) are gone.",
        "model=bert and model=t5 are gone from c: no comparison is left to test.",
    )
