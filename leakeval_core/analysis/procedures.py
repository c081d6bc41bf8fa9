"""Every statistical procedure, declared once: what each test and interval is called, what it
is on each of the two questions, and which code computes it.

Two questions are tested (DESIGN.md, "Statistics"): condition against condition, paired over
the queries both scored (the `paired` form), and leaked minus other topics, two samples of
different topics (the `two_sample` form). A third, many systems at once (a leaderboard), has
one test of its own (`MANY_SYSTEMS`). One choice of test answers both, each with the form
that fits it, so a reader has to be told both; the help, the sidebar, the captions, the JSON
and the docs read their words from here, and `analysis.paired` and `analysis.split` look
their computations up here. Adding a test is one declaration and its computation.

No numpy here: the command line builds its parser from these declarations, and that must stay
cheap, so a computation is named (`module:attribute`) and imported when first used.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Literal

from leakeval_core.errors import LeakevalError

__all__ = [
    "DEFAULT_INTERVAL",
    "DEFAULT_TEST",
    "INTERVALS",
    "MANY_SYSTEMS",
    "POWER",
    "QUESTIONS",
    "TESTS",
    "TOPIC_SET_SIZE",
    "Form",
    "IntervalForm",
    "IntervalMethod",
    "ManySystemsTest",
    "Question",
    "StatisticalTest",
    "TopicSetSize",
    "named_interval",
    "named_test",
]


Question = Literal["paired", "split", "both"]
"""What a door asks: condition against condition (`paired`), leaked minus other topics
(`split`, two samples), or both (the sidebar, the report)."""

QUESTIONS: dict[str, str] = {
    "paired": "between conditions",
    "split": "for leaked minus other topics",
    "both": "",
}
"""How a door's help says which question its figures answer."""


def _resolve(reference: str):
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Form:
    """A test as it answers one of the two questions."""

    name: str
    """What captions call it: "Welch's t-test over topics"."""
    interval: str
    """Its own interval, the test inverted: "Welch t interval"."""
    computation: str
    """`module:attribute` of the class that computes it. Paired: built from (a, b, resamples,
    seed), with `test()` -> (statistic, p) and `interval(level)`. Two-sample: `of(split,
    resamples, seed)`, with `p()` and `interval(level)`."""
    strata: bool = False
    """Two-sample: whether it keeps each topic's flag within its stratum of the baseline's
    score (`Split.strata`, the audit's `--strata`)."""

    def implementation(self):
        return _resolve(self.computation)


@dataclass(frozen=True)
class _Choice:
    """A choice the View, the flags and the link name (`--test`, `--interval`), with what
    it is on each of the two questions."""

    key: str
    shown: str
    """Its name where one name stands for both questions: the sidebar's choice."""
    description: str
    """Why one would choose it, in one line."""

    def _said(self, form) -> str:
        raise NotImplementedError

    def on(self, question: Question = "both") -> str:
        """What it is on `question`; for both, each question's, said once when they
        agree."""
        paired, split = self._said(self.paired), self._said(self.two_sample)
        if question != "both":
            return paired if question == "paired" else split
        if paired == split:
            return paired
        return f"{paired} {QUESTIONS['paired']}, {split} {QUESTIONS['split']}"


@dataclass(frozen=True)
class StatisticalTest(_Choice):
    """One choice of test (`Statistics.test`, `--test`, the URL's `test`) and its two forms."""

    paired: Form
    two_sample: Form

    def _said(self, form: Form) -> str:
        return form.name

    def help(self, question: Question = "both") -> str:
        """This choice in a door's help: the form that door runs, or both forms."""
        return f"{self.key}: {self.on(question)}"


@dataclass(frozen=True)
class IntervalForm:
    """An interval kind as drawn for one of the two questions."""

    kind: str
    """By name: "test inversion", "percentile bootstrap", "BCa bootstrap"."""
    computation: str | None = None
    """`module:attribute` of the function that draws it: paired, (delta, confidence,
    resamples, seed); two-sample, (on, off, confidence, resamples, seed). None: the test's own
    interval (`Form.interval`), which excludes 0 exactly when the test rejects."""

    @property
    def inverts_test(self) -> bool:
        return self.computation is None

    def implementation(self):
        return _resolve(self.computation)


@dataclass(frozen=True)
class IntervalMethod(_Choice):
    """One choice of interval (`Statistics.interval`, `--interval`) and its two forms."""

    paired: IntervalForm
    two_sample: IntervalForm

    def _said(self, form: IntervalForm) -> str:
        return form.kind

    def help(self, question: Question = "both") -> str:
        """This choice in a door's help: its kind on the question that door asks, or both."""
        return f"{self.key}: {self.on(question)} ({self.description})"


TESTS: dict[str, StatisticalTest] = {
    test.key: test
    for test in (
        StatisticalTest(
            key="ttest",
            shown="t-test",
            description="the study's protocol; Welch's form assumes no equal variances, "
            "which leaked topics (gaining more and varying more) need",
            paired=Form(
                "paired Student t-test over queries",
                "paired t interval",
                "leakeval_core.analysis.paired:StudentPaired",
            ),
            two_sample=Form(
                "Welch's t-test over topics",
                "Welch t interval",
                "leakeval_core.analysis.split:WelchTest",
            ),
        ),
        StatisticalTest(
            key="randomization",
            shown="randomization test",
            description="no normality assumed; exact where the sign flips or assignments are "
            "few, seeded draws otherwise",
            paired=Form(
                "paired sign-flip randomization test",
                "set of shifts the sign-flip test does not reject",
                "leakeval_core.analysis.paired:SignFlip",
            ),
            two_sample=Form(
                "permutation test of the leaked flags over topics",
                "set of shifts the permutation test does not reject",
                "leakeval_core.analysis.split:ShiftTest",
                strata=True,
            ),
        ),
    )
}
"""Every test, by the key that chooses it."""
DEFAULT_TEST = "ttest"

INTERVALS: dict[str, IntervalMethod] = {
    method.key: method
    for method in (
        IntervalMethod(
            key="test",
            shown="the test's own (dual to the marks)",
            description="at the level the correction tests each row at, so it excludes 0 "
            "exactly when the row is significant",
            paired=IntervalForm("test inversion"),
            two_sample=IntervalForm("test inversion"),
        ),
        IntervalMethod(
            key="bootstrap",
            shown="bootstrap",
            description="at the same level; no normality assumed, but it can disagree with "
            "the mark near 0",
            paired=IntervalForm(
                "percentile bootstrap", "leakeval_core.analysis.paired:bootstrap_ci"
            ),
            two_sample=IntervalForm(
                "BCa bootstrap", "leakeval_core.analysis.split:bootstrap_interval"
            ),
        ),
    )
}
"""Every kind of interval drawn beside a difference, by the key that chooses it."""
DEFAULT_INTERVAL = "test"


@dataclass(frozen=True)
class ManySystemsTest:
    """The test of every pair of a leaderboard's systems at once, over the topics all of them
    scored: its p per pair, the groups it cannot tell apart, and each system's rank interval
    (`analysis.tukey`)."""

    name: str
    """What captions call it."""
    description: str
    """What it does, in one line."""
    reference: str
    """Where the method is from, as the docs and the captions cite it."""
    resamples: int
    """Permutations by default."""
    computation: str
    """`module:attribute` of `standings(wide, orient, alpha, resamples, seed)`."""
    settings: tuple[str, ...]
    """The `Statistics` fields it reads (no test, correction, interval or δ is chosen for
    it): a door that shows only its figures offers only these (`leakeval leaderboard`)."""

    def implementation(self):
        return _resolve(self.computation)

    def describe(self, alpha: float, resamples: int | None = None) -> str:
        """The test in a caption: "randomised Tukey HSD test over topics (10,000
        permutations), α = 0.05"."""
        return (
            f"{self.name} ({resamples or self.resamples:,} permutations), α = {alpha}; "
            f"{self.reference}"
        )


MANY_SYSTEMS = ManySystemsTest(
    name="randomised Tukey HSD test over topics",
    description="every pair of systems at once with the family-wise error held at α: each "
    "permutation shuffles every topic's scores across the systems, and a pair differs when "
    "its difference is rarely reached by the largest minus the smallest permuted mean",
    reference="Carterette, TOIS 2012; Sakai, Laboratory Experiments in Information Retrieval, 2018",
    resamples=10_000,
    computation="leakeval_core.analysis.tukey:standings",
    settings=("alpha", "seed"),
)
"""The leaderboard's test: many systems, paired by topic, one family."""


def named_test(key: str) -> StatisticalTest:
    """The test `key` chooses; an unknown key is one clear error naming the choices."""
    if key not in TESTS:
        raise LeakevalError(f"unknown test {key!r}; use {', '.join(TESTS)}")
    return TESTS[key]


def named_interval(key: str) -> IntervalMethod:
    """The interval `key` chooses; an unknown key is one clear error naming the choices."""
    if key not in INTERVALS:
        raise LeakevalError(f"unknown interval {key!r}; use {', '.join(INTERVALS)}")
    return INTERVALS[key]


POWER = 0.8
"""The power at which `mde` is the smallest difference a test detects, and at which the
topics a verdict needs (`TOPIC_SET_SIZE`) are solved for."""


@dataclass(frozen=True)
class TopicSetSize:
    """How the topics a verdict needs are computed, in the words every door uses."""

    name: str
    reference: str
    two_sample: str
    """The design of a leaked-vs-other row."""
    paired: str
    """The design of a paired comparison of two systems or conditions."""

    def on(self, question: Question) -> str:
        """The design a door's rows are sized by (`paired`, `split`, or both)."""
        if question == "both":
            return f"{self.paired} between conditions; {self.two_sample} for leaked minus other"
        return self.paired if question == "paired" else self.two_sample

    def caption(self, deltas: tuple[float, ...], question: Question) -> str:
        """One sentence for a caption: what the topics needed are, for which δs (none given
        where a help text knows no measure: it says the measures' defaults itself), how."""
        asked = f" = {', '.join(f'{d:g}' for d in deltas)}" if deltas else ""
        return (
            f"Topics needed: to detect a difference δ{asked} with {POWER:.0%} power at the "
            f"level the correction tests each row at, two-sided ({self.name}, "
            f"{self.reference}): {self.on(question)}."
        )


TOPIC_SET_SIZE = TopicSetSize(
    name="topic set size design",
    reference="Sakai, Information Retrieval Journal 2016",
    two_sample="Student's two-sample t design with the pooled standard deviation of the "
    "per-topic gains, at the row's ratio of other to leaked topics",
    paired="paired t design with the standard deviation of the per-topic differences",
)
"""Topic set size design (Sakai 2016; Cohen 1988): the noncentral t's power, solved for n
(`analysis.topic_set_size`)."""
