"""Every command and the report on every kind of design: the demo, the real BM25 example,
factors under other names (declared and inferred), and a single factor.

A feature that cannot apply says why in one line; nothing raises a traceback.
"""

from __future__ import annotations

import pandas as pd
import pytest

from leakeval_core.cli import main
from tests.support import renamed_experiment

pytestmark = pytest.mark.demo

EXPERIMENTS = ["demo_dir", "renamed_dir", "inferred_dir", "single_factor_dir", "real_example"]


@pytest.fixture(scope="module")
def inferred_dir(demo_dir, tmp_path_factory):
    """The renamed fixture without [design]: every role inferred."""
    return renamed_experiment(demo_dir, tmp_path_factory.mktemp("inferred") / "x", declare=False)


@pytest.fixture
def experiment(request, demo_cache, monkeypatch):
    # the session's cache, keyed by content: the real example detects (with hybrid-mpnet,
    # the slowest method) once for this test and the dashboard's
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    return request.getfixturevalue(request.param)


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main([*args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("experiment", EXPERIMENTS, indirect=True)
def test_every_command_works_or_says_why(experiment, tmp_path, capsys):
    has_leakage = experiment.name not in ("one", "real-bm25")
    assert run(capsys, "validate", str(experiment))[0] == 0
    assert (
        run(
            capsys, "scores", str(experiment), "--measures", "P_1", "--out", str(tmp_path / "s.csv")
        )[0]
        == 0
    )

    status, out, err = run(capsys, "compare", str(experiment), "--format", "markdown")
    if has_leakage:
        assert status == 0 and "m = 15" in out
    else:
        assert status == 2 and err.count("\n") == 1
        assert "give --vary FACTOR" in err and "[design] leakage" in err
        status, out, err = run(capsys, "compare", str(experiment), "--vary", "model")
        if experiment.name == "one":
            assert status == 0 and out.count("\n") == 1 + 3  # header + 3 pairs of models
        else:  # real-bm25 has one model: nothing to compare
            assert status == 2 and "model has one level (bm25)" in err

    status, out, err = run(capsys, "inflation", str(experiment))
    if has_leakage:
        assert status == 0 and "gain_leaked" in out
    else:
        assert status == 2 and err.count("\n") == 1
        assert "Inflation needs a factor with a leaked and a clean level" in err

    report = tmp_path / "report.html"
    status, _, err = run(capsys, "report", str(experiment), "--out", str(report))
    assert status == 0, err
    html = report.read_text()
    assert ("Not applicable" in html) != has_leakage
    assert "Traceback" not in html


def test_renamed_factors_give_the_demos_numbers(demo_dir, renamed_dir, tmp_path, monkeypatch):
    """The same runs under other names: identical comparisons and inflation, row for row."""
    from leakeval_core import api

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    demo = api.compare(demo_dir).table.query("collection == 'core17'").reset_index(drop=True)
    renamed = api.compare(renamed_dir).table
    assert len(renamed) == len(demo) == 15
    assert set(renamed.a) == {"contaminated"} and set(renamed.b) == {"clean"}
    assert renamed.p.tolist() == pytest.approx(demo.p.tolist(), rel=1e-12)
    assert renamed.p_adjusted.tolist() == pytest.approx(demo.p_adjusted.tolist(), rel=1e-12)
    inflated = api.inflation(renamed_dir).table  # flags: the planted pairs, given as a table
    from leakeval_core.analysis.folds import per_query
    from leakeval_core.analysis.inflation import inflation
    from leakeval_core.evaluation.direction import Direction
    from leakeval_core.leakage.table import ground_truth, leaked_qids

    experiment = api.load_experiment(demo_dir)
    expected = inflation(
        per_query(api.experiment_scores(experiment, ["ndcg_cut_10"]), "ndcg_cut_10"),
        leaked_qids(ground_truth(experiment), 0.8),
        experiment.design,
        Direction("higher"),
    ).table.query("collection == 'core17'")
    assert inflated.gain_leaked.tolist() == pytest.approx(expected.gain_leaked.tolist())
    assert inflated.p.tolist() == pytest.approx(expected.p.tolist())
    assert list(inflated.columns[:3]) == ["collection", "system", "n_train"]


def test_inferred_design_matches_the_declared_one(renamed_dir, inferred_dir):
    from leakeval_core.experiment.manifest import load_experiment

    declared, inferred = load_experiment(renamed_dir).design, load_experiment(inferred_dir).design
    assert declared == inferred
    assert inferred.inferred == {"leakage", "size", "system", "fold"} and not declared.inferred


def test_overriding_the_leakage_levels_on_the_command_line(
    renamed_dir, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    status, _, _ = run(
        capsys,
        "inflation",
        str(renamed_dir),
        "--leaked",
        "clean",
        "--clean",
        "contaminated",
        "--format",
        "csv",
        "--out",
        str(tmp_path / "i.csv"),
    )
    assert status == 0
    flipped = pd.read_csv(tmp_path / "i.csv")
    assert (flipped.query("n_train == 2000").gain_leaked < 0).all()
    status, _, err = run(
        capsys, "inflation", str(renamed_dir), "--leaked", "clean", "--clean", "clean"
    )
    assert status == 2 and "the leaked and the clean level are both 'clean'" in err
