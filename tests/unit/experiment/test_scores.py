import pandas as pd

from leakeval_core.analysis.folds import per_query
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.experiment.cache import Cache
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.experiment.scores import score_experiment
from tests.support import MISMATCHED, mismatched_experiment, write

QRELS = "".join(f"{q} 0 d{d} {int(d < 3)}\n" for q in range(1, 5) for d in range(6))


def run_text(qids, good_first=True):
    lines = []
    for q in qids:
        docs = range(6) if good_first else reversed(range(6))
        lines += [f"{q} Q0 d{d} {r + 1} {10 - r} m" for r, d in enumerate(docs)]
    return "\n".join(lines) + "\n"


def folds_experiment(tmp_path, folds):
    write(tmp_path / "t.txt", "".join(f"{q}\tquery {q}\n" for q in range(1, 5)))
    write(tmp_path / "q.txt", QRELS)
    for fold, (qids, good) in folds.items():
        write(tmp_path / f"runs/m/fold{fold}.run", run_text(qids, good))
    write(
        tmp_path / "experiment.toml",
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[runs]\npattern = "runs/{model}/fold{fold}.run"\n',
    )
    return load_experiment(tmp_path)


def test_split_folds_concatenate_and_fill_missing_with_zero(tmp_path):
    exp = folds_experiment(tmp_path, {1: ([1, 2], True), 2: ([3], False)})
    results = score_experiment(exp, ["P_1"], cache=Cache(tmp_path / "cache"))
    table = per_query(results, "P_1")
    assert table.fold_rule == "split"
    assert dict(zip(table.table.qid, table.table.value, strict=True)) == {
        "1": 1.0,
        "2": 1.0,
        "3": 0.0,
        "4": 0.0,
    }
    assert table.missing.missing.tolist() == [1]
    dropped = score_experiment(
        exp, ["P_1"], Conventions(missing="drop"), cache=Cache(tmp_path / "cache")
    )
    assert per_query(dropped, "P_1").table.qid.tolist() == ["1", "2", "3"]


def test_a_query_no_fold_ranks_has_its_measures_nothing_to_credit(tmp_path):
    """Filled as the scorer fills a query its run misses: 0 on P, no first relevant rank
    (NaN, left out of the mean) on first_rel_rank, with or without a level of its own."""
    exp = folds_experiment(tmp_path, {1: ([1, 2], True), 2: ([3], False)})
    names = ["P_1", "first_rel_rank", "first_rel_rank(rel=1)"]
    results = score_experiment(exp, names, cache=Cache(tmp_path / "cache"))
    filled = {name: per_query(results, name).table.set_index("qid").value for name in names}
    assert filled["P_1"]["4"] == 0.0
    assert pd.isna(filled["first_rel_rank"]["4"]) and pd.isna(filled["first_rel_rank(rel=1)"]["4"])
    assert filled["first_rel_rank"]["3"] == filled["first_rel_rank(rel=1)"]["3"] == 4.0


def test_repeated_folds_average_per_query(tmp_path):
    exp = folds_experiment(tmp_path, {1: ([1, 2, 3, 4], True), 2: ([1, 2, 3, 4], False)})
    results = score_experiment(exp, ["P_1"], cache=Cache(tmp_path / "cache"))
    table = per_query(results, "P_1")
    assert table.fold_rule == "repeated"
    assert table.table.value.tolist() == [0.5] * 4
    kept = per_query(results, "P_1", rule="none")
    assert len(kept.table) == 8 and "fold" in kept.factors


def test_broken_run_is_listed_and_the_rest_score(tmp_path):
    exp = folds_experiment(tmp_path, {1: ([1, 2], True), 2: ([3], True)})
    write(tmp_path / "runs/m/fold2.run", "3 Q0 d1 1 oops m\n")
    results = score_experiment(exp, ["P_1"], cache=Cache(tmp_path / "cache"))
    assert len(results.failures) == 1
    assert results.failures.error.iat[0].endswith("fold2.run:1: score 'oops' is not a number")
    assert sorted(results.table.qid.unique()) == ["1", "2"]


def test_warm_cache_returns_the_same_table_and_edits_invalidate(tmp_path):
    exp = folds_experiment(tmp_path, {1: ([1, 2], True), 2: ([3, 4], True)})
    cache = Cache(tmp_path / "cache")
    cold = score_experiment(exp, ["P_1", "ndcg_cut_10"], cache=cache)
    warm = score_experiment(exp, ["P_1", "ndcg_cut_10"], cache=cache)
    pd.testing.assert_frame_equal(
        cold.table, warm.table, check_dtype=False, check_categorical=False
    )
    write(tmp_path / "runs/m/fold2.run", run_text([3, 4], good_first=False))
    edited = score_experiment(exp, ["P_1"], cache=cache)
    assert per_query(edited, "P_1").table.value.tolist() == [1.0, 1.0, 0.0, 0.0]


def test_hundred_runs_one_broken_ninety_nine_scored(tmp_path):
    write(tmp_path / "t.txt", "".join(f"{q}\tquery {q}\n" for q in range(1, 5)))
    write(tmp_path / "q.txt", QRELS)
    for i in range(100):
        write(tmp_path / f"runs/m{i:03d}/fold1.run", run_text([1, 2, 3, 4], i % 2 == 0))
    write(tmp_path / "runs/m042/fold1.run", "1 Q0 d0 1 1.0 m\n1 Q0 d0 2 0.5 m\n")
    write(
        tmp_path / "experiment.toml",
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[runs]\npattern = "runs/{model}/fold{fold}.run"\n',
    )
    results = score_experiment(load_experiment(tmp_path), ["P_1"], cache=Cache(tmp_path / "c"))
    assert results.failures.model.tolist() == ["m042"]
    assert "fold1.run:2: docid 'd0' appears twice" in results.failures.error.iat[0]
    assert results.table.model.nunique() == 99


def test_scoring_warnings_name_a_few_runs_count_the_rest_and_survive_the_cache(tmp_path):
    """Five runs in another id space: three are named, one sentence counts the other two
    (`leakeval scores` names all five); the warm cache gives the same sentences, the
    measures at 0 everywhere included."""
    root = mismatched_experiment(tmp_path / "x")
    mine = (root / "runs" / "mine.run").read_text()
    for i in range(2, 6):
        write(root / "runs" / f"mine{i}.run", mine)
    cache = Cache(tmp_path / "cache")
    cold = score_experiment(load_experiment(root), ["ndcg_cut_10", "P_1"], cache=cache)
    warm = score_experiment(load_experiment(root), ["ndcg_cut_10", "P_1"], cache=cache)
    runs = ["runs/mine.run", *(f"runs/mine{i}.run" for i in range(2, 6))]
    judged = [MISMATCHED.replace("runs/mine.run", run) for run in runs]
    zero = [f"{run}: P_1 is 0 on all 12 queries." for run in runs]
    for scored in (cold, warm):
        assert scored.scoring_warnings("ndcg_cut_10") == (
            *judged[:3],
            "2 more runs have warnings like these: `leakeval scores` prints every one.",
        )
        every = scored.scoring_warnings(limit=None)
        assert every == tuple(w for pair in zip(judged, zero, strict=True) for w in pair)
        assert per_query(scored, "P_1").scoring_warnings[:2] == (judged[0], zero[0])
