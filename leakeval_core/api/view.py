"""The one settings value that decides every number on screen, and its URL encoding.

A `View` names the measure, the scoring conventions, the statistics, the detection method
and threshold, the collection, the page and whatever a page chose (factor levels, the open
tab, a topic). The app keeps one per browser session and writes it to the URL, its caches
are keyed by it, the API verbs take it, and the CLI builds one from its flags: four
encodings of one value, so a copied link, a script and a notebook see the same numbers.

Decoding never raises: a value that cannot be read or is out of range falls back to its
default (or is clamped) and comes back as a notice the page shows. No numpy here: the CLI
builds its parser from these declarations, and that must stay instant.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, get_args
from urllib.parse import parse_qsl, urlencode, urlsplit

from leakeval_core.analysis.statistics_options import Correction, Interval, Statistics, Test
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DEFAULT_MEASURES, parse_measure
from leakeval_core.leakage.detection_options import METHODS

__all__ = ["PAGES", "View", "decode_params"]

PAGES = ("story", "datasets", "leakage", "queries", "conditions", "audit")
"""Every page of the dashboard, by its URL path."""

_CHOICE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,80}$")

# URL parameter -> (owner, field): the global settings. Any other parameter is a page's
# choice (a factor level, an open tab, a topic) and is checked by the page that uses it.
_CONVENTION_PARAMS = {
    "depth": "depth",
    "rel": "relevance_level",
    "gain": "gain",
    "ties": "tie_order",
    "missing": "missing",
    "unjudged": "no_relevant",
}
_STATISTICS_PARAMS = {
    "test": "test",
    "correction": "correction",
    "alpha": "alpha",
    "interval": "interval",
    "seed": "seed",
}
_VIEW_PARAMS = (
    "experiment",
    "measure",
    "method",
    "threshold",
    "collection",
    "present",
    "allow_incomplete",
)
RESERVED = frozenset([*_CONVENTION_PARAMS, *_STATISTICS_PARAMS, *_VIEW_PARAMS, "page"])
"""URL parameters with a meaning of their own; a page's choices use other names."""


@dataclass(frozen=True)
class View:
    """What a screen, a command or a call shows: every setting that changes a number.

    None means "the default of what it applies to": the first experiment, the experiment's
    own detection method, that method's threshold, the first collection.
    """

    experiment: str | None = None
    page: str = "story"
    measure: str = DEFAULT_MEASURES[0]
    conventions: Conventions = Conventions()
    statistics: Statistics = Statistics()
    method: str | None = None
    """The detection method whose pairs say which topics leaked."""
    threshold: float | None = None
    """The similarity at which a topic counts as leaked."""
    collection: str | None = None
    choices: tuple[tuple[str, str], ...] = field(default=())
    """A page's own selections by name (sorted): `a_model=colbert`, `conditions_tab=…`."""
    present: bool = False
    """Presentation mode: large type, no controls."""
    allow_incomplete: bool = False
    """Compute figures from conditions that lack a run their design expects or hold one
    that cannot be read (`experiment.completeness`); every output still names them. Off,
    they are left out of every figure."""

    def __post_init__(self) -> None:
        if self.page not in PAGES:
            raise LeakevalError(f"unknown page {self.page!r}; pages: {', '.join(PAGES)}")
        # one key per measure, however it was named: View(measure="nDCG@10") is ndcg_cut_10's
        object.__setattr__(self, "measure", self.parsed_measure.name)
        for name in ("experiment", "collection"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise LeakevalError(f"{name} must be a non-empty name or None, got {value!r}")
        if self.method is not None and self.method not in METHODS:
            raise LeakevalError(f"unknown method {self.method!r}; use {', '.join(METHODS)}")
        if self.threshold is not None and not (
            isinstance(self.threshold, int | float) and 0.0 <= self.threshold <= 1.0
        ):
            raise LeakevalError(f"threshold must be a number in [0, 1], got {self.threshold!r}")
        for name, value in self.choices:
            if not _CHOICE.match(name) or name in RESERVED:
                raise LeakevalError(f"{name!r} cannot name a page's choice")
            if not isinstance(value, str):
                raise LeakevalError(f"choice {name!r} must be text, got {value!r}")
        names = [name for name, _ in self.choices]
        if names != sorted(set(names)):
            object.__setattr__(self, "choices", tuple(sorted(dict(self.choices).items())))

    @property
    def parsed_measure(self):
        return parse_measure(self.measure)

    def choice(self, name: str, default: str | None = None) -> str | None:
        return dict(self.choices).get(name, default)

    def with_choices(self, **values: object) -> View:
        """This view with page choices set (None removes one); values are kept as text."""
        merged = dict(self.choices)
        for name, value in values.items():
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = str(value)
        return replace(self, choices=tuple(sorted(merged.items())))

    def replace(self, **changes: Any) -> View:
        return replace(self, **changes)

    def threshold_or(self, default: float) -> float:
        return default if self.threshold is None else float(self.threshold)

    # ----------------------------------------------------------------------- URL encoding

    def to_params(self) -> dict[str, str]:
        """URL parameters: every setting that differs from the default, and every choice."""
        plain = View()
        params: dict[str, str] = {}
        for name in ("experiment", "measure", "method", "threshold", "collection"):
            value = getattr(self, name)
            if value != getattr(plain, name):
                params[name] = _text(value)
        for name in ("present", "allow_incomplete"):
            if getattr(self, name):
                params[name] = "1"
        for param, name in _CONVENTION_PARAMS.items():
            if getattr(self.conventions, name) != getattr(plain.conventions, name):
                params[param] = _text(getattr(self.conventions, name))
        for param, name in _STATISTICS_PARAMS.items():
            if getattr(self.statistics, name) != getattr(plain.statistics, name):
                params[param] = _text(getattr(self.statistics, name))
        params.update(self.choices)
        return params

    def to_flags(self) -> list[str]:
        """The `leakeval` flags of every setting that changes a number and differs from the
        default (measure, detection, conventions, statistics): the command line's encoding,
        which a card prints so that its command gives its numbers again. The page, the
        collection and the page's choices are a screen's, not a number's, and stay out."""
        plain = View()
        flags: list[str] = []

        def add(name: str, value: object, default: object) -> None:
            if value != default:
                flags.extend([f"--{name.replace('_', '-')}", _text(value)])

        for name in ("measure", "method", "threshold"):
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

    def to_url(self, base: str = "") -> str:
        """The link: the Story is the app's root page, every other page its own path."""
        query = urlencode(self.to_params())
        path = "" if self.page == "story" else self.page
        return f"{base}/{path}" + (f"?{query}" if query else "")

    @classmethod
    def from_params(
        cls, params: Mapping[str, str], page: str = "story"
    ) -> tuple[View, tuple[str, ...]]:
        """A view from URL parameters, and a notice for every value that had to be replaced."""
        return decode_params(params, page)

    @classmethod
    def from_url(cls, url: str) -> tuple[View, tuple[str, ...]]:
        parts = urlsplit(url)
        page = parts.path.rstrip("/").rsplit("/", 1)[-1] or "story"
        return decode_params(dict(parse_qsl(parts.query, keep_blank_values=True)), page)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def decode_params(params: Mapping[str, str], page: str = "story") -> tuple[View, tuple[str, ...]]:
    """Read every parameter against its declaration; never raise.

    A bad value is left out, so its default applies, and a notice says so; a threshold
    outside [0, 1] is clamped into it. Parameters that are no setting are page choices,
    kept as text for the page that uses them to check against its options.
    """
    notices: list[str] = []
    plain = View()

    def bad(name: str, raw: str, why: str, instead: object) -> None:
        notices.append(f"Ignored `{name}={raw[:40]}` from the link: {why}; using {instead}.")

    values: dict[str, Any] = {}
    if page not in PAGES:
        bad("page", page, f"no such page (pages: {', '.join(PAGES)})", "the Story")
        page = "story"
    values["page"] = page
    for name in ("experiment", "collection"):
        if params.get(name):
            values[name] = str(params[name])
    if (raw := params.get("measure")) is not None:
        try:
            values["measure"] = parse_measure(raw).name
        except LeakevalError as exc:
            bad("measure", raw, str(exc).split(";")[0], plain.measure)
    if (raw := params.get("method")) is not None:
        if raw in METHODS:
            values["method"] = raw
        else:
            bad("method", raw, f"not one of {', '.join(METHODS)}", "the experiment's method")
    if (raw := params.get("threshold")) is not None:
        value = _number(raw, float)
        if value is None or math.isnan(value):
            bad("threshold", raw, "not a number", "the method's threshold")
        else:
            clamped = min(max(value, 0.0), 1.0)
            if clamped != value:
                notices.append(
                    f"The link's `threshold={raw[:40]}` is outside [0, 1]; using {clamped:g}."
                )
            values["threshold"] = clamped
    for name, instead in (
        ("present", "no presentation mode"),
        ("allow_incomplete", "incomplete conditions left out"),
    ):
        if (raw := params.get(name)) is not None:
            if raw in ("1", "true", "True", "0", "false", "False"):
                values[name] = raw in ("1", "true", "True")
            else:
                bad(name, raw, "not 1 or 0", instead)
    values["conventions"] = _settings(
        Conventions, _CONVENTION_PARAMS, params, plain.conventions, bad
    )
    values["statistics"] = _settings(Statistics, _STATISTICS_PARAMS, params, plain.statistics, bad)
    choices = {}
    for name, raw in params.items():
        if name in RESERVED:
            continue
        if _CHOICE.match(name):
            choices[name] = str(raw)
        else:
            notices.append(f"Ignored the link's parameter `{name[:40]}`: no setting has that name.")
    values["choices"] = tuple(sorted(choices.items()))
    return View(**values), tuple(notices)


_CHOICES_OF = {
    "gain": ("linear", "exponential"),
    "tie_order": ("docid_asc", "docid_desc"),
    "missing": ("zero", "drop"),
    "no_relevant": ("exclude", "zero"),
    "test": get_args(Test),
    "correction": get_args(Correction),
    "interval": get_args(Interval),
}
_BOUNDS = {
    "depth": (1, 100_000),
    "relevance_level": (1, 100),
    "seed": (0, 2**32 - 1),
}


def _settings(cls, names: dict, params: Mapping[str, str], plain, bad):
    """One settings object (Conventions or Statistics) from its parameters, field by field:
    each bad value falls back to its own default without taking the others with it."""
    kinds = {f.name: f.type for f in fields(cls)}
    chosen = {}
    for param, name in names.items():
        raw = params.get(param)
        if raw is None:
            continue
        default = getattr(plain, name)
        if name in _CHOICES_OF:
            if raw in _CHOICES_OF[name]:
                chosen[name] = raw
            else:
                bad(param, raw, f"not one of {', '.join(_CHOICES_OF[name])}", default)
            continue
        cast = int if "int" in str(kinds[name]) else float
        value = _number(raw, cast)
        low, high = _BOUNDS.get(name, (None, None))
        if name == "alpha":
            if value is None or not 0.0 < value < 1.0:
                bad(param, raw, "not a level between 0 and 1", default)
                continue
        elif value is None or not low <= value <= high:
            bad(param, raw, f"not a whole number from {low} to {high}", default)
            continue
        chosen[name] = value
    return replace(plain, **chosen)


def _number(raw: str, cast):
    try:
        value = cast(str(raw).strip())
    except (TypeError, ValueError, OverflowError):
        return None
    if isinstance(value, float) and math.isinf(value):
        return value if cast is float else None
    return value
