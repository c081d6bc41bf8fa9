"""What changed in an experiment's files since a reader last looked, and what it did to the
correction family.

A served experiment can change under its readers: a run edited in place, a qrels file
replaced, a run deleted. The numbers follow the files (every cache is keyed by their content),
but a reader who saw other numbers a minute ago should be told why they moved, and above all
when a run's disappearance shrank the family a correction runs over (Bonferroni over two
models becomes over one, and what was not significant may now be). A `Snapshot` is one
reading; `changes` compares two and says what happened, in sentences the doors show as they
are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.experiment.completeness import completeness
from leakeval_core.experiment.file_states import ABSENT, fingerprint, states
from leakeval_core.experiment.manifest import Experiment

__all__ = ["Snapshot", "changes", "correction_family", "snapshot"]

_LISTED = 3
"""Files or family members named in a sentence; the rest are counted."""


@dataclass(frozen=True)
class Snapshot:
    """One reading of an experiment: every file's content hash, and (worked out when first
    asked, as most rereads find nothing changed) its correction family."""

    states: Mapping[tuple[str, str, str], str] = field(repr=False)
    """(role, subject, file name) -> content hash (`experiment.file_states.states`)."""
    experiment: Experiment = field(repr=False)
    """The reading of the manifest and the runs these states are of."""

    @property
    def fingerprint(self) -> str:
        """The key the app keeps the experiment's study under: any change of content is a
        new key."""
        return fingerprint(self.states)

    @property
    def family(self) -> dict[str, tuple[str, ...]]:
        """Collection -> the comparisons one correction runs over (`correction_family`)."""
        return self._family[0]

    @property
    def unit(self) -> str:
        """What a member of the family is: a model, or a comparison of conditions."""
        return self._family[1]

    @cached_property
    def _family(self) -> tuple[dict[str, tuple[str, ...]], str]:
        return correction_family(self.experiment)


def snapshot(experiment: Experiment) -> Snapshot:
    """Read every file's state now."""
    return Snapshot(states(experiment), experiment)


def correction_family(experiment: Experiment) -> tuple[dict[str, tuple[str, ...]], str]:
    """Per collection, the comparisons the Story's and the audit's correction runs over, as
    the runs on disk lay them out: each model against the baseline where `[design]` names
    one, else each leaked condition against its clean twin (`api.audits`); a pair counts
    when both its conditions are complete (`experiment.completeness`). With the unit of a
    member: "model" where each member is one model, else "comparison"."""
    design = experiment.design
    if design.system is not None and design.baseline is not None:
        contrast, base, tested = design.system, design.baseline, None
    elif design.leakage is not None:
        contrast, base, tested = design.leakage, design.clean, design.leaked
    else:
        return {}, "comparison"
    factors = experiment.condition_factors
    if contrast not in factors:
        return {}, "comparison"
    at = factors.index(contrast)
    incomplete = {gap.key for gap in completeness(experiment).gaps}
    present = {tuple(run[f] for f in factors) for run in experiment.runs} - incomplete
    others = [i for i, f in enumerate(factors) if f not in ("collection", contrast)]
    named = tested is None and not others  # each member is one model
    bases = {_without(k, at) for k in present if str(k[at]) == str(base)}
    family: dict[str, list[str]] = {}
    for key in sorted(present, key=lambda k: tuple(map(str, k))):
        level = str(key[at])
        if level == str(base) or (tested is not None and level != str(tested)):
            continue
        if _without(key, at) not in bases:  # its twin at the baseline (or clean) is not there
            continue
        shown = others if tested is not None else [at, *others]
        label = level if named else ", ".join(f"{factors[i]}={key[i]}" for i in shown)
        family.setdefault(str(key[0]), []).append(label or f"{tested} against {base}")
    return {name: tuple(members) for name, members in family.items()}, (
        "model" if named else "comparison"
    )


def _without(key: tuple, at: int) -> tuple:
    """A condition's levels but the contrast factor's (at position `at`): what twins share."""
    return key[:at] + key[at + 1 :]


def changes(before: Snapshot, after: Snapshot, statistics: Statistics) -> tuple[str, ...]:
    """What changed from `before` to `after`, one sentence each: the files changed, added or
    gone (runs grouped), then each collection whose correction family they changed, with
    the family's new size under `statistics`' correction. Nothing when nothing changed."""
    if before.states == after.states:
        return ()
    said = _file_changes(before.states, after.states)
    for collection in dict.fromkeys([*before.family, *after.family]):
        was = before.family.get(collection, ())
        now = after.family.get(collection, ())
        gone = [m for m in was if m not in now]
        joined = [m for m in now if m not in was]
        parts = []
        if gone:
            parts.append(f"{_listed(gone)} {_is(gone)} gone from {collection}")
        if joined:
            parts.append(f"{_listed(joined)} joined {collection}")
        if parts:
            said.append(f"{'; '.join(parts)}: {_over(len(now), after.unit, statistics)}.")
    return tuple(said)


def _file_changes(
    before: Mapping[tuple[str, str, str], str], after: Mapping[tuple[str, str, str], str]
) -> list[str]:
    def present(read: Mapping) -> dict[tuple[str, str], str]:
        """(role, subject) -> its files' states, for the files that are there."""
        out: dict[tuple[str, str], list[str]] = {}
        for (role, subject, _), state in read.items():
            if state != ABSENT:
                out.setdefault((role, subject), []).append(state)
        return {key: "".join(states) for key, states in out.items()}

    was, now = present(before), present(after)
    kinds = {
        "changed": [k for k in now if k in was and was[k] != now[k]],
        "appeared": [k for k in now if k not in was],
        "gone": [k for k in was if k not in now],
    }
    said = []
    for kind, keys in kinds.items():
        runs = [subject for role, subject in keys if role == "run"]
        if runs:
            said.append(_runs(kind, runs))
        said += [_file(kind, role, subject) for role, subject in keys if role != "run"]
    return said


_FOLLOWS = {
    "manifest": "the experiment is read anew",
    "topics": "its scores and leakage pairs are computed anew",
    "qrels": "its scores are computed anew",
    "training queries": "leakage is detected anew",
    "training qrels": "which answers leaked is counted anew",
    "pairs": "which topics are leaked is read anew",
}


def _runs(kind: str, runs: Sequence[str]) -> str:
    one = len(runs) == 1
    what = runs[0] if one else f"{len(runs)} runs ({_listed(runs)})"
    if kind == "changed":
        return f"{what} changed: {'its' if one else 'their'} scores are computed anew."
    return f"{what} {_is(runs)} gone." if kind == "gone" else f"{what} appeared."


def _file(kind: str, role: str, subject: str) -> str:
    what = (
        subject
        if role == "manifest"
        else f"The {role} of {subject}"
        if role in ("topics", "qrels")
        else f"The {role} ({subject})"
    )
    follows = _FOLLOWS.get(role, "what it holds is read anew")
    verb = {"changed": "changed", "appeared": "appeared", "gone": "is gone"}[kind]
    return f"{what} {verb}: {follows}."


def _over(n: int, unit: str, statistics: Statistics) -> str:
    """The family's new size, under the correction."""
    units = unit if n == 1 else f"{unit}s"
    if n == 0:
        return f"no {unit} is left to test"
    if statistics.correction == "none":
        return f"{n} {units} {'is' if n == 1 else 'are'} now tested, with no correction"
    return f"{statistics.correction_label} is now over {n} {units}"


def _listed(names: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c', 'a, b, c and 4 more'."""
    if len(names) > _LISTED:
        return f"{', '.join(names[:_LISTED])} and {len(names) - _LISTED} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _is(names: Sequence[str]) -> str:
    return "is" if len(names) == 1 else "are"
