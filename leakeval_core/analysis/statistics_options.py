"""The statistics settings every view shares: which test, which correction, alpha, which
interval.

The tests and intervals themselves are declared in `procedures`; the choices here are read
from those declarations. No numpy here: the command line derives its choices and defaults
from these, and building its parser must stay cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from leakeval_core.analysis.procedures import (
    DEFAULT_INTERVAL,
    DEFAULT_TEST,
    INTERVALS,
    TESTS,
    IntervalMethod,
    Question,
    StatisticalTest,
    named_interval,
    named_test,
)
from leakeval_core.errors import LeakevalError

__all__ = ["CORRECTIONS", "Correction", "Interval", "Statistics", "Test", "deltas_of"]

Test = Literal[tuple(TESTS)]
CORRECTIONS = {"bonferroni": "Bonferroni", "holm": "Holm", "none": "no correction"}
"""Each correction within a family, by its key, as every caption and the sidebar name it."""
Correction = Literal[tuple(CORRECTIONS)]
Interval = Literal[tuple(INTERVALS)]


def deltas_of(given: object) -> tuple[float, ...]:
    """The differences δ to size for, from a number, a list of them or a link's text
    ("0.01,0.05"): positive and finite, sorted, each once; else one clear error. None, an
    empty list or empty text is () : the measure's own (`Measure.deltas`), which the View
    puts in."""
    if given is None:
        return ()
    if isinstance(given, str):
        given = [part for part in given.replace(" ", ",").split(",") if part]
    elif not isinstance(given, list | tuple):
        given = [given]
    values = []
    for value in given:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if isinstance(value, bool) or not 0.0 < number < float("inf"):
            raise LeakevalError(
                f"delta must be positive numbers (a difference in the measure's unit), "
                f"got {value!r}"
            )
        values.append(number)
    return tuple(sorted(set(values)))


@dataclass(frozen=True)
class Statistics:
    """How comparisons are tested and corrected, in the app, the report and the CLI alike."""

    test: Test = DEFAULT_TEST
    """The test (`procedures.TESTS`): one choice, in its paired form between conditions and
    its two-sample form for leaked minus other topics."""
    correction: Correction = "bonferroni"
    """Multiple-comparison correction within one family (one collection's comparisons)."""
    alpha: float = 0.05
    seed: int = 0
    """Seed of the randomization test and the bootstrap."""
    interval: Interval = DEFAULT_INTERVAL
    """How a difference's interval is drawn, at the level the correction tests that
    comparison at (`procedures.INTERVALS` says what each kind is on each question). `test`
    inverts the test itself, so an interval excludes 0 exactly when its mark says
    significant; `bootstrap` resamples instead, and can disagree with the mark near 0."""
    delta: tuple[float, ...] = ()
    """The differences, in the measure's own unit, whose topics needed every row reports
    (`procedures.TOPIC_SET_SIZE`): a number or several; kept sorted, each once. Empty: the
    measure's own (`Measure.deltas`, declared in the measure registry), which the `View`
    puts in, as only it knows the measure."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "delta", deltas_of(self.delta))
        named_test(self.test)
        if self.correction not in get_args(Correction):
            raise LeakevalError(
                f"unknown correction {self.correction!r}; use {', '.join(get_args(Correction))}"
            )
        named_interval(self.interval)
        if not 0.0 < self.alpha < 1.0:
            raise LeakevalError(f"alpha must be between 0 and 1, got {self.alpha}")

    @property
    def correction_label(self) -> str:
        return CORRECTIONS[self.correction]

    @property
    def procedure(self) -> StatisticalTest:
        """The chosen test's declaration: its names and computations for both questions."""
        return TESTS[self.test]

    @property
    def interval_method(self) -> IntervalMethod:
        """The chosen interval's declaration."""
        return INTERVALS[self.interval]

    def interval_name(self, question: Question) -> str:
        """What the interval beside a difference of `question` (`paired` or `split`) is, in
        words: the test's own ("Welch t interval") or the bootstrap drawn instead ("BCa
        bootstrap interval")."""
        paired = question == "paired"
        test = self.procedure.paired if paired else self.procedure.two_sample
        drawn = self.interval_method.paired if paired else self.interval_method.two_sample
        return test.interval if drawn.inverts_test else f"{drawn.kind} interval"

    @property
    def paired_test(self) -> str:
        """The test of one condition against another, over the queries both scored."""
        return self.procedure.paired.name

    @property
    def split_test(self) -> str:
        """The test of leaked minus other topics (`analysis.split`): two groups of topics."""
        return self.procedure.two_sample.name

    def describe(self, question: Question = "paired") -> str:
        """The settings in words, naming the test that gives the p of `question` and the
        interval drawn beside it: a comparison of conditions, leaked minus other topics, or
        both (the sidebar)."""
        method = self.interval_method
        test, interval = {
            "paired": (self.paired_test, method.paired.kind),
            "split": (self.split_test, method.two_sample.kind),
            "both": (self.procedure.on(), method.on()),
        }[question]
        return f"{test}, {self.correction_label}, α = {self.alpha} (intervals: {interval})"
