"""The roles of an experiment's factors: which one says leaked or clean, which is the training
size, the system (and which system is the baseline), the fold.

Features ask for roles, never for factor names, so any naming works: `[design]` in
experiment.toml names the roles, and a role it leaves out is inferred from the factor names
and levels below. These defaults are the only place in the core that spells out factor names
or levels. A feature that needs a role the experiment lacks says which one and how to set it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from leakeval_core.errors import LeakevalError

__all__ = ["ROLES", "Design", "infer_design"]

ROLES = ("leakage", "leaked", "clean", "size", "system", "baseline", "fold")
"""The keys of `[design]`: the factors, the leakage factor's two levels, the system factor's
baseline level (a system that cannot have memorised training queries, such as BM25), and
the fold."""

# The design defaults: names and levels that identify a role when `[design]` is silent.
FACTOR_NAMES = {
    "leakage": ("leakage", "contamination", "leak", "leaked", "contaminated"),
    "size": ("train_size", "training_size", "n_train", "size", "train_queries"),
    "system": ("model", "system", "ranker", "retriever"),
    "fold": ("fold", "split", "cv_fold"),
}
LEAKED_LEVELS = ("leaked", "contaminated", "leak", "with_leak", "yes", "true")
BASELINE_LEVELS = ("bm25", "baseline", "first_stage", "first-stage", "firststage")
CLEAN_LEVELS = ("none", "clean", "uncontaminated", "no_leak", "no", "false")

_HOW = {
    "leakage": "a factor with a leaked and a clean level: set `[design] leakage = …`, "
    "`leaked = …` and `clean = …` in experiment.toml",
    "size": "a training-size factor: set `[design] size = …` in experiment.toml",
    "system": "a system factor (the models compared): set `[design] system = …` in experiment.toml",
    "fold": "a fold factor: set `[design] fold = …` in experiment.toml",
    "baseline": "a baseline system (one that never saw the training queries, such as BM25): "
    "set `[design] baseline = …` to a level of the system factor in experiment.toml",
}


@dataclass(frozen=True)
class Design:
    """Which factor plays which role; None where the experiment has no such factor."""

    leakage: str | None = None
    leaked: object | None = None
    clean: object | None = None
    size: str | None = None
    system: str | None = None
    fold: str | None = None
    baseline: object | None = None
    """The first of `baselines`: the one a view of one model against one baseline (the
    Story, the drill-down) opens on."""
    baselines: tuple = ()
    """The system levels the audit measures every other system's gain against (`[design]
    baseline` names one or a list); a baseline is never audited itself. Either field may be
    given: each is completed from the other."""
    inferred: frozenset[str] = field(default=frozenset(), compare=False)
    """Roles filled in by inference rather than named in `[design]`, for the UI to say so."""

    def __post_init__(self) -> None:
        baselines = tuple(self.baselines) or (() if self.baseline is None else (self.baseline,))
        object.__setattr__(self, "baselines", baselines)
        object.__setattr__(self, "baseline", baselines[0] if baselines else None)

    def why_not(self, feature: str, *roles: str) -> str | None:
        """Why `feature` cannot apply (the first missing role and how to set it), or None."""
        for role in roles:
            if getattr(self, role) is None:
                return f"{feature} needs {_HOW[role]}"
        return None

    def require(self, feature: str, *roles: str) -> None:
        if why := self.why_not(feature, *roles):
            raise LeakevalError(why)

    def has(self, *roles: str) -> bool:
        return all(getattr(self, role) is not None for role in roles)

    def contrast(self, levels: Mapping[str, Sequence[object]]) -> str | None:
        """The factor a paired view (A against B) varies first: leakage, else the system
        when a baseline is named, else the first factor with two levels (`levels`: each
        factor's levels, collection excluded)."""
        if self.leakage is not None:
            return self.leakage
        if self.system is not None and self.baseline is not None:
            return self.system
        return next((f for f, values in levels.items() if len(values) > 1), None)

    def sides(self, factor: str, levels: Sequence[object], contrast: str | None) -> tuple:
        """The levels of `factor` a paired view opens on, A then B: leaked against clean, an
        audited system against the baseline, the first two levels of the contrast; any other
        factor at one level on both sides (a system other than the baseline)."""
        if factor == self.leakage:
            return self.leaked, self.clean
        audited = [v for v in levels if factor != self.system or v not in self.baselines] or levels
        if factor == contrast and factor == self.system and self.baseline in levels:
            return audited[0], self.baseline
        if factor == contrast and len(levels) > 1:
            return levels[0], levels[1]
        return audited[0], audited[0]

    def describe(self) -> str:
        """One line for captions: `leakage: leakage (leaked vs none); size: train_size`."""
        parts = []
        if self.leakage:
            parts.append(f"leakage: {self.leakage} ({self.leaked} vs {self.clean})")
        parts += [
            f"{role}: {getattr(self, role)}"
            for role in ("size", "system", "fold")
            if getattr(self, role)
        ]
        if self.baselines:
            named = ", ".join(map(str, self.baselines))
            plural = "s" if len(self.baselines) > 1 else ""
            parts.append(f"baseline{plural}: {self.system} {named}")
        return "; ".join(parts) or "no roles"


def infer_design(declared: Mapping[str, object], levels: Mapping[str, Sequence[object]]) -> Design:
    """Complete the declared roles from the factors' names and levels.

    `levels` maps each factor of the runs pattern (collection excluded) to its levels.
    Declared roles are checked against the factors; a wrong name is an error, not a guess.
    """
    unknown = set(declared) - set(ROLES)
    if unknown:
        raise LeakevalError(f"unknown key {sorted(unknown)[0]!r} in [design]; known: {ROLES}")
    roles: dict[str, object] = {}
    for role in ("leakage", "size", "system", "fold"):
        name = declared.get(role)
        if name is not None and name not in levels:
            raise LeakevalError(
                f"[design] {role} = {name!r} is not a factor of the runs pattern; factors: "
                f"{', '.join(levels) or 'none'}"
            )
        roles[role] = name
    taken = {v for v in roles.values() if v}
    if roles["fold"] is None:
        roles["fold"] = _by_name("fold", levels, taken)
    if roles["leakage"] is None:
        roles["leakage"] = _leakage_factor(levels, taken | {roles["fold"]})
    for role in ("size", "system"):
        if roles[role] is None:
            roles[role] = _by_name(role, levels, taken | {v for v in roles.values() if v})
    if roles["size"] is None:
        roles["size"] = _numeric_factor(levels, {v for v in roles.values() if v})
    inferred = {role for role in ("leakage", "size", "system", "fold") if roles[role]} - {
        role for role in declared if role in roles
    }
    leaked, clean = _leakage_levels(declared, roles["leakage"], levels)
    baselines = _baseline_levels(declared, roles["system"], levels)
    if roles["leakage"] is not None and (leaked is None or clean is None):
        if "leakage" in declared:
            raise LeakevalError(
                f"[design] leakage = {roles['leakage']!r}: name its two levels with "
                "`leaked = …` and `clean = …`; its levels: "
                + ", ".join(map(str, levels[roles["leakage"]]))
            )
        roles["leakage"] = None
    return Design(
        leakage=roles["leakage"],
        leaked=leaked if roles["leakage"] else None,
        clean=clean if roles["leakage"] else None,
        size=roles["size"],
        system=roles["system"],
        fold=roles["fold"],
        baselines=baselines,
        inferred=frozenset(
            inferred | ({"baseline"} if baselines and "baseline" not in declared else set())
        ),
    )


def _baseline_levels(
    declared: Mapping[str, object], system: str | None, levels: Mapping[str, Sequence[object]]
) -> tuple:
    """The system factor's baseline levels: declared (one, or a list), else a level named
    like one (bm25)."""
    if system is None:
        if "baseline" in declared:
            raise LeakevalError("[design] baseline is set but the runs have no system factor")
        return ()
    values = list(levels[system])
    if "baseline" not in declared:
        named = [v for v in values if str(v).lower() in BASELINE_LEVELS]
        return (named[0],) if len(named) == 1 and len(values) > 1 else ()
    given = declared["baseline"]
    wanted = [str(w) for w in (given if isinstance(given, list) else [given])]
    if not wanted or len(set(wanted)) != len(wanted):
        raise LeakevalError(f"[design] baseline = {given!r}: name each baseline level once")
    found = []
    for name in wanted:
        match = [v for v in values if str(v) == name]
        if not match:
            raise LeakevalError(
                f"[design] baseline = {name!r} is not a level of {system}: "
                + ", ".join(map(str, values))
            )
        found.append(match[0])
    return tuple(found)


def _by_name(role: str, levels: Mapping[str, Sequence[object]], taken: set) -> str | None:
    wanted = FACTOR_NAMES[role]
    found = [f for f in levels if f.lower() in wanted and f not in taken]
    return min(found, key=lambda f: wanted.index(f.lower())) if found else None


def _leakage_factor(levels: Mapping[str, Sequence[object]], taken: set) -> str | None:
    """A factor named like one, or whose levels include a leaked-like and a clean-like one."""
    by_name = _by_name("leakage", levels, taken)
    if by_name is not None:
        return by_name
    for factor, values in levels.items():
        names = {str(v).lower() for v in values}
        if factor not in taken and names & set(LEAKED_LEVELS) and names & set(CLEAN_LEVELS):
            return factor
    return None


def _numeric_factor(levels: Mapping[str, Sequence[object]], taken: set) -> str | None:
    """The first factor with several integer levels: a size axis more often than not."""
    for factor, values in levels.items():
        if factor not in taken and len(values) > 1 and all(isinstance(v, int) for v in values):
            return factor
    return None


def _leakage_levels(
    declared: Mapping[str, object], factor: str | None, levels: Mapping[str, Sequence[object]]
) -> tuple[object | None, object | None]:
    """The leaked and clean levels, as the factor's own values (ints stay ints)."""
    if factor is None:
        for key in ("leaked", "clean"):
            if key in declared:
                raise LeakevalError(f"[design] {key} is set but [design] leakage is not")
        return None, None
    values = list(levels[factor])

    def find(key: str, defaults: tuple[str, ...]) -> object | None:
        if key in declared:
            wanted = str(declared[key])
            match = [v for v in values if str(v) == wanted]
            if not match:
                raise LeakevalError(
                    f"[design] {key} = {wanted!r} is not a level of {factor}: "
                    + ", ".join(map(str, values))
                )
            return match[0]
        match = [v for v in values if str(v).lower() in defaults]
        return match[0] if match else None

    leaked, clean = find("leaked", LEAKED_LEVELS), find("clean", CLEAN_LEVELS)
    if len(values) == 2 and (leaked is None) != (clean is None):
        other = next(v for v in values if v not in (leaked, clean))
        leaked, clean = (other, clean) if leaked is None else (leaked, other)
    if leaked is not None and leaked == clean:
        raise LeakevalError(f"[design] leaked and clean name the same level {leaked!r}")
    return leaked, clean
