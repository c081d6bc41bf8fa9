"""Which conditions of an experiment lack a run their design expects, or hold a broken one.

An incomplete condition is an error, not data. Scored as it is, a condition without one of
its five folds loses a fifth of its queries, which then score 0 as missing from the run, and
its mean falls for a reason that has nothing to do with the system. So no figure is computed
from one unless the reader asks for it (`View.allow_incomplete`), and every output names it.
This module is the one place that decides it: `validate`, the verbs, the app and the report
all read `completeness`.

The design does not list the runs it expects: a baseline trained on nothing has no leaked
twin and no training sizes, and collections may hold different models. So the expected runs
are read off the runs that are there, conservatively, among a condition's *siblings*: the
conditions of the same collection (a condition is every factor but the fold).

- **Folds.** A condition with two or more folds is expected to have every fold that a sibling
  sharing a fold with it has (fold 1 to 5 where its siblings have fold 1 to 5). A condition
  with one run is complete by itself: `fold1.run` is how a run without folds is laid out
  beside folded ones.
- **Conditions.** The other factors form a grid per collection, over the levels its runs
  have. A combination no run has is expected when it is a hole inside a grid that is full
  around it: along every factor with two or more levels, its line (the combinations that
  differ from it in that factor alone) holds a condition, and one of those lines holds two.
  A 2×2 design with one cell empty is not flagged (a baseline without a leaked twin looks
  just like that), nor a level no sibling has, nor a line of which every cell is missing.
  The runs it lacks are those at the folds its neighbours have.
- **Broken.** A condition with a run that cannot be read (or whose collection cannot be
  loaded) is broken: it is never shown as a result either.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from leakeval_core.experiment.manifest import Experiment

__all__ = ["ALLOW_HOW", "Completeness", "Gap", "completeness"]

ALLOW_HOW = "--allow-incomplete, allow_incomplete=True, or allow_incomplete=1 in the link"
"""How a reader asks for figures from incomplete conditions, in every door's words."""
_LISTED = 5
"""Missing files named per condition; the rest are counted."""


@dataclass(frozen=True)
class Gap:
    """One incomplete or broken condition."""

    levels: tuple[tuple[str, object], ...]
    """The condition: (factor, level) for every condition factor, collection first."""
    missing: tuple[str, ...] = ()
    """Run ids (paths under the experiment) the design expects and no file has."""
    broken: tuple[str, ...] = ()
    """Why each of its runs that exists could not be read (file:line messages)."""

    @property
    def label(self) -> str:
        return ", ".join(f"{factor}={level}" for factor, level in self.levels)

    @property
    def key(self) -> tuple:
        """The condition's levels in the order of `Completeness.factors`."""
        return tuple(level for _, level in self.levels)

    @property
    def collection(self) -> object:
        return dict(self.levels)["collection"]

    def what(self) -> str:
        """What is wrong, in a clause: the missing files (the first few), or why it broke."""
        parts = []
        if self.missing:
            named = ", ".join(self.missing[:_LISTED])
            more = len(self.missing) - _LISTED
            files = f"{named} and {more} more" if more > 0 else named
            verb = "is" if len(self.missing) == 1 else "are"
            them = "it" if len(self.missing) == 1 else "them"
            parts.append(f"{files} {verb} missing (its siblings on {self.collection} have {them})")
        parts += self.broken
        return "; ".join(parts)

    def refusal(self) -> str:
        """Why no figure of this condition is shown, for an error."""
        state = "incomplete" if self.missing else "broken"
        return (
            f"The condition {self.label} is {state} ({self.what()}), so it is left out of "
            f"every figure; to compute it anyway: {ALLOW_HOW}."
        )


@dataclass(frozen=True)
class Completeness:
    """The experiment's incomplete and broken conditions (none: it is complete)."""

    factors: tuple[str, ...] = ()
    """The condition factors, collection first: the columns a condition is matched on."""
    gaps: tuple[Gap, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.gaps

    def conditions(self) -> list[dict[str, object]]:
        """Each incomplete or broken condition's levels."""
        return [dict(gap.levels) for gap in self.gaps]

    def gap_at(self, levels: Mapping[str, object]) -> Gap | None:
        """The incomplete or broken condition at these levels (a condition's), else None."""
        return next(
            (
                gap
                for gap in self.gaps
                if all(levels.get(factor) == level for factor, level in gap.levels)
            ),
            None,
        )

    def problems(self) -> list[str]:
        """One line per run the design expects and no file has, for `validate` (which
        reports unreadable runs itself)."""
        return [
            f"{run_id}: missing: the condition {gap.label} has no such run, while its siblings "
            f"on {gap.collection} have this fold or condition"
            for gap in self.gaps
            for run_id in gap.missing
        ]

    def statements(self, lacking: Mapping[tuple, tuple[int, int]] | None = None) -> tuple[str, ...]:
        """What every output says about these conditions, one sentence each.

        Without `lacking` they were left out. With it (condition key -> queries it lacks,
        queries of its collection) they were computed anyway, and each says how many
        queries it lacks. A collection's conditions that all broke the same way (it could
        not be loaded, say) are one sentence.
        """
        out = []
        for gaps in _by_cause(self.gaps):
            if len(gaps) > 1:
                head = f"{len(gaps)} conditions on {gaps[0].collection} are broken"
            else:
                kind = "Incomplete" if gaps[0].missing else "Broken"
                head = f"{kind} condition {gaps[0].label}"
            if lacking is None:
                tail = f"left out of every figure (to compute it anyway: {ALLOW_HOW})"
            else:
                tail = "computed anyway (allow_incomplete): " + "; ".join(
                    _lacks(gap, lacking, len(gaps) > 1) for gap in gaps
                )
            out.append(f"{head}: {gaps[0].what()}; {tail}.")
        return tuple(out)


def completeness(experiment: Experiment, broken: Mapping[str, str] | None = None) -> Completeness:
    """The incomplete and broken conditions of `experiment` (see the module's definition).

    `broken` maps the run id of each run that could not be read to why.
    """
    factors = experiment.condition_factors
    fold = experiment.design.fold
    folds: dict[tuple, set] = defaultdict(set)
    for run in experiment.runs:
        folds[tuple(run[f] for f in factors)].add(run[fold] if fold else None)
    missing: dict[tuple, list[tuple]] = defaultdict(list)  # condition -> its missing folds
    for collection in dict.fromkeys(key[0] for key in folds):
        siblings = {key: got for key, got in folds.items() if key[0] == collection}
        for key, folds_of in _missing_folds(siblings).items():
            missing[key] += folds_of
        for key, folds_of in _missing_conditions(siblings).items():
            missing[key] += folds_of
    why: dict[tuple, list[str]] = defaultdict(list)
    for run in experiment.runs:
        if broken and run["run_id"] in broken:
            why[tuple(run[f] for f in factors)].append(broken[run["run_id"]])
    gaps = []
    for key in sorted(set(missing) | set(why), key=_order):
        levels = dict(zip(factors, key, strict=True))
        run_ids = tuple(
            experiment.run_id_of({**levels, **({fold: level} if fold else {})})
            for level in sorted(missing.get(key, ()), key=_order)
        )
        gaps.append(Gap(tuple(levels.items()), run_ids, tuple(why.get(key, ()))))
    return Completeness(factors, tuple(gaps))


def _missing_folds(siblings: Mapping[tuple, set]) -> dict[tuple, list]:
    """Folds a condition with two or more lacks, that a sibling sharing one of them has."""
    out = {}
    for key, mine in siblings.items():
        if len(mine) < 2:
            continue
        expected = set().union(*(got for got in siblings.values() if got & mine))
        if expected - mine:
            out[key] = sorted(expected - mine, key=_order)
    return out


def _missing_conditions(siblings: Mapping[tuple, set]) -> dict[tuple, list]:
    """Combinations no run has that sit inside a grid full around them, with the folds
    their neighbours have. Candidates are the present conditions' neighbours, so a large
    grid is never enumerated."""
    width = len(next(iter(siblings)))
    levels = [{key[i] for key in siblings} for i in range(width)]
    axes = [i for i in range(1, width) if len(levels[i]) > 1]  # 0 is the collection
    candidates = {
        (*key[:i], level, *key[i + 1 :]) for key in siblings for i in axes for level in levels[i]
    } - set(siblings)
    out = {}
    for hole in candidates:
        lines = [
            [
                siblings[near]
                for level in levels[i]
                if (near := (*hole[:i], level, *hole[i + 1 :])) in siblings
            ]
            for i in axes
        ]
        if all(lines) and max(map(len, lines)) >= 2:
            out[hole] = sorted(set().union(*(f for line in lines for f in line)), key=_order)
    return out


def _order(value: object) -> tuple:
    """Levels sort as the runs do; a key of mixed types still sorts."""
    if isinstance(value, tuple):
        return tuple(_order(v) for v in value)
    return (type(value).__name__, value) if value is not None else ("", 0)


def _by_cause(gaps: tuple[Gap, ...]) -> list[list[Gap]]:
    """The gaps, a collection's run together where they all broke the same way and none
    lacks a file (its topics or qrels could not be read, say)."""
    groups: dict[object, list[Gap]] = defaultdict(list)
    for gap in gaps:
        groups[gap.collection].append(gap)
    out = []
    for group in groups.values():
        causes = {(gap.missing, gap.broken) for gap in group}
        whole = len(group) > 1 and len(causes) == 1 and not group[0].missing
        out += [group] if whole else [[gap] for gap in group]
    return out


def _lacks(gap: Gap, lacking: Mapping[tuple, tuple[int, int]], named: bool) -> str:
    absent, total = lacking.get(gap.key, (0, 0))
    return f"{gap.label if named else 'it'} lacks {absent} of its {total} queries"
