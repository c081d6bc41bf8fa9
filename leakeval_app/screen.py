"""What one browser shows: the settings (a core `View`), the page, presentation mode and the
page's own choices, and their encoding as a link.

The core's View holds only what changes a number; this is the rest of a screen, which the
app keeps per session and writes to the URL. A copied link opens the same page with the
same settings and choices, so it shows the same numbers.

Decoding never raises: a value that cannot be read or is out of range falls back to its
default (or is clamped) and comes back as a notice the page shows, in Markdown, in which
what the link said is text (`markup`). No Streamlit here, so the link can be built and read
anywhere (a notebook, the tests).
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from leakeval_app.markup import code, plain
from leakeval_app.page_list import LANDING, PAGES, title, url_path
from leakeval_core.api.terms import METHODS, Statistics
from leakeval_core.api.view import SPLITS, View, as_text
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import parse_measure

__all__ = ["RESERVED", "Screen"]

_CHOICE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,80}$")

# URL parameter -> field of a View's settings object. Any parameter that names no setting
# is a page's choice (a factor level, an open tab, a topic), checked by the page that uses it.
_CONVENTION_PARAMS = {
    "depth": "depth",
    "rel": "relevance_level",
    "gain": "gain",
    "ties": "tie_order",
    "condensed": "condensed",
    "missing": "missing",
    "unjudged": "no_relevant",
}
_STATISTICS_PARAMS = {
    "test": "test",
    "correction": "correction",
    "alpha": "alpha",
    "interval": "interval",
    "seed": "seed",
    "delta": "delta",
}
_NAMES = ("experiment", "measure", "method", "threshold", "collection", "split")
"""Named values, in the link's order: the screen's experiment, then the View's settings."""
_SWITCHES = ("present", "allow_incomplete")
_SWITCH = {"1": True, "true": True, "True": True, "0": False, "false": False, "False": False}
"""A switch's value as a link writes it (`as_text`) or a person types it."""
RESERVED = frozenset([*_CONVENTION_PARAMS, *_STATISTICS_PARAMS, *_NAMES, *_SWITCHES, "page"])
"""URL parameters with a meaning of their own; a page's choices use other names."""


@dataclass(frozen=True)
class Screen:
    """One browser's screen: the settings its numbers come from and what it shows of them.

    Only `view` reaches the core; the rest decides which page is drawn and how.
    """

    view: View = View()
    page: str = LANDING
    experiment: str | None = None
    """The experiment picked in the sidebar; None: the first."""
    present: bool = False
    """Presentation mode: large type, no controls."""
    choices: tuple[tuple[str, str], ...] = field(default=())
    """A page's own selections by name (sorted): `a_model=colbert`, `conditions_tab=…`."""

    def __post_init__(self) -> None:
        if self.page not in PAGES:
            raise LeakevalError(f"unknown page {self.page!r}; pages: {', '.join(PAGES)}")
        if self.experiment is not None and (
            not isinstance(self.experiment, str) or not self.experiment
        ):
            raise LeakevalError(
                f"experiment must be a non-empty name or None, got {self.experiment!r}"
            )
        for name, value in self.choices:
            if not _CHOICE.match(name) or name in RESERVED:
                raise LeakevalError(f"{name!r} cannot name a page's choice")
            if not isinstance(value, str):
                raise LeakevalError(f"choice {name!r} must be text, got {value!r}")
        names = [name for name, _ in self.choices]
        if names != sorted(set(names)):
            object.__setattr__(self, "choices", tuple(sorted(dict(self.choices).items())))

    def to_params(self) -> dict[str, str]:
        """URL parameters: every setting that differs from the default, and every choice."""
        view = self.view
        plain = View(measure=view.measure)  # the δs' default is the measure's
        params: dict[str, str] = {}
        if self.experiment is not None:
            params["experiment"] = self.experiment
        for name in _NAMES[1:]:
            if getattr(view, name) != getattr(View(), name):
                params[name] = as_text(getattr(view, name))
        for name, on in zip(_SWITCHES, (self.present, view.allow_incomplete), strict=True):
            if on:
                params[name] = "1"
        for settings, defaults, names in (
            (view.conventions, plain.conventions, _CONVENTION_PARAMS),
            (view.statistics, plain.statistics, _STATISTICS_PARAMS),
        ):
            for param, name in names.items():
                if getattr(settings, name) != getattr(defaults, name):
                    params[param] = as_text(getattr(settings, name))
        params.update(self.choices)
        return params

    def to_url(self, base: str = "") -> str:
        """The link: the landing page is the app's root, every other page its own path."""
        query = urlencode(self.to_params())
        return f"{base}/{url_path(self.page)}" + (f"?{query}" if query else "")

    @classmethod
    def from_params(
        cls, params: Mapping[str, str], page: str = LANDING
    ) -> tuple[Screen, tuple[str, ...]]:
        """A screen from URL parameters, and a notice for every value that had to be replaced."""
        return _decode(params, page)

    @classmethod
    def from_url(cls, url: str) -> tuple[Screen, tuple[str, ...]]:
        parts = urlsplit(url)
        page = parts.path.rstrip("/").rsplit("/", 1)[-1] or LANDING
        return _decode(dict(parse_qsl(parts.query, keep_blank_values=True)), page)


def _decode(params: Mapping[str, str], page: str = LANDING) -> tuple[Screen, tuple[str, ...]]:
    """Read every parameter against its declaration; never raise.

    A bad value is left out, so its default applies, and a notice says so; a threshold
    outside [0, 1] is clamped into it. Parameters that are no setting are page choices,
    kept as text for the page that uses them to check against its options.
    """
    notices: list[str] = []
    defaults = View()

    def bad(name: str, raw: str, why: str, instead: object) -> None:
        notices.append(
            f"Ignored {code(f'{name}={raw[:40]}')} from the link: {plain(why)}; using {instead}."
        )

    screen: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    if page not in PAGES:
        bad("page", page, f"no such page (pages: {', '.join(PAGES)})", f"the {title(LANDING)}")
        page = LANDING
    screen["page"] = page
    if params.get("experiment"):
        screen["experiment"] = str(params["experiment"])
    if params.get("collection"):
        settings["collection"] = str(params["collection"])
    if (raw := params.get("measure")) is not None:
        try:
            settings["measure"] = parse_measure(raw).name
        except LeakevalError as exc:
            bad("measure", raw, str(exc).split(";")[0], defaults.measure)
    if (raw := params.get("method")) is not None:
        if raw in METHODS:
            settings["method"] = raw
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
                    f"The link's {code(f'threshold={raw[:40]}')} is outside [0, 1]; "
                    f"using {clamped:g}."
                )
            settings["threshold"] = clamped
    if (raw := params.get("split")) is not None:
        if raw in SPLITS:
            settings["split"] = raw
        else:
            bad("split", raw, f"not one of {', '.join(SPLITS)}", "leaked or not")
    for name, into, instead in (
        ("present", screen, "no presentation mode"),
        ("allow_incomplete", settings, "incomplete conditions left out"),
    ):
        if (raw := params.get(name)) is not None:
            if (on := _SWITCH.get(raw)) is not None:
                into[name] = on
            else:
                bad(name, raw, "not 1 or 0", instead)
    settings["conventions"] = _settings(_CONVENTION_PARAMS, params, defaults.conventions, bad)
    # unresolved: without a δ in the link, the View puts in the measure's own
    settings["statistics"] = _settings(_STATISTICS_PARAMS, params, Statistics(), bad)
    choices = {}
    for name, raw in params.items():
        if name in RESERVED:
            continue
        if _CHOICE.match(name):
            choices[name] = str(raw)
        else:
            notices.append(
                f"Ignored the link's parameter {code(name[:40])}: no setting has that name."
            )
    screen["choices"] = tuple(sorted(choices.items()))
    return Screen(View(**settings), **screen), tuple(notices)


_KINDS = {cls: typing.get_type_hints(cls) for cls in (Conventions, Statistics)}
"""Each settings field's declared type, read once: a Literal's arguments are its options."""
_BOUNDS = {
    "depth": (1, 100_000),
    "relevance_level": (1, 100),
    "seed": (0, 2**32 - 1),
}


def _settings(names: dict, params: Mapping[str, str], plain: Conventions | Statistics, bad):
    """One settings object (Conventions or Statistics) from its parameters, field by field:
    each bad value falls back to its own default without taking the others with it. A
    field's options are those its type declares (a Literal), as the CLI's flags read them."""
    kinds = _KINDS[type(plain)]
    chosen = {}
    for param, name in names.items():
        raw = params.get(param)
        if raw is None:
            continue
        default = getattr(plain, name)
        if name == "delta":  # several numbers, comma-separated (`as_text`)
            try:
                chosen[name] = replace(plain, delta=raw).delta
            except LeakevalError:
                bad(param, raw, "not positive numbers separated by commas", "the measure's own")
            continue
        if kinds[name] is bool:
            if (on := _SWITCH.get(raw)) is not None:
                chosen[name] = on
            else:
                bad(param, raw, "not 1 or 0", default)
            continue
        if typing.get_origin(kinds[name]) is typing.Literal:
            options = typing.get_args(kinds[name])
            if raw in options:
                chosen[name] = raw
            else:
                bad(param, raw, f"not one of {', '.join(options)}", default)
            continue
        value = _number(raw, kinds[name])
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
