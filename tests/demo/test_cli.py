"""The `leakeval` commands on the generated demo."""

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from leakeval_core.cli import main

pytestmark = pytest.mark.demo


@pytest.mark.slow
def test_scores_and_validate_on_demo(demo_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "scores.parquet"
    assert main(["scores", str(demo_dir), "--measures", "P_1", "--out", str(out)]) == 0
    table = pd.read_parquet(out)
    assert list(table.columns) == [
        "collection",
        "model",
        "leakage",
        "train_size",
        "fold",
        "qid",
        "measure",
        "value",
    ]
    assert len(table) == 3 * 2 * 5 * 350
    assert main(["validate", str(demo_dir)]) == 0
    assert "450 runs" in capsys.readouterr().out


@pytest.mark.slow
def test_compare_csv_columns_and_bonferroni(demo_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "cmp.csv"
    assert (
        main(
            ["compare", str(demo_dir), "--vary", "leakage", "--baseline", "none", "--out", str(out)]
        )
        == 0
    )
    rows = pd.read_csv(out)
    assert list(rows.columns) == [
        "collection",
        "model",
        "train_size",
        "a",
        "b",
        "n",
        "mean_a",
        "mean_b",
        "delta",
        "statistic",
        "p",
        "p_adjusted",
        "family_size",
        "significant",
        "confidence",
        "ci_low",
        "ci_high",
        "effect_size",
        "wins",
        "ties",
        "losses",
        "topics_needed_0.01",
        "topics_needed_0.02",
        "topics_needed_0.05",
    ]
    assert len(rows) == 45
    # one family per collection (3 models x 5 sizes), as in the app and the report
    assert (rows.family_size == 15).all()
    expected = (rows.p * 15).clip(upper=1)  # CSV keeps 6 significant digits
    assert rows.p_adjusted.to_numpy() == pytest.approx(expected.to_numpy(), rel=1e-5)
    everything = tmp_path / "all.csv"
    assert main(["compare", str(demo_dir), "--family", "all", "--out", str(everything)]) == 0
    rows = pd.read_csv(everything)
    assert (rows.family_size == 45).all()
    assert rows.p_adjusted.to_numpy() == pytest.approx((rows.p * 45).clip(upper=1), rel=1e-5)


@pytest.mark.slow
def test_compare_latex_marks_significance_and_names_correction(
    demo_dir, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    assert (
        main(
            [
                "compare",
                str(demo_dir),
                "--vary",
                "leakage",
                "--baseline",
                "none",
                "--format",
                "latex",
                "--correction",
                "holm",
            ]
        )
        == 0
    )
    latex = capsys.readouterr().out
    assert r"$^\dagger$" in latex and r"\toprule" in latex
    assert "Holm" in latex and "m = 15 comparisons" in latex


def test_compare_unknown_level_is_one_line(demo_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    assert main(["compare", str(demo_dir), "--vary", "leakage", "--baseline", "clean"]) == 2
    assert capsys.readouterr().err.strip() == (
        "leakeval: 'clean' is not a level of leakage: leaked, none"
    )


@pytest.mark.slow
def test_inflation_and_report(demo_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "inflation.csv"
    assert main(["inflation", str(demo_dir), "--format", "csv", "--out", str(out)]) == 0
    summary = pd.read_csv(out)
    assert len(summary) == 45 and {"gain_leaked", "gain_other", "verdict", "mde"} <= set(
        summary.columns
    )
    report = tmp_path / "report.html"
    assert main(["report", str(demo_dir), "--out", str(report)]) == 0
    text = report.read_text()
    assert "SIMULATED DATA" in text and "Inflation" in text and "Kendall" in text
    assert text.count("plotly.js v") == 1  # inlined once
    import re

    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"?https?:", text)


def test_every_inflation_and_audit_row_has_a_verdict_and_an_mde_in_the_json(
    demo_dir, demo_cache, tmp_path, monkeypatch, capsys
):
    import json

    from leakeval_core.analysis.split import VERDICTS

    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))  # the session's scores
    out = tmp_path / "inflation.json"
    assert main(["inflation", str(demo_dir), "--format", "json", "--out", str(out)]) == 0
    inflated = json.loads(out.read_text())
    assert len(inflated["inflation"]) == 45 and inflated["leaked"]
    assert main(["audit", str(demo_dir), "--json", str(tmp_path / "audit.json")]) == 0
    audited = json.loads((tmp_path / "audit.json").read_text())
    assert audited["statistics"].startswith("Welch's t-test over topics")
    assert inflated["scoring_warnings"] == audited["scoring_warnings"] == []  # well judged
    for row in [*inflated["inflation"], *audited["audit"]]:
        assert row["verdict"] in VERDICTS
        # an mde wherever the row was tested, so "no evidence" always says what it could see
        assert (row["mde"] is None) == (row["verdict"] == "cannot tell")
        assert row["verdict"] != "no evidence" or row["mde"] > 0


def test_strata_need_a_test_declared_to_keep_them(demo_dir, demo_cache, monkeypatch, capsys):
    """Welch's test cannot permute within strata: one line naming the test that can."""
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    assert main(["audit", str(demo_dir), "--strata", "4"]) == 2
    err = capsys.readouterr().err
    assert "which Welch's t-test over topics cannot do: add --test randomization" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_warm_scores_writes_its_cached_output_without_heavy_imports(demo_dir, tmp_path):
    """A repeat `leakeval scores` hashes the files and writes the stored output: the same
    bytes, without importing pandas, numpy or pyarrow. A damaged stored output is rebuilt."""
    env = {**os.environ, "LEAKEVAL_CACHE": str(tmp_path / "cache")}

    def scores(out: Path) -> str:
        code = (
            "import sys; from leakeval_core.cli import main\n"
            f"status = main(['scores', {str(demo_dir)!r}, '--measures', 'P_1', "
            f"'--out', {str(out)!r}])\n"
            "heavy = [m for m in ('pandas', 'numpy', 'pyarrow') if m in sys.modules]\n"
            "print(status, *heavy)"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        return done.stdout.strip()

    cold, warm, rebuilt = tmp_path / "cold.csv", tmp_path / "warm.csv", tmp_path / "again.csv"
    assert scores(cold) == "0 pandas numpy pyarrow"
    assert scores(warm) == "0"
    assert warm.read_bytes() == cold.read_bytes()
    assert len(pd.read_csv(cold)) == 3 * 2 * 5 * 350
    (stored,) = (tmp_path / "cache" / "scores-output").glob("*.crc")
    stored.write_bytes(stored.read_bytes()[:-100])  # truncated behind the cache's back
    assert scores(rebuilt) == "0 pandas numpy pyarrow"
    assert rebuilt.read_bytes() == cold.read_bytes()
