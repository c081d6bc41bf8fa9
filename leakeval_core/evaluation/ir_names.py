"""ir_measures' measure names (`nDCG@10`, `P(rel=2)@10`, `RR`), as PyTerrier and most
current papers write them, read as the trec_eval measure that computes the same number.

Each ir_measures name maps to one trec_eval name (the table below is ir_measures' own
pytrec_eval provider's), and its parameters to leakeval's per-measure settings: `rel` is the
relevance level of that measure alone, `dcg='exp-log2'` its exponential gain. A parameter
left out follows the conventions, as the trec_eval name does; with the default conventions
that is ir_measures' default too (rel=1, dcg='log2'). Nothing here imports ir_measures.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

__all__ = [
    "GRADED_REL",
    "IR_MEASURES",
    "Params",
    "format_params",
    "ir_label",
    "parse_settings",
    "split_top_level",
    "to_trec",
]


@dataclass(frozen=True)
class _IrMeasure:
    whole: str | None
    """The trec_eval name without a cutoff (None: ir_measures requires one)."""
    cut: str | None
    """The trec_eval name at a cutoff, `{k}` standing for it (None: takes no cutoff)."""
    params: frozenset[str] = frozenset()
    """The parameters that choose the trec_eval measure (SetP's `relative`, NumRet's `rel`).
    A relevance level or gain of its own is its trec_eval measure's to take, as declared
    (`measures.ir_parameters`)."""


IR_MEASURES: dict[str, _IrMeasure] = {
    "nDCG": _IrMeasure("ndcg", "ndcg_cut_{k}"),
    "P": _IrMeasure(None, "P_{k}"),
    "R": _IrMeasure(None, "recall_{k}"),
    "RR": _IrMeasure("recip_rank", None),
    "AP": _IrMeasure("map", "map_cut_{k}"),
    "Judged": _IrMeasure(None, "judged_{k}"),
    "Rprec": _IrMeasure("Rprec", None),
    "Bpref": _IrMeasure("bpref", None),
    "Success": _IrMeasure(None, "success_{k}"),
    "IPrec": _IrMeasure(None, "iprec_at_recall_{k}"),
    "infAP": _IrMeasure("infAP", None),
    "NumQ": _IrMeasure("num_q", None),
    "NumRet": _IrMeasure("num_ret", None, frozenset(["rel"])),  # rel: reads as NumRelRet
    "NumRelRet": _IrMeasure("num_rel_ret", None),
    "NumRel": _IrMeasure("num_rel", None),
    "SetP": _IrMeasure("set_P", None, frozenset(["relative"])),
    "SetR": _IrMeasure("set_recall", None),
    "SetF": _IrMeasure("set_F", None, frozenset(["beta"])),
    "SetAP": _IrMeasure("set_map", None),
}
"""ir_measures name -> the trec_eval measure its pytrec_eval provider computes."""

_ALIASES = {
    "NDCG": "nDCG",
    "Precision": "P",
    "Recall": "R",
    "MRR": "RR",
    "MAP": "AP",
    "RPrec": "Rprec",
    "BPref": "Bpref",
}
"""Other names ir_measures registers for the same measures."""

_BACK = {
    trec: name
    for name, m in IR_MEASURES.items()
    for trec in (m.whole, m.cut and m.cut.removesuffix("_{k}"))
    if trec
} | {"set_relative_P": "SetP"}
"""trec_eval family -> ir_measures name."""

_SYNTAX = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<at>[^@()]+))?$")

GRADED_REL = (
    "its gains are the grades, whatever the relevance level; one that ignores grades below "
    "2 is its own measure: nDCG(gains={1: 0})@10"
)
"""Why nDCG takes no `rel`: said for `nDCG(rel=2)@10` and `ndcg_cut_10(rel=2)` alike."""

Params = dict[str, object]
"""`rel` (an int), `gain` (`linear` or `exponential`) and `gains` (each grade's own gain, as
sorted (grade, gain) pairs): leakeval's names for them."""


def split_top_level(text: str) -> list[str]:
    """Split at the commas outside brackets: between measures, not inside
    `nDCG(dcg='exp-log2', ...)`; between parameters, not inside `gains={1: 0, 2: 1}`."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, "{": 1, "[": 1, ")": -1, "}": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    return [*items, text[start:]]


def parse_params(text: str, where: str) -> Params:
    """`rel=2, dcg='exp-log2'` as ir_measures writes parameters, checked."""
    params: Params = {}
    for item in filter(None, (part.strip() for part in split_top_level(text))):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"measure {where!r}: write each parameter as name=value")
        try:
            value = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            raise ValueError(
                f"measure {where!r}: {key}={raw.strip()} is not a number, True/False or quoted text"
            ) from None
        params[key] = value
    return params


def to_trec(text: str) -> tuple[str, Params] | None:
    """The trec_eval name and the settings an ir_measures name means, or None when `text`
    is not written as an ir_measures name. Raises ValueError for one it cannot compute."""
    match = _SYNTAX.match(text)
    if match is None:
        return None
    name = _ALIASES.get(match["name"], match["name"])
    measure = IR_MEASURES.get(name)
    if measure is None:
        return None
    given = parse_params(match["params"] or "", text)
    at = match["at"]
    if at is None and measure.whole is None:
        raise ValueError(f"measure {text!r}: ir_measures' {name} needs a cutoff, e.g. {name}@10")
    if at is not None and measure.cut is None:
        depth = " (--depth 10 cuts every run at 10)" if name == "RR" else ""
        raise ValueError(f"measure {text!r}: leakeval computes {name} without a cutoff{depth}")
    if at is None:
        trec = measure.whole
    elif name == "IPrec":
        trec = measure.cut.format(k=f"{_number(at, text, float):.2f}")
    else:
        trec = measure.cut.format(k=_number(at, text, int))
    chooses = {k: given.pop(k) for k in ("relative", "beta") if k in measure.params & set(given)}
    settings = _settings(given, text)
    if name == "NumRet" and "rel" in settings:
        trec = "num_rel_ret"  # ir_measures: NumRet(rel=r) counts the relevant ones
    if chooses.get("relative"):
        trec = "set_relative_P"
    if chooses.get("beta", 1) != 1:
        raise ValueError(f"measure {text!r}: only SetF's beta=1 is computed here")
    return trec, settings


def _number(text: str, where: str, kind: type) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or value <= 0:
        raise ValueError(f"measure {where!r}: the cutoff must be a positive number")
    return value


def parse_settings(text: str, where: str) -> Params:
    """Settings written after a trec_eval name, `P_10(rel=2)`, in ir_measures' syntax."""
    return _settings(parse_params(text, where), where)


def _settings(given: Params, where: str) -> Params:
    """ir_measures' `rel` and `dcg` as leakeval's per-measure relevance level and gain; any
    other parameter as given, for the measure's declaration to accept or refuse."""
    settings: Params = {k: v for k, v in given.items() if k not in ("rel", "dcg", "gains")}
    if "rel" in given:
        if not isinstance(given["rel"], int) or isinstance(given["rel"], bool):
            raise ValueError(f"measure {where!r}: rel is a whole grade, e.g. rel=2")
        if given["rel"] < 1:  # as the conventions' level: grade 0 is judged not relevant
            raise ValueError(f"measure {where!r}: rel is a grade of 1 or more, not {given['rel']}")
        settings["rel"] = given["rel"]
    if "dcg" in given:
        if given["dcg"] not in ("log2", "exp-log2"):
            raise ValueError(f"measure {where!r}: dcg is 'log2' or 'exp-log2'")
        settings["gain"] = "exponential" if given["dcg"] == "exp-log2" else "linear"
    if "gains" in given:
        settings["gains"] = _gains(given["gains"], where)
        if settings.get("gain") == "exponential":
            raise ValueError(
                f"measure {where!r}: gains= sets each grade's gain itself; it takes no "
                "dcg='exp-log2' (as in ir_measures)"
            )
    return settings


def _gains(value: object, where: str) -> tuple[tuple[int, int], ...]:
    """ir_measures' `gains={1: 0, 3: 4}`: a grade's gain, as whole numbers of 0 or more; a
    grade left out gains itself."""
    if not isinstance(value, dict) or not value:
        raise ValueError(f"measure {where!r}: gains maps grades to gains, e.g. gains={{1: 0}}")
    for grade, gain in value.items():
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (grade, gain)):
            raise ValueError(f"measure {where!r}: gains maps whole grades to whole gains")
        if gain < 0:
            raise ValueError(f"measure {where!r}: a gain is 0 or more, not {gain}")
    return tuple(sorted(value.items()))


def format_params(settings: Params) -> str:
    """`(rel=2)` or `(dcg='exp-log2')` as ir_measures prints them; '' without settings."""
    shown: dict[str, object] = {}
    if "gains" in settings:
        shown["gains"] = dict(settings["gains"])
    elif "gain" in settings:
        shown["dcg"] = "exp-log2" if settings["gain"] == "exponential" else "log2"
    if "rel" in settings:
        shown["rel"] = settings["rel"]
    return f"({', '.join(f'{k}={v!r}' for k, v in shown.items())})" if shown else ""


def ir_label(family: str, cutoff: str | None, settings: Params) -> str | None:
    """The ir_measures name of a trec_eval measure (`ndcg_cut`, `10`) with its settings,
    or None where ir_measures has no name for it (first_rel_rank, unj_10, gm_map...)."""
    name = _BACK.get(family)
    if name is None:
        return None
    params = format_params(settings)
    if family == "set_relative_P":
        params = f"(relative=True{', ' + params[1:-1] if params else ''})"
    if family == "num_rel_ret" and params:
        name = "NumRet"
    if cutoff is None:
        return f"{name}{params}"
    at = f"{float(cutoff):g}" if family == "iprec_at_recall" else cutoff
    return f"{name}{params}@{at}"
