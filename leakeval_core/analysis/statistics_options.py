"""The statistics settings every view shares: which paired test, which correction, alpha.

No numpy here: the command line derives its choices and defaults from these declarations,
and building its parser must stay cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from leakeval_core.errors import LeakevalError

__all__ = ["Correction", "Interval", "Statistics", "Test"]

Test = Literal["ttest", "randomization"]
Correction = Literal["bonferroni", "holm", "none"]
Interval = Literal["test", "bootstrap"]


@dataclass(frozen=True)
class Statistics:
    """How comparisons are tested and corrected, in the app, the report and the CLI alike."""

    test: Test = "ttest"
    """Paired Student t-test over queries (the study's protocol) or a sign-flip
    randomization test."""
    correction: Correction = "bonferroni"
    """Multiple-comparison correction within one family (one collection's comparisons)."""
    alpha: float = 0.05
    seed: int = 0
    """Seed of the randomization test and the bootstrap."""
    interval: Interval = "test"
    """How a difference's interval is drawn. `test` inverts the test itself at the level the
    correction tests that comparison at, so an interval excludes 0 exactly when its mark says
    significant. `bootstrap` is a percentile bootstrap at the same level: it makes no
    normality assumption, but can disagree with the mark near the boundary."""

    def __post_init__(self) -> None:
        if self.test not in get_args(Test):
            raise LeakevalError(f"unknown test {self.test!r}; use {', '.join(get_args(Test))}")
        if self.correction not in get_args(Correction):
            raise LeakevalError(
                f"unknown correction {self.correction!r}; use {', '.join(get_args(Correction))}"
            )
        if self.interval not in get_args(Interval):
            raise LeakevalError(
                f"unknown interval {self.interval!r}; use {', '.join(get_args(Interval))}"
            )
        if not 0.0 < self.alpha < 1.0:
            raise LeakevalError(f"alpha must be between 0 and 1, got {self.alpha}")

    @property
    def correction_label(self) -> str:
        return {"bonferroni": "Bonferroni", "holm": "Holm", "none": "no correction"}[
            self.correction
        ]

    @property
    def paired_test(self) -> str:
        """The test of one condition against another, over the queries both scored."""
        return "paired t-test" if self.test == "ttest" else "paired randomization test"

    @property
    def split_test(self) -> str:
        """The test of leaked minus other topics (`analysis.split`): two groups of topics."""
        if self.test == "randomization":
            return "permutation test of the leaked flags over topics"
        return "Welch's t-test over topics"

    def describe(self, question: Literal["paired", "split", "both"] = "paired") -> str:
        """The settings in words, naming the test that gives the p of `question`: a
        comparison of conditions, leaked minus other topics, or both (the sidebar)."""
        test = {
            "paired": self.paired_test,
            "split": self.split_test,
            "both": f"{self.paired_test} between conditions, {self.split_test} for leaked "
            "minus other",
        }[question]
        interval = "" if self.interval == "test" else ", bootstrap intervals"
        return f"{test}, {self.correction_label}, α = {self.alpha}{interval}"
