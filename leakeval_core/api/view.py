"""The one settings value that decides every number: what the verbs take and key by.

A `View` names the measure, the scoring conventions, the statistics, the detection method
and threshold, the collection, and whether incomplete conditions count. The API verbs take
it and key their remembered results by it, the CLI builds one from its flags
(`to_flags` is the way back), and the app keeps one inside its screen state
(`leakeval_app.screen`, which also holds the page and the link): a script, a notebook, a
command and a copied link see the same numbers. It holds nothing that only changes what a
screen shows, so two screens with the same settings share every cached result.

No numpy here: the CLI builds its parser from these declarations, and that must stay instant.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DEFAULT_MEASURES, Measure, parse_measure
from leakeval_core.leakage.detection_options import METHODS

__all__ = ["SPLITS", "View", "as_text"]

SPLITS = ("leaked", "answer")
"""The View's splits of the topics: leaked or not; answer-leaked, query-leaked or clean."""


@dataclass(frozen=True)
class View:
    """Every setting that changes a number, validated.

    None means "the default of what it applies to": the experiment's own detection method,
    that method's threshold, the first collection.
    """

    measure: str = DEFAULT_MEASURES[0]
    conventions: Conventions = Conventions()
    statistics: Statistics = Statistics()
    method: str | None = None
    """The detection method whose pairs say which topics leaked."""
    threshold: float | None = None
    """The similarity at which a topic counts as leaked."""
    collection: str | None = None
    split: str = "leaked"
    """How the audit, inflation, the Story, the leaderboard and the card split the topics:
    `leaked` (leaked minus other) or `answer` (answer-leaked, query-leaked and clean, three
    comparisons in one family: `leakage.rule.LeakageTable.leaks`)."""
    allow_incomplete: bool = False
    """Compute figures from conditions that lack a run their design expects or hold one
    that cannot be read (`experiment.completeness`); every output still names them. Off,
    they are left out of every figure."""
    parsed_measure: Measure = field(init=False, repr=False, compare=False)
    """`measure` read once, when the View is made: the verbs consult it at every step."""

    def __post_init__(self) -> None:
        measure = parse_measure(self.measure)
        object.__setattr__(self, "parsed_measure", measure)
        # one key per measure, however it was named: View(measure="nDCG@10") is ndcg_cut_10's
        object.__setattr__(self, "measure", measure.name)
        if not self.statistics.delta:  # the measure's own δs: only the View knows the measure
            statistics = replace(self.statistics, delta=measure.deltas)
            object.__setattr__(self, "statistics", statistics)
        if self.collection is not None and (
            not isinstance(self.collection, str) or not self.collection
        ):
            raise LeakevalError(
                f"collection must be a non-empty name or None, got {self.collection!r}"
            )
        if self.split not in SPLITS:
            raise LeakevalError(f"unknown split {self.split!r}; use {' or '.join(SPLITS)}")
        if self.method is not None and self.method not in METHODS:
            raise LeakevalError(f"unknown method {self.method!r}; use {', '.join(METHODS)}")
        if self.threshold is not None and not (
            isinstance(self.threshold, int | float) and 0.0 <= self.threshold <= 1.0
        ):
            raise LeakevalError(f"threshold must be a number in [0, 1], got {self.threshold!r}")

    def replace(self, **changes: Any) -> View:
        """This View with `changes`. Another measure with δs that were this measure's own
        takes the new measure's own: ranks are not sized for in points of nDCG."""
        if "measure" in changes and "statistics" not in changes and self._own_deltas:
            changes["statistics"] = replace(self.statistics, delta=())
        return replace(self, **changes)

    @property
    def _own_deltas(self) -> bool:
        """Whether the δs sized for are the measure's defaults (`Measure.deltas`)."""
        return self.statistics.delta == self.parsed_measure.deltas

    def threshold_or(self, default: float) -> float:
        return default if self.threshold is None else float(self.threshold)

    def to_flags(self) -> list[str]:
        """The `leakeval` flags of every setting that changes a number and differs from the
        default (measure, detection, conventions, statistics): the command line's encoding,
        which a card prints so that its command gives its numbers again. The collection is
        the card's own choice (`--collection`), and stays out."""
        plain = View(measure=self.measure)  # the δs' default is the measure's
        flags: list[str] = []

        def add(name: str, value: object, default: object) -> None:
            if value != default:  # a tuple is a repeatable flag: `--delta 0.01 --delta 0.05`
                for one in value if isinstance(value, tuple) else (value,):
                    flags.extend([f"--{name.replace('_', '-')}", as_text(one)])

        add("measure", self.measure, View().measure)
        for name in ("method", "threshold", "split"):
            add(name, getattr(self, name), getattr(plain, name))
        for settings, defaults in (
            (self.conventions, plain.conventions),
            (self.statistics, plain.statistics),
        ):
            for item in fields(settings):
                add(item.name, getattr(settings, item.name), getattr(defaults, item.name))
        if self.allow_incomplete:
            flags.append("--allow-incomplete")
        return flags


def as_text(value: object) -> str:
    """A setting's value as a flag and a link write it: a switch as 1 or 0, a float in full
    (`repr`), several values comma-separated, so that reading the text back gives the same
    value."""
    if isinstance(value, tuple):
        return ",".join(as_text(one) for one in value)
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)
