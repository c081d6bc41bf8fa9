"""Measure declarations: one place that says what each measure is and which way is better.

Parsing, validation, CLI help, UI labels and tooltips all read these declarations, so a
measure's name, label and direction can never disagree between two screens.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation import ir_names
from leakeval_core.evaluation.direction import Direction

__all__ = [
    "ALL_TREC",
    "COUNT_DELTAS",
    "DASHBOARD_MEASURES",
    "DEFAULT_MEASURES",
    "FAMILIES",
    "PYTREC_FAMILIES",
    "SCORE_DELTAS",
    "Measure",
    "MeasureFamily",
    "Naming",
    "default_deltas_text",
    "ir_parameters",
    "offered_measures",
    "parse_measure",
    "parse_measures",
    "relevance_level_note",
    "scored_with",
]


SCORE_DELTAS = (0.01, 0.02, 0.05)
"""The differences δ sized for by default on a measure between 0 and 1 (nDCG, P, AP, ...):
a point, two and five of a score."""
COUNT_DELTAS = (1.0, 2.0, 5.0)
"""The same for a measure counted in ranks or documents (the first relevant rank, num_*):
on such a scale 0.01 is no difference anyone asks about, and sizing for it gives counts of
topics no collection has."""


Relevance = Literal["binary", "graded", "unread"]
RELEVANCE: dict[str, str] = {
    "binary": "a document is relevant at a grade at or above the relevance level",
    "graded": "the grades are the gains; the relevance level never changes them",
    "unread": "reads only whether a document is judged, never its grade",
}
"""The three ways a measure reads the grades, and so what the relevance level does to it.
trec_eval's `-l` (pytrec_eval's `relevance_level`) is the binary measures' threshold; the
nDCG family gains every positive grade whatever it is. A graded measure that ignores the
grades below a level is its own measure (`nDCG(gains={1: 0})@10`), never a side effect."""


@dataclass(frozen=True)
class MeasureFamily:
    name: str
    label: str
    better: Literal["higher", "lower"]
    description: str
    cutoff: bool
    native: bool
    """Computed by leakeval's vectorised scorer; otherwise delegated to pytrec_eval."""
    decimal: bool = False
    """The parameter is a fraction written with two decimals (iprec_at_recall_0.10)."""
    aggregate: Literal["mean", "sum", "geometric"] = "mean"
    """How the `all` row combines queries, as trec_eval does: counts are summed, gm_* are
    geometric means (with trec_eval's floor of 1e-5)."""
    deltas: tuple[float, ...] = SCORE_DELTAS
    """The differences δ, in the measure's own unit, whose topics needed every row reports
    unless others are asked for (`Statistics.delta`, `--delta`, `delta=`): declared beside
    the direction, as the unit they are in is the measure's."""
    relevance: Relevance = "binary"
    """What the relevance level does to this measure (`RELEVANCE`), as trec_eval applies
    `-l`: declared here, so the scorer, the docs and every caption read one rule."""
    nothing_to_credit: float = 0.0
    """Its value on a query with nothing to credit, whose denominator is empty (no document
    at the relevance level for a binary measure, no positive grade for a graded one):
    trec_eval's 0, or NaN where the query leaves the mean and is counted instead."""
    gain: bool = False
    """Whether its grades gain as the gain says (the conventions' `--gain`, or its own
    `dcg=` or `gains=`, which it alone takes): nDCG's family. RBP and G gain the grades as
    they are."""
    unranked: float | None = 0.0
    """Its value on a query the run does not rank, which trec_eval -c scores as a query:
    what an empty ranking finds, 0, but 1 for num_q (still a query); None where it is
    computed from the qrels alone (num_rel counts the query's relevant documents,
    first_rel_rank has none to find, gm_* take their floor)."""


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
            relevance="graded",
            gain=True,
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
            "R@{k}",
            "higher",
            "Share of the query's relevant documents found in the top k.",
            cutoff=True,
            native=True,
        ),
        MeasureFamily(
            "judged",
            "Judged@{k}",
            "higher",
            "Share of the top k (or of all the run ranks, if fewer) with a judgment of any "
            "grade, as ir_measures' Judged@k. Low values mean the other scores are lower "
            "bounds (pooling bias).",
            cutoff=True,
            native=True,
            relevance="unread",
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
            deltas=COUNT_DELTAS,
            nothing_to_credit=math.nan,
            unranked=None,
        ),
        MeasureFamily(
            "map",
            "AP",
            "higher",
            "Average precision over the relevant documents, within depth.",
            cutoff=False,
            native=True,
        ),
        MeasureFamily(
            "iprec_at_recall",
            "iPrec@{k:.2f}",
            "higher",
            "Interpolated precision at this recall level: the best precision at any rank "
            "reaching it (trec_eval 10, whose recall levels compare exactly).",
            cutoff=True,
            native=True,
            decimal=True,
        ),
        MeasureFamily(
            "11pt_avg",
            "11-point average",
            "higher",
            "Mean interpolated precision over the recall levels 0.0, 0.1, ..., 1.0.",
            cutoff=False,
            native=True,
        ),
        MeasureFamily(
            "unj",
            "Unjudged@{k}",
            "lower",
            "Share of the top k without a judgment (trec_eval 10); negative grades count as "
            "unjudged, as in trec_eval.",
            cutoff=True,
            native=True,
            relevance="unread",
        ),
        MeasureFamily(
            "rbp",
            "RBP",
            "higher",
            "Rank-biased precision with persistence 0.9, as trec_eval 10's rbp: each "
            "document gains its grade over the query's highest grade, whatever the level.",
            cutoff=False,
            native=True,
            relevance="graded",
        ),
        MeasureFamily(
            "rbp_resid",
            "RBP residual",
            "lower",
            "The most RBP could still grow if every unjudged document were relevant "
            "(trec_eval 10's rbp_resid: 0 where the run ranks no unjudged document).",
            cutoff=False,
            native=True,
            relevance="unread",
        ),
    )
}

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""trec_eval's default cutoffs of P, recall, ndcg_cut, map_cut and relative_P."""


def _at(family: str, cutoffs: Sequence[object] = _CUTOFFS) -> list[str]:
    return [f"{family}_{k}" for k in cutoffs]


ALL_TREC = (
    *("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref"),
    "recip_rank",
    *_at("iprec_at_recall", [f"{level / 10:.2f}" for level in range(11)]),
    *_at("P"),
    *_at("recall"),
    *("infAP", "gm_bpref"),
    *_at("Rprec_mult", [f"{ratio / 10:.2f}" for ratio in range(2, 21, 2)]),
    *("utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg"),
    *_at("ndcg_cut"),
    *_at("map_cut"),
    *_at("relative_P"),
    *_at("success", (1, 5, 10)),
    *("set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"),
    *("rbp", "rbp_resid"),
    *_at("unj", (5, 10, 20)),
)
"""trec_eval 10's `-m all_trec`, in its order, without `runid` (text: the run's tag)."""


def _trec_eval(name: str, **declared) -> MeasureFamily:
    """A measure pytrec_eval computes for leakeval, declared by what sets it apart from the
    usual one: binary, a mean, scored between 0 and 1."""
    return MeasureFamily(name, name, "higher", "trec_eval measure", False, False, **declared)


PYTREC_FAMILIES: dict[str, MeasureFamily] = {
    f.name: f
    for f in (
        # trec_eval scores Rndcg 0 on a query without a document at the level, and gains
        # every grade on the others
        *(_trec_eval(n, relevance="graded", gain=True) for n in ("ndcg", "ndcg_rel", "Rndcg")),
        _trec_eval("G", relevance="graded"),
        _trec_eval("num_q", aggregate="sum", deltas=COUNT_DELTAS, relevance="unread", unranked=1),
        _trec_eval("num_ret", aggregate="sum", deltas=COUNT_DELTAS, relevance="unread"),
        _trec_eval("num_rel", aggregate="sum", deltas=COUNT_DELTAS, unranked=None),
        *(
            _trec_eval(n, aggregate="sum", deltas=COUNT_DELTAS)
            for n in ("num_rel_ret", "num_nonrel_judged_ret")
        ),
        *(_trec_eval(n, aggregate="geometric", unranked=None) for n in ("gm_map", "gm_bpref")),
    )
}
"""The measures pytrec_eval computes for leakeval that are not binary means (`RELEVANCE`,
`MeasureFamily.aggregate`), declared as leakeval's own are; every other one, and each cutoff
or parameter of one (`success_10`, `iprec_at_recall_0.10`), is `_trec_eval(name)`."""

TEXT_MEASURES = frozenset(["runid", "relstring"])
"""trec_eval measures whose value is text, not a number per query: refused by name."""

DEFAULT_MEASURES = ("ndcg_cut_10", "P_1", "first_rel_rank", "recall_100", "judged_10")
DASHBOARD_MEASURES = (
    "ndcg_cut_10",
    "P_1",
    "first_rel_rank",
    "recip_rank",
    "map",
    "recall_100",
    "judged_10",
)
"""What the dashboard scores once per experiment and conventions, and every page picks from:
also what `leakeval demo` precomputes, so the demo opens without scoring."""


def scored_with(name: str, together: Sequence[str] = DASHBOARD_MEASURES) -> tuple[str, ...]:
    """The measures scored together with `name`: `together` (the dashboard's, or what an
    experiment's published evaluations carry), when it is one of them, so a command or verb
    asking for one finds the table the app cached or the demo precomputed (scoring seven
    native measures costs little more than one: reading the runs dominates)."""
    return tuple(together) if name in together else (name,)


def offered_measures(carried: Sequence[str] | None = None) -> tuple[str, ...]:
    """The measures a figure can be drawn for, the dashboard's first (`DASHBOARD_MEASURES`,
    the study's own): with runs, every other measure the scorer computes (trec_eval's
    `all_trec`); with published evaluations, the ones they `carried`. Counts (num_q,
    num_ret, ...) are left out: a sum per query compares nothing between topics."""
    pool = (*DASHBOARD_MEASURES, *ALL_TREC) if carried is None else tuple(carried)
    first = [m for m in DASHBOARD_MEASURES if m in pool]
    rest = [m for m in pool if parse_measure(m).family.aggregate != "sum"]
    return tuple(dict.fromkeys([*first, *rest]))


Naming = Literal["trec_eval", "ir_measures"]
"""How outputs label measures: `ndcg_cut_10` or `nDCG@10` (`--names`)."""


@dataclass(frozen=True)
class Measure:
    family: MeasureFamily
    cutoff: float | None = None
    rel: int | None = None
    """This measure's own relevance level (ir_measures' `rel`); None: the conventions'."""
    gain: Literal["linear", "exponential"] | None = None
    """This measure's own nDCG gain (ir_measures' `dcg`); None: the conventions'."""
    gains: tuple[tuple[int, int], ...] | None = None
    """This measure's own gain of each grade it names, (grade, gain) pairs (ir_measures'
    `gains`, as in `nDCG(gains={1: 0})@10`: grade 1 gains nothing); other grades gain
    themselves, linearly. None: the grades are the gains."""

    @property
    def settings(self) -> ir_names.Params:
        given = (("rel", self.rel), ("gain", self.gain), ("gains", self.gains))
        return {k: v for k, v in given if v is not None}

    @property
    def _cutoff_text(self) -> str | None:
        if not self.family.cutoff:
            return None
        return f"{self.cutoff:.2f}" if self.family.decimal else str(self.cutoff)

    @property
    def trec_name(self) -> str:
        """trec_eval's own name, without this measure's settings: what pytrec_eval is asked."""
        k = self._cutoff_text
        return self.family.name if k is None else f"{self.family.name}_{k}"

    @property
    def name(self) -> str:
        """The trec_eval-style name used in tables and files, e.g. `ndcg_cut_10`, with its
        own settings in ir_measures' syntax: `P_10(rel=2)`."""
        return self.trec_name + ir_names.format_params(self.settings)

    @property
    def ir_name(self) -> str | None:
        """ir_measures' name (`nDCG@10`, `P(rel=2)@10`), None where it has none (MFR)."""
        return ir_names.ir_label(self.family.name, self._cutoff_text, self.settings)

    def named(self, naming: Naming) -> str:
        """The name in `naming`'s style; trec_eval's where ir_measures has none."""
        return (self.ir_name or self.name) if naming == "ir_measures" else self.name

    @property
    def label(self) -> str:
        """What people read: ir_measures' name, as papers write it, else the family's."""
        return self.ir_name or (
            self.family.label.format(k=self.cutoff) + ir_names.format_params(self.settings)
        )

    @property
    def better(self) -> str:
        return self.family.better

    @property
    def direction(self) -> Direction:
        """Where raw differences become gains, and the words that say which way is better."""
        return Direction(self.family.better)

    @property
    def deltas(self) -> tuple[float, ...]:
        """The differences sized for unless others are asked for, in this measure's unit."""
        return self.family.deltas

    @property
    def axis_title(self) -> str:
        """A plot axis title that says which way is better."""
        return f"{self.label} ({self.direction.words})"


def default_deltas_text() -> str:
    """The default δs of every measure in words, from the registry, for a help text that
    cannot know the measure chosen: "0.01, 0.02, 0.05; first_rel_rank: 1, 2, 5; ..."."""

    def listed(deltas: tuple[float, ...]) -> str:
        return ", ".join(f"{d:g}" for d in deltas)

    others = [f for f in FAMILIES.values() if f.deltas != SCORE_DELTAS]
    named = [f"{f.name}: {listed(f.deltas)}" for f in others]
    counts = f"trec_eval's counts (num_*): {listed(COUNT_DELTAS)}"
    return "; ".join([listed(SCORE_DELTAS), *named, counts])


def relevance_level_note() -> str:
    """Which measures the relevance level moves, from their declarations: "moves P, R, ...
    and trec_eval's binary measures; not nDCG, RBP, ..."."""

    def reading(relevance: Relevance) -> str:
        labels = [f.label.split("@")[0] for f in FAMILIES.values() if f.relevance == relevance]
        in_a_sentence = [x[0].lower() + x[1:] if " " in x else x for x in labels]  # "first ..."
        return ", ".join(dict.fromkeys(in_a_sentence))

    return (
        f"moves {reading('binary')} and trec_eval's binary measures (bpref, Rprec, ...); "
        f"not {reading('graded')}, which gain every positive grade"
    )


_CUTOFF = re.compile(r"^(?P<base>[A-Za-z_]+?)_(?P<k>\d+)$")
_PARAMETER = re.compile(r"^(?P<base>[A-Za-z_]+?)_(?P<k>\d+\.\d+)$")


_SETTINGS = re.compile(r"^(?P<base>[^()]+)\((?P<params>[^()]*)\)$")


def parse_measure(text: str) -> Measure:
    """Parse a trec_eval name (`ndcg_cut_10`, `P_1`, any pytrec_eval measure), leakeval's
    `first_rel_rank`, or an ir_measures name (`nDCG@10`, `P(rel=2)@10`, `RR`)."""
    name = text.strip()
    try:
        ir = ir_names.to_trec(name)
        if ir is not None:
            return _with_settings(_parse_trec(ir[0]), ir[1], name)
        match = _SETTINGS.match(name)
        if match:
            settings = ir_names.parse_settings(match["params"], name)
            return _with_settings(_parse_trec(match["base"].strip()), settings, name)
    except ValueError as exc:
        raise LeakevalError(str(exc)) from None
    return _parse_trec(name)


def _with_settings(measure: Measure, settings: ir_names.Params, name: str) -> Measure:
    """`measure` with its own settings, where its declaration takes them: a level of its own
    where it reads grades as relevant or not (`MeasureFamily.relevance`), a gain where its
    grades gain (`MeasureFamily.gain`)."""
    family = measure.family
    taken = _params_taken(family)
    refused = sorted({{"gain": "dcg"}.get(k, k) for k in settings} - taken)
    if not refused:
        return replace(measure, **settings)
    param = refused[0]
    if param not in ("rel", "dcg", "gains"):
        takes = ", ".join(sorted(taken)) or "none"
        raise LeakevalError(
            f"measure {name!r}: parameter {param!r} is not computed here "
            f"({measure.name} takes: {takes})"
        )
    if param in ("dcg", "gains"):
        why = "only nDCG's family gains grades as told, as in nDCG(gains={1: 0})@10"
    elif family.relevance == "graded":
        why = ir_names.GRADED_REL
    else:
        why = f"it {RELEVANCE[family.relevance]}"
    raise LeakevalError(f"measure {name!r}: {measure.name} takes no {param} of its own ({why})")


def _parse_trec(name: str) -> Measure:
    if name in FAMILIES and not FAMILIES[name].cutoff:
        return Measure(FAMILIES[name])
    match = _PARAMETER.match(name)
    if match and match["base"] in FAMILIES and FAMILIES[match["base"]].decimal:
        k = float(match["k"])
        if not 0.0 <= k <= 1.0:
            raise LeakevalError(f"measure {name!r}: the recall level must be within 0 and 1")
        return Measure(FAMILIES[match["base"]], k)
    match = _CUTOFF.match(name)
    if match and match["base"] in FAMILIES and FAMILIES[match["base"]].cutoff:
        if FAMILIES[match["base"]].decimal:
            raise LeakevalError(f"measure {name!r}: write the level with decimals, e.g. _0.10")
        k = int(match["k"])
        if k < 1:
            raise LeakevalError(f"measure {name!r}: the cutoff must be at least 1")
        return Measure(FAMILIES[match["base"]], k)
    return _pytrec_eval_measure(name)


def _pytrec_eval_measure(name: str) -> Measure:
    import pytrec_eval

    if name in TEXT_MEASURES or name.split("_")[0] in TEXT_MEASURES:
        raise LeakevalError(
            f"measure {name!r} is text, not a number per query (trec_eval prints it beside "
            "the scores); leakeval does not compute it"
        )
    supported = set(pytrec_eval.supported_measures) - TEXT_MEASURES
    if name in supported:
        return Measure(PYTREC_FAMILIES.get(name) or _trec_eval(name))
    match = _CUTOFF.match(name)
    if match and match["base"] in supported:
        base = PYTREC_FAMILIES.get(match["base"]) or _trec_eval(match["base"])
        family = replace(base, label=f"{base.name}@{{k}}", cutoff=True)
        return Measure(family, int(match["k"]))
    match = _PARAMETER.match(name)  # iprec_at_recall_0.10, Rprec_mult_0.20
    if match and match["base"] in supported:
        return Measure(_trec_eval(name))
    raise LeakevalError(f"unknown measure {name!r}; known: {KNOWN}")


def ir_parameters(name: str) -> list[str]:
    """The parameters ir_measures' `name` takes here: those that choose its trec_eval
    measure, `rel` where that measure is binary, `dcg` and `gains` where it is nDCG."""
    ir = ir_names.IR_MEASURES[name]
    trec = ir.whole or ir.cut.removesuffix("_{k}")
    family = FAMILIES.get(trec) or PYTREC_FAMILIES.get(trec) or _trec_eval(trec)
    return sorted(ir.params | _params_taken(family))


def _params_taken(family: MeasureFamily) -> set[str]:
    """The parameters (ir_measures' names) a measure of `family` takes of its own, from its
    declaration: `rel` where it is binary, `dcg` and `gains` where its grades gain."""
    rel = {"rel"} if family.relevance == "binary" else set()
    return rel | ({"dcg", "gains"} if family.gain else set())


KNOWN = (
    "ir_measures' "
    + ", ".join(
        n + ("" if m.cut is None else "@K" if m.whole is None else "[@K]")
        for n, m in ir_names.IR_MEASURES.items()
    )
    + " (with rel=, or dcg= for nDCG, as in P(rel=2)@10); trec_eval's "
    + ", ".join(f"{f.name}_K" if f.cutoff else f.name for f in FAMILIES.values())
    + " and any other pytrec_eval measure"
)


def parse_measures(text: str | Sequence[object]) -> tuple[Measure, ...]:
    """Parse a comma-separated list or a sequence of names, measures (passed through) or
    ir_measures measure objects, keeping order and dropping repeats."""
    items = (
        ir_names.split_top_level(text)
        if isinstance(text, str)
        else [_from_ir_measures(m) for m in text]
    )
    items = [
        name
        for item in items
        for name in (ALL_TREC if isinstance(item, str) and item.strip() == "all_trec" else [item])
    ]
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


def _from_ir_measures(item: object) -> str | Measure:
    """An ir_measures measure object (`ir_measures.nDCG@10`) as its name; ir_measures
    itself is never imported, so it need not be installed."""
    if isinstance(item, str | Measure):
        return item
    if type(item).__module__.startswith("ir_measures"):
        return str(item)
    raise LeakevalError(f"not a measure: {item!r} (give a name such as 'nDCG@10')")
