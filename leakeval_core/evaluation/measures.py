"""Measure declarations: one place that says what each measure is and which way is better.

Parsing, validation, CLI help, UI labels and tooltips all read these declarations, so a
measure's name, label and direction can never disagree between two screens.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from leakeval_core.errors import LeakevalError

__all__ = [
    "DEFAULT_MEASURES",
    "FAMILIES",
    "Measure",
    "MeasureFamily",
    "parse_measure",
    "parse_measures",
]


@dataclass(frozen=True)
class MeasureFamily:
    name: str
    label: str
    better: Literal["higher", "lower"]
    description: str
    cutoff: bool
    native: bool
    """Computed by leakeval's vectorised scorer; otherwise delegated to pytrec_eval."""


FAMILIES: dict[str, MeasureFamily] = {
    f.name: f
    for f in (
        MeasureFamily(
            "ndcg_cut",
            "nDCG@{k}",
            "higher",
            "Normalised discounted cumulative gain of the top k (linear or exponential gain).",
            cutoff=True,
            native=True,
        ),
        MeasureFamily(
            "P",
            "P@{k}",
            "higher",
            "Share of the top k that is relevant (grade >= relevance_level).",
            cutoff=True,
            native=True,
        ),
        MeasureFamily(
            "recall",
            "Recall@{k}",
            "higher",
            "Share of the query's relevant documents found in the top k.",
            cutoff=True,
            native=True,
        ),
        MeasureFamily(
            "judged",
            "Judged@{k}",
            "higher",
            "Share of the top k with any judgment. Low values mean the other scores are "
            "lower bounds (pooling bias).",
            cutoff=True,
            native=True,
        ),
        MeasureFamily(
            "recip_rank",
            "RR",
            "higher",
            "Reciprocal rank of the first relevant document (0 if none within depth).",
            cutoff=False,
            native=True,
        ),
        MeasureFamily(
            "first_rel_rank",
            "First relevant rank",
            "lower",
            "Rank of the first relevant document; its mean over queries is MFR. Queries with "
            "no relevant document within depth are excluded from the mean and counted.",
            cutoff=False,
            native=True,
        ),
        MeasureFamily(
            "map",
            "MAP",
            "higher",
            "Average precision over the relevant documents, within depth.",
            cutoff=False,
            native=True,
        ),
    )
}

DEFAULT_MEASURES = ("ndcg_cut_10", "P_1", "first_rel_rank", "recall_100", "judged_10")


@dataclass(frozen=True)
class Measure:
    family: MeasureFamily
    cutoff: int | None = None

    @property
    def name(self) -> str:
        """The pytrec_eval-style name used in tables and files, e.g. `ndcg_cut_10`."""
        return f"{self.family.name}_{self.cutoff}" if self.family.cutoff else self.family.name

    @property
    def label(self) -> str:
        return self.family.label.format(k=self.cutoff)

    @property
    def better(self) -> str:
        return self.family.better

    @property
    def axis_title(self) -> str:
        """A plot axis title that says which way is better."""
        arrow = "higher is better" if self.better == "higher" else "lower is better"
        return f"{self.label} ({arrow})"


_CUTOFF = re.compile(r"^(?P<base>[A-Za-z_]+?)_(?P<k>\d+)$")


def parse_measure(text: str) -> Measure:
    """Parse `ndcg_cut_10`, `P_1`, `first_rel_rank`, or any pytrec_eval measure name."""
    name = text.strip()
    if name in FAMILIES and not FAMILIES[name].cutoff:
        return Measure(FAMILIES[name])
    match = _CUTOFF.match(name)
    if match and match["base"] in FAMILIES and FAMILIES[match["base"]].cutoff:
        k = int(match["k"])
        if k < 1:
            raise LeakevalError(f"measure {name!r}: the cutoff must be at least 1")
        return Measure(FAMILIES[match["base"]], k)
    return _pytrec_eval_measure(name)


def _pytrec_eval_measure(name: str) -> Measure:
    import pytrec_eval

    supported = pytrec_eval.supported_measures
    if name in supported:
        return Measure(MeasureFamily(name, name, "higher", "pytrec_eval measure", False, False))
    match = _CUTOFF.match(name)
    if match and match["base"] in supported:
        family = MeasureFamily(
            match["base"], f"{match['base']}@{{k}}", "higher", "pytrec_eval measure", True, False
        )
        return Measure(family, int(match["k"]))
    known = ", ".join(
        [f"{f.name}_K" if f.cutoff else f.name for f in FAMILIES.values()]
        + ["any pytrec_eval measure"]
    )
    raise LeakevalError(f"unknown measure {name!r}; known: {known}")


def parse_measures(text: str | Sequence[str | Measure]) -> tuple[Measure, ...]:
    """Parse a comma-separated list or a sequence of names (or measures, passed through),
    keeping order and dropping repeats."""
    items = text.split(",") if isinstance(text, str) else list(text)
    measures = tuple(
        dict.fromkeys(
            item if isinstance(item, Measure) else parse_measure(item)
            for item in items
            if isinstance(item, Measure) or item.strip()
        )
    )
    if not measures:
        raise LeakevalError("no measure given")
    return measures
