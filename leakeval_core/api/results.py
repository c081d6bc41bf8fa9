"""What the API verbs return: one shape for every result.

Each result has `.table`, its long table (one row per run × query × measure, or per
comparison), `.summary()`, the wide table a paper or a slide shows, and `_repr_html_`, so
a notebook cell that ends with a result draws that summary with its caption.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.analysis.statistics_options import Statistics
    from leakeval_core.evaluation.conventions import Conventions
    from leakeval_core.evaluation.measures import Measure
    from leakeval_core.evaluation.scoring import RunScores, ScoreDiagnostics

__all__ = ["Comparison", "Inflation", "Result", "Scores", "records", "rows_at"]


def rows_at(table: pd.DataFrame, levels: Mapping[str, object]) -> pd.DataFrame:
    """The rows at these factor levels; levels of factors the table lacks are ignored."""
    from leakeval_core.analysis.folds import levels_of

    return levels_of(table, levels)


class Result:
    """The shared shape: `table` (long), `summary()` (wide), a caption, notebook HTML."""

    table: pd.DataFrame
    caption: str = ""

    def summary(self) -> pd.DataFrame:
        return self.table

    def _repr_html_(self) -> str:
        import html

        from leakeval_core.present.tables import html_table

        caption = f"<p><em>{html.escape(self.caption)}</em></p>" if self.caption else ""
        summary = self.summary()
        shown = summary.reset_index() if summary.index.name else summary
        return html_table(shown) + caption

    def at(self, levels: Mapping[str, object]):
        """The same result on the rows at these factor levels (factors the table lacks are
        ignored): a chart that fixes some levels shows rows adjusted over the whole family."""
        from dataclasses import replace

        return replace(self, table=rows_at(self.table, levels))


@dataclass(frozen=True)
class Scores(Result):
    """Per-query scores of one or more runs."""

    runs: dict[str, RunScores] = field(repr=False)
    """Per run name: its per-query arrays and its means, as the scorer left them."""
    measures: tuple[Measure, ...]
    conventions: Conventions
    qrels: str = "the qrels"
    """How the warnings name the qrels: their file's name, where they came from a file."""

    @cached_property
    def table(self) -> pd.DataFrame:  # type: ignore[override]
        """run, qid, measure, value: one row per (run, query, measure)."""
        import pandas as pd

        from leakeval_core.evaluation.scoring import stacked

        table, owner = stacked(list(self.runs.values()))
        table.insert(0, "run", pd.array(list(self.runs), dtype="str")[owner])
        return table

    @property
    def diagnostics(self) -> dict[str, ScoreDiagnostics]:
        """Per run: what the scorer decided (missing queries, ties, undefined first ranks)."""
        return {name: result.diagnostics for name, result in self.runs.items()}

    @property
    def scoring_warnings(self) -> tuple[str, ...]:
        """What every reader of these scores must be told, run by run
        (`ScoreDiagnostics.warnings`): too little of a run judged in the qrels, a measure
        at 0 on every query."""
        return tuple(
            warning
            for name, result in self.runs.items()
            for warning in result.diagnostics.warnings(name, self.qrels)
        )

    def per_query(self) -> pd.DataFrame:
        return self.table

    def means(self) -> pd.DataFrame:
        """One row per run, one column per measure, each combined as the measure says
        (a mean, a sum for the num_* counts, trec_eval's floored geometric mean for gm_*):
        trec_eval's `all` row."""
        import pandas as pd

        names = [m.name for m in self.measures]
        rows = {name: result.means() for name, result in self.runs.items()}
        frame = pd.DataFrame.from_dict(rows, orient="index")[names]
        return frame.rename_axis(index="run")

    def summary(self) -> pd.DataFrame:
        return self.means()

    @property
    def caption(self) -> str:  # type: ignore[override]
        return f"Conventions: {self.conventions.describe()}."

    def at(self, levels):  # a run set has no factor levels to select
        raise TypeError("Scores has no factor levels; select runs from .table instead")


@dataclass(frozen=True)
class Comparison(Result):
    """Paired tests between the levels of one factor, corrected within each family."""

    table: pd.DataFrame = field(repr=False)
    """One row per comparison: the other factors' levels, a, b, n, means, delta, the test,
    p and its adjusted value over `family_size` comparisons, the interval and effect size."""
    statistics: Statistics
    measure: Measure
    caption: str = ""
    incomplete: tuple[str, ...] = ()
    """The experiment's incomplete and broken conditions, in a sentence each: left out of
    these figures, or computed anyway with the queries each lacks (`View.allow_incomplete`)."""
    scoring_warnings: tuple[str, ...] = ()
    """What every reader of these figures must be told about the runs they come from
    (`PerQuery.scoring_warnings`): too little of a run judged, the measure at 0 on every
    query of a run."""
    conventions_notes: tuple[str, ...] = ()
    """As `Audit.conventions_notes`: in the caption, and atop the CSV."""

    def summary(self) -> pd.DataFrame:
        keep = [c for c in self.table.columns if c not in _DETAIL]
        return self.table[keep]

    def as_dict(self) -> dict:
        """Every figure, for `leakeval compare --format json`: each comparison with its test,
        p, adjusted p, interval and the topics it needs per δ (`topics_needed`: `[{"delta":
        0.02, "topics": n}, ...]`, a paired design's), and the warnings."""
        return {
            "measure": self.measure.name,
            "better": self.measure.better,
            "statistics": self.statistics.describe("paired"),
            "caption": self.caption,
            "incomplete": list(self.incomplete),
            "scoring_warnings": list(self.scoring_warnings),
            "conventions_notes": list(self.conventions_notes),
            "comparisons": records(self.table),
        }


_DETAIL = {"statistic", "p", "confidence", "effect_size", "wins", "ties", "losses"}


@dataclass(frozen=True)
class Inflation(Result):
    """How much of each leaked-vs-clean gain lands on the topics that have a near-duplicate."""

    table: pd.DataFrame = field(repr=False)
    """Per pair of conditions: the leaked-minus-other answer (`analysis.split`) for the
    leaked condition's gain over its clean twin: topics and mean gain on each side, the
    difference, its test, p adjusted within its collection (`family_size` pairs), the
    interval, the mde and the verdict."""
    top: pd.DataFrame = field(repr=False)
    """The topics that inflate each pair's gain most: delta is leaked − clean as scored,
    inflation the same in the measure's better direction."""
    gains: pd.DataFrame = field(repr=False)
    """Every pair's topics: a and b as scored, delta (a − b, raw), gain (in the better
    direction) and leaked; `table` and `top` are computed from it, and so is the Story."""
    threshold: float
    source: str
    """Where the leakage pairs come from."""
    measure: Measure
    statistics: Statistics
    caption: str = ""
    leaked: Mapping[str, str] = field(default_factory=dict)
    """Per collection, how many topics are leaked and by which rule (`Study.leaked_rule`)."""
    warnings: tuple[str, ...] = ()
    """What every reader of these figures must be told (`Study.leakage_warnings`)."""
    incomplete: tuple[str, ...] = ()
    """As `Comparison.incomplete`."""
    scoring_warnings: tuple[str, ...] = ()
    """As `Comparison.scoring_warnings`."""
    conventions_notes: tuple[str, ...] = ()
    """As `Audit.conventions_notes`: in the caption, and atop the CSV."""

    def summary(self) -> pd.DataFrame:
        keep = [c for c in self.table.columns if c not in ("p", "significant", "confidence")]
        return self.table[keep]

    def at(self, levels: Mapping[str, object]) -> Inflation:
        from dataclasses import replace

        return replace(
            self,
            table=rows_at(self.table, levels),
            top=rows_at(self.top, levels),
            gains=rows_at(self.gains, levels),
        )

    def as_dict(self) -> dict:
        """Every figure, for `leakeval inflation --format json`: each row with its verdict
        and mde, which topics are leaked by which rule, and the warnings."""
        return {
            "measure": self.measure.name,
            "better": self.measure.better,
            "threshold": self.threshold,
            "leakage": self.source,
            "statistics": self.statistics.describe("split"),
            "caption": self.caption,
            "leaked": dict(self.leaked),
            "warnings": list(self.warnings),
            "incomplete": list(self.incomplete),
            "scoring_warnings": list(self.scoring_warnings),
            "conventions_notes": list(self.conventions_notes),
            "inflation": records(self.table),
            "top": records(self.top),
        }


def records(frame: pd.DataFrame) -> list[dict]:
    """A table as JSON-ready rows: plain Python values, NaN as None."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")
