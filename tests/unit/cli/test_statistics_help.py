"""Each door's `--help` names the test and interval that produce its figures, read from their
declarations: the two-sample form for the doors that answer leaked minus other (Welch's
t-test, the permutation of the leaked flags, a BCa bootstrap), the paired form for
`compare` (Student's paired t-test, the sign-flip test, a percentile bootstrap), both for
the report, which shows both."""

from __future__ import annotations

import pytest

from leakeval_core.analysis.procedures import INTERVALS, TESTS
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


@pytest.mark.parametrize("door", ["audit", "inflation", "story", "card"])
def test_the_leaked_minus_other_doors_name_welch_and_bca(door, capsys):
    shown = help_of(door, capsys)
    assert shown["test"].startswith("--test {ttest,randomization} for leaked minus other topics")
    assert "ttest: Welch's t-test over topics;" in shown["test"]
    assert "randomization: permutation test of the leaked flags over topics" in shown["test"]
    assert "bootstrap: BCa bootstrap" in shown["interval"]
    for test in TESTS.values():  # nothing of the form these doors do not run
        assert test.paired.name not in shown["test"]
    assert INTERVALS["bootstrap"].paired.kind not in shown["interval"]
    assert "(default: ttest)" in shown["test"] and "(default: test)" in shown["interval"]


def test_compare_names_the_paired_t_test_and_the_percentile_bootstrap(capsys):
    shown = help_of("compare", capsys)
    assert shown["test"].startswith("--test {ttest,randomization} between conditions")
    assert "ttest: paired Student t-test over queries;" in shown["test"]
    assert "randomization: paired sign-flip randomization test" in shown["test"]
    assert "bootstrap: percentile bootstrap" in shown["interval"]
    assert "test: test inversion" in shown["interval"]
    assert "Welch" not in shown["test"] and "BCa" not in shown["interval"]


def test_the_report_shows_both_questions_and_names_both_forms(capsys):
    shown = help_of("report", capsys)
    assert (
        "paired Student t-test over queries between conditions, Welch's t-test " in (shown["test"])
    )
    assert (
        "percentile bootstrap between conditions, BCa bootstrap for leaked minus other"
        in (shown["interval"])
    )


def test_the_delta_help_gives_each_measures_own_defaults_from_the_registry(capsys):
    from leakeval_core.evaluation.measures import FAMILIES

    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    said = text[text.index("--delta DELTA a difference") : text.index("--allow-incomplete ")]
    own = ", ".join(f"{d:g}" for d in FAMILIES["first_rel_rank"].deltas)
    assert f"first_rel_rank: {own}" in said and "(default: the measure's own: 0.01," in said
