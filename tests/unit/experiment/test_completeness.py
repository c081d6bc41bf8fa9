"""Which conditions lack a run their design expects: small designs written by hand."""

from __future__ import annotations

from itertools import product

from leakeval_core.experiment.completeness import completeness
from leakeval_core.experiment.manifest import load_experiment
from tests.support import write

PATTERN = "runs/{collection}/{model}/{leakage}/{train_size}/fold{fold}.run"


def experiment(root, runs, pattern=PATTERN, collections=("c1",)):
    """An experiment whose runs are empty files at these run ids (completeness never reads
    them)."""
    sections = "".join(
        f'[collections.{name}]\ntopics = "t.txt"\nqrels = "q.txt"\n' for name in collections
    )
    write(root / "t.txt", "")
    write(root / "q.txt", "")
    write(
        root / "experiment.toml",
        f'{sections}[design]\nfold = "fold"\n[runs]\npattern = "{pattern}"\n'
        if "{fold}" in pattern
        else f'{sections}[runs]\npattern = "{pattern}"\n',
    )
    for run_id in runs:
        write(root / run_id, "")
    return load_experiment(root)


def grid(models=("colbert", "monot5"), leakage=("leaked", "none"), sizes=(2000, 4000, 8000),
         folds=range(1, 6), collection="c1"):  # fmt: skip
    return {
        f"runs/{collection}/{m}/{k}/{s}/fold{f}.run"
        for m, k, s, f in product(models, leakage, sizes, folds)
    }


def test_a_full_grid_is_complete(tmp_path):
    found = completeness(experiment(tmp_path, grid()))
    assert found.complete and found.statements() == () and found.problems() == []


def test_a_missing_fold_is_named_by_its_path(tmp_path):
    runs = grid() - {"runs/c1/colbert/leaked/2000/fold1.run"}
    found = completeness(experiment(tmp_path, runs))
    assert found.conditions() == [
        {"collection": "c1", "model": "colbert", "leakage": "leaked", "train_size": 2000}
    ]
    assert found.gaps[0].missing == ("runs/c1/colbert/leaked/2000/fold1.run",)
    assert found.problems()[0].startswith("runs/c1/colbert/leaked/2000/fold1.run: missing")
    (left_out,) = found.statements()
    assert "left out of every figure" in left_out and "--allow-incomplete" in left_out
    key = ("c1", "colbert", "leaked", 2000)
    (computed,) = found.statements({key: (50, 250)})
    assert "computed anyway" in computed and "lacks 50 of its 250 queries" in computed


def test_the_missing_path_is_spelt_as_the_files_spell_their_levels(tmp_path):
    runs = {f"runs/c1/m/none/1000/fold{f:02d}.run" for f in range(1, 6)}
    runs |= {f"runs/c1/m/none/2000/fold{f:02d}.run" for f in (1, 2, 3, 5)}
    found = completeness(experiment(tmp_path, runs))
    assert found.gaps[0].missing == ("runs/c1/m/none/2000/fold04.run",)


def test_a_run_without_folds_beside_folded_ones_is_complete(tmp_path):
    """`fold1.run` is how a run without folds is laid out (examples/real-bm25)."""
    runs = {f"runs/c1/bm25/none/0/fold{f}.run" for f in range(1, 6)}
    runs |= {"runs/c1/monot5/none/0/fold1.run"}
    assert completeness(experiment(tmp_path, runs)).complete


def test_folds_are_compared_within_a_collection_only(tmp_path):
    runs = grid(collection="c1") | grid(folds=(1, 2, 3), collection="c2")
    assert completeness(experiment(tmp_path, runs, collections=("c1", "c2"))).complete


def test_a_whole_condition_missing_inside_the_grid_lacks_its_neighbours_folds(tmp_path):
    runs = grid() - grid(models=("colbert",), leakage=("leaked",), sizes=(4000,))
    found = completeness(experiment(tmp_path, runs))
    (gap,) = found.gaps
    assert dict(gap.levels)["train_size"] == 4000
    assert gap.missing == tuple(f"runs/c1/colbert/leaked/4000/fold{f}.run" for f in range(1, 6))


def test_designs_that_are_not_full_factorial_are_not_flagged(tmp_path):
    """A baseline trained on nothing has no leaked twin (at every size, or at size 0), a
    2×2 with one empty cell looks just like it, and a line missing whole is not a hole."""
    baseline_at_every_size = grid() | grid(models=("bm25",), leakage=("none",))
    baseline_at_zero = grid() | grid(models=("bm25",), leakage=("none",), sizes=(0,))
    two_by_two = grid(sizes=(2000,)) - grid(models=("colbert",), leakage=("leaked",))
    line_missing = grid() - grid(models=("colbert",), leakage=("leaked",))
    for i, runs in enumerate([baseline_at_every_size, baseline_at_zero, two_by_two, line_missing]):
        assert completeness(experiment(tmp_path / str(i), runs)).complete, i


def test_collections_may_hold_different_models(tmp_path):
    runs = {"runs/c1/bm25.run", "runs/c1/rm3.run", "runs/c2/bm25.run"}
    pattern = "runs/{collection}/{model}.run"
    assert completeness(experiment(tmp_path, runs, pattern, ("c1", "c2"))).complete


def test_a_broken_run_breaks_its_condition_and_a_collection_breaks_as_one(tmp_path):
    exp = experiment(tmp_path, grid(sizes=(2000,)))
    bad = "runs/c1/colbert/none/2000/fold3.run"
    found = completeness(exp, {bad: f"{bad}:7: expected 6 columns"})
    (gap,) = found.gaps
    assert gap.missing == () and gap.broken == (f"{bad}:7: expected 6 columns",)
    assert found.statements()[0].startswith("Broken condition collection=c1, model=colbert")
    assert found.problems() == []  # validate reports unreadable runs itself
    why = "collection 'c1' could not be loaded: q.txt:1: bad"
    whole = completeness(exp, dict.fromkeys((r["run_id"] for r in exp.runs), why))
    assert len(whole.gaps) == 4
    (statement,) = whole.statements()
    assert statement.startswith("4 conditions on c1 are broken: " + why)


def test_the_gap_at_a_conditions_levels(tmp_path):
    runs = grid() - {"runs/c1/monot5/none/8000/fold5.run"}
    found = completeness(experiment(tmp_path, runs))
    levels = {"collection": "c1", "model": "monot5", "leakage": "none", "train_size": 8000}
    assert found.gap_at(levels) is found.gaps[0]
    assert found.gap_at({**levels, "train_size": 4000}) is None
