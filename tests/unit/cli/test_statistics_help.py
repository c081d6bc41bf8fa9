"""Each door's `--help` names the tests and intervals that produce its figures: both forms
of each test (paired between conditions, two-sample for leaked minus other) and both kinds
of bootstrap, since every command that tests takes the same --test and --interval."""

from __future__ import annotations

import pytest

from leakeval_core.cli import main


def help_of(door: str, capsys) -> dict[str, str]:
    """The help of --test and --interval, each on one line."""
    with pytest.raises(SystemExit):
        main([door, "--help"])
    out = capsys.readouterr().out
    text = " ".join(out[out.index("options:") :].split())  # the flags, past the usage
    test = text[text.index("--test {") : text.index("--correction {")]
    interval = text[text.index("--interval {") : text.index("--allow-incomplete ")]
    return {"test": test, "interval": interval}


@pytest.mark.parametrize("door", ["audit", "inflation", "story", "report"])
def test_the_leaked_minus_other_doors_name_welch_and_bca(door, capsys):
    shown = help_of(door, capsys)
    assert (
        "ttest: paired Student t-test over queries between conditions, Welch's t-test "
        in (shown["test"])
    )
    assert "Welch's t-test over topics for leaked minus other" in shown["test"]
    assert (
        "permutation test of the leaked flags over topics for leaked minus other" in (shown["test"])
    )
    assert "BCa bootstrap for leaked minus other" in shown["interval"]
    assert "(default: ttest)" in shown["test"] and "(default: test)" in shown["interval"]


def test_compare_names_the_paired_t_test_and_the_percentile_bootstrap(capsys):
    shown = help_of("compare", capsys)
    assert "ttest: paired Student t-test over queries between conditions" in shown["test"]
    assert (
        "randomization: paired sign-flip randomization test between conditions" in (shown["test"])
    )
    assert "bootstrap: percentile bootstrap between conditions" in shown["interval"]
    assert "test: test inversion" in shown["interval"]
