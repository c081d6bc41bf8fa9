"""Each statistical procedure is declared once (`analysis.procedures`): what a reader is
told (captions, the JSON's record, the report) names the test and interval that computed
the figures beside it, for every choice, and a test declared once reaches every door."""

from __future__ import annotations

import subprocess
import sys
from typing import get_args

import numpy as np
import pandas as pd
import pytest

from leakeval_core.analysis import procedures
from leakeval_core.analysis.compare import compare_levels
from leakeval_core.analysis.folds import PerQuery
from leakeval_core.analysis.paired import bootstrap_ci, compare_pair
from leakeval_core.analysis.split import Split, bootstrap_interval, describe, leaked_vs_other
from leakeval_core.analysis.statistics_options import Interval, Statistics, Test
from leakeval_core.errors import LeakevalError
from leakeval_core.present.report import interval_caption
from tests.support import ROOT

# What each choice computes, written out here rather than read from the declarations.
PAIRED = {"ttest": "paired Student t-test", "randomization": "paired sign-flip randomization"}
TWO_SAMPLE = {"ttest": "Welch's t-test", "randomization": "permutation test of the leaked"}
PAIRED_INTERVAL = {
    ("ttest", "test"): "paired t interval",
    ("randomization", "test"): "shifts the sign-flip test does not reject",
    ("ttest", "bootstrap"): "percentile bootstrap",
    ("randomization", "bootstrap"): "percentile bootstrap",
}
TWO_SAMPLE_INTERVAL = {
    ("ttest", "test"): "Welch t interval",
    ("randomization", "test"): "shifts the permutation test does not reject",
    ("ttest", "bootstrap"): "BCa bootstrap",
    ("randomization", "bootstrap"): "BCa bootstrap",
}
CHOICES = sorted(PAIRED_INTERVAL)


def test_the_choices_are_the_declarations():
    assert get_args(Test) == tuple(procedures.TESTS) == ("ttest", "randomization")
    assert get_args(Interval) == tuple(procedures.INTERVALS) == ("test", "bootstrap")
    assert (Statistics().test, Statistics().interval) == (
        procedures.DEFAULT_TEST,
        procedures.DEFAULT_INTERVAL,
    )


def test_every_declared_computation_resolves():
    for test in procedures.TESTS.values():
        paired, two_sample = test.paired.implementation(), test.two_sample.implementation()
        assert callable(paired.test) and callable(paired.interval), test.key
        assert callable(two_sample.of) and callable(two_sample.interval), test.key
    drawn = [f for m in procedures.INTERVALS.values() for f in (m.paired, m.two_sample)]
    assert all(callable(f.implementation()) for f in drawn if not f.inverts_test)
    from leakeval_core.analysis.tukey import standings

    assert procedures.MANY_SYSTEMS.implementation() is standings


@pytest.mark.parametrize("field", ["test", "interval"])
def test_an_unknown_choice_is_one_clear_error(field):
    with pytest.raises(LeakevalError, match=f"unknown {field} 'welch'; use "):
        Statistics(**{field: "welch"})
    with pytest.raises(LeakevalError, match="unknown test 'welch'; use ttest, randomization"):
        compare_pair(np.ones(3), np.zeros(3), "welch")


@pytest.mark.parametrize("test, interval", CHOICES)
def test_every_caption_names_what_computed_its_figures(test, interval):
    statistics = Statistics(test=test, interval=interval)
    split_caption = describe(statistics, "each collection's models")
    assert TWO_SAMPLE[test] in split_caption
    assert TWO_SAMPLE_INTERVAL[test, interval] in split_caption
    assert PAIRED[test] not in split_caption and "percentile" not in split_caption
    record = statistics.describe("split")  # the JSON's `statistics`, and the card's
    assert TWO_SAMPLE[test] in record and PAIRED[test] not in record
    assert ("BCa bootstrap" in record) == (interval == "bootstrap")
    paired = statistics.describe("paired")  # the significance tables' caption
    assert PAIRED[test] in paired and TWO_SAMPLE[test] not in paired
    assert ("percentile bootstrap" in paired) == (interval == "bootstrap")
    both = statistics.describe("both")  # the sidebar's
    assert PAIRED[test] in both and TWO_SAMPLE[test] in both
    rows = pd.DataFrame({"confidence": [0.99]})
    assert PAIRED_INTERVAL[test, interval] in interval_caption(rows, statistics)
    assert "BCa" not in interval_caption(rows, statistics)


def _per_query(seed: int) -> PerQuery:
    rng = np.random.default_rng(seed)
    rows = [
        ("c", level, str(q), rng.random() + lift)
        for q in range(30)
        for level, lift in (("a", 0.05), ("b", 0.0))
    ]
    table = pd.DataFrame(rows, columns=["collection", "model", "qid", "value"])
    return PerQuery(table, ("collection", "model"), "none", pd.DataFrame())


@pytest.mark.parametrize("test", ["ttest", "randomization"])
def test_the_bootstrap_is_percentile_between_conditions_and_bca_for_leaked_vs_other(test):
    """The figures the captions describe: the dispatch draws the declared kind."""
    statistics = Statistics(test=test, interval="bootstrap", seed=3)
    per = _per_query(1)
    row = compare_levels(per, "model", statistics=statistics).iloc[0]
    wide = per.table.pivot_table(index="qid", columns="model", values="value")
    delta = (wide.a - wide.b).to_numpy()
    assert (row.ci_low, row.ci_high) == bootstrap_ci(delta, row.confidence, seed=3)

    rng = np.random.default_rng(2)
    split = Split(rng.normal(0, 0.2, 40), np.r_[np.ones(15, bool), np.zeros(25, bool)])
    row = leaked_vs_other([{}], [split], statistics, (), resamples=500).iloc[0]
    expected = bootstrap_interval(split.on, split.off, row.confidence, 500, 3)
    assert (row.ci_low, row.ci_high) == expected


ADDED = """
import numpy as np
from leakeval_core.analysis import procedures as p

class PairedSign:
    def __init__(self, a, b, resamples=0, seed=0):
        self.delta = np.asarray(a, float) - np.asarray(b, float)
    def test(self):
        return float(np.sign(self.delta).sum()), 0.5
    def interval(self, level):
        return -1.0, 1.0

class MedianSplit:
    @classmethod
    def of(cls, split, resamples, seed):
        return cls()
    def p(self):
        return 0.25
    def interval(self, level):
        return -2.0, 2.0

p.TESTS["sign"] = p.StatisticalTest(
    key="sign",
    shown="sign test",
    description="a declaration added in one place",
    paired=p.Form("paired sign test over queries", "sign interval", "__main__:PairedSign"),
    two_sample=p.Form("median split test over topics", "median interval", "__main__:MedianSplit"),
)

import contextlib, io
from leakeval_core.cli import main
for door, form in (("compare", "paired sign test over queries"), ("audit", "median split")):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main([door, "--help"])
    text = " ".join(out.getvalue().split())
    assert "{ttest,randomization,sign}" in text, text
    assert f"sign: {form}" in text, text

from leakeval_app.screen import Screen
screen, notices = Screen.from_params({"test": "sign"})
assert screen.view.statistics.test == "sign" and notices == (), notices

from leakeval_app import sidebar
assert list(sidebar.TESTS) == ["ttest", "randomization", "sign"]
assert "**sign test**: paired sign test over queries" in sidebar.help_for_tests()

from leakeval_core.analysis.paired import compare_pair
from leakeval_core.analysis.split import Split, leaked_vs_other, describe
from leakeval_core.analysis.statistics_options import Statistics
assert compare_pair(np.ones(4), np.zeros(4), "sign").p == 0.5
flags = np.r_[np.ones(8, bool), np.zeros(8, bool)]
row = leaked_vs_other([{}], [Split(np.arange(16.0), flags)], Statistics(test="sign"), ()).iloc[0]
assert (row.p, row.ci_low, row.ci_high) == (0.25, -2.0, 2.0)
assert row.test == "median split test over topics"
assert "median interval" in describe(Statistics(test="sign"), "all")

import importlib.util
spec = importlib.util.spec_from_file_location("docs_gen", "docs/gen/leakeval_docs.py")
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
assert "| `sign` | sign test | paired sign test over queries |" in gen.procedures_macro()
print("reached every door")
"""


def test_a_test_declared_once_reaches_every_door():
    """docs/architecture.md, "Adding a statistical test": a declaration and its computation,
    nothing else. Declared in a fresh process before anything reads the declarations, a
    new test is a CLI choice with its help, a URL value, a sidebar choice, the computation
    behind compare and leaked-minus-other, and a row of the docs' table."""
    done = subprocess.run([sys.executable, "-c", ADDED], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("reached every door")
