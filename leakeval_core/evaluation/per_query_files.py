"""Per-query evaluations as published: the values a run was scored to, without the run.

Papers, TREC's per-topic files, shared tasks and leaderboards keep `trec_eval -q` outputs,
not runs (too large to keep) nor always qrels. Three layouts are read, each told from its
first line like every other format (`is_evaluation`):

- trec_eval -q: `measure qid value`, with `all` lines for the means and `runid all TAG`;
- ir_measures' per-query output: `qid measure value` (`nDCG@10`, `P(rel=2)@10`);
- a CSV or TSV with a header naming a qid column (`formats.COLUMN_ALIASES`), `measure` and
  `value`: pandas' long frame, ir_measures' `iter_calc` rows written out.

Measures are named in trec_eval's or ir_measures' style and read as leakeval's one name
(`measures.parse_measure`), so `nDCG@10` and `ndcg_cut_10` are one measure. A measure
leakeval does not know is kept out and listed (`Evaluation.unread`), never guessed at.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.io.formats import COLUMN_ALIASES, given_format, head_of

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Evaluation",
    "evaluation_frame",
    "is_evaluation",
    "read_evaluation",
    "refuse_unjudged",
]

MEASURE_COLUMNS = ("measure", "metric")
VALUE_COLUMNS = ("value", "score")
_ALL = "all"
_TAG = "runid"


@dataclass(frozen=True)
class Evaluation:
    """One system's published per-query values."""

    name: str
    """The file's name, as its errors and notes name it."""
    table: pd.DataFrame = field(repr=False)
    """qid, measure (leakeval's name), value: one row per query and measure."""
    published: dict[str, str] = field(default_factory=dict)
    """The `all` lines, by measure, as printed (their digits say how they were rounded)."""
    unread: tuple[str, ...] = ()
    """Measure names leakeval does not know, as the file wrote them."""

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.table.measure))

    @property
    def qids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.table.qid))

    def queries_in_all(self) -> int | None:
        """How many queries its means are over, where an `all` line says (trec_eval's num_q)."""
        given = self.published.get("num_q")
        return int(float(given)) if given is not None else None


def is_evaluation(source) -> bool:
    """Whether `source` (a path or an upload's (name, bytes)) is a per-query evaluation,
    from its first line: three fields, the last a number (or trec_eval's run tag) and one
    of the first two a measure; or a header naming a qid, a measure and a value column."""
    if given_format(source) is not None:
        return False  # named as a run's format
    if not isinstance(source, tuple):
        from pathlib import Path

        if not Path(source).is_file():
            return False
    head = head_of(source)
    if head.startswith(b"PAR1"):
        return False
    text = head.decode("utf-8", "replace").removeprefix("\ufeff")
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")), "")
    if _header(first) is not None:
        return True
    return _order(first.split()) is not None


def read_evaluation(source) -> Evaluation:
    """A per-query evaluation file (a path or an upload's (name, bytes)), every value
    checked: one clear error naming the file and the line for anything else."""
    import pandas as pd

    from leakeval_core.io.trec import load_bytes

    name, data = load_bytes(source)
    lines = data.decode("utf-8").split("\n")
    header = None
    rows: dict[tuple[str, str], float] = {}
    published: dict[str, str] = {}
    unread: dict[str, None] = {}
    order = None
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if header is None and order is None:
            header = _header(line)
            if header is not None:
                sep, columns = header
                continue
            order = _order(line.split())
            if order is None:
                raise ParseError(name, number, _layouts(line))
        if header is not None:
            cells = next(csv.reader(io.StringIO(line), delimiter=sep))
            if len(cells) < len(columns[3]):
                raise ParseError(
                    name, number, f"expected {len(columns[3])} columns, found {len(cells)}"
                )
            qid, raw, value = (cells[i].strip() for i in columns[:3])
        else:
            fields = line.split()
            if len(fields) != 3:
                raise ParseError(name, number, f"expected 3 fields ({order}), found {len(fields)}")
            if order == "measure qid value":
                raw, qid, value = fields
            else:
                qid, raw, value = fields
        if raw == _TAG:
            continue
        measure = _measure(raw)
        if measure is None:
            unread[raw] = None
            continue
        number_value = _value(name, number, value)
        if qid == _ALL:
            published[measure] = value
            continue
        if rows.setdefault((qid, measure), number_value) != number_value and not (
            math.isnan(number_value) and math.isnan(rows[(qid, measure)])
        ):
            raise ParseError(
                name,
                number,
                f"{raw} of query {qid} given twice, as {rows[(qid, measure)]} and {value}",
            )
    if not rows:
        raise ParseError(
            name,
            None,
            "holds no per-query value of a measure leakeval knows"
            + (f" (measures: {', '.join(unread)})" if unread else ""),
        )
    table = pd.DataFrame(
        {
            "qid": pd.array([q for q, _ in rows], dtype="str"),
            "measure": [m for _, m in rows],
            "value": list(rows.values()),
        }
    )
    return Evaluation(name, table, published, tuple(unread))


def refuse_unjudged(runs: Mapping[str, object]) -> None:
    """Runs given without qrels: each must be a published evaluation, whose values need
    none; a ranking does."""
    rankings = [name for name, run in runs.items() if not isinstance(run, Evaluation)]
    if rankings:
        raise LeakevalError(
            f"qrels needed: {', '.join(rankings)} "
            f"{'is a run' if len(rankings) == 1 else 'are runs'}"
            " (a ranking to score); only per-query evaluations (trec_eval -q, ir_measures, "
            "qid,measure,value) are taken without qrels"
        )


def evaluation_frame(name: str, frame: pd.DataFrame) -> Evaluation:
    """A frame of per-query values (a qid column, measure, value) as an `Evaluation`,
    checked as a file's rows are: what ir_measures' `iter_calc` or a pandas pivot gives."""
    import pandas as pd

    qid = next((c for c in COLUMN_ALIASES["qid"] if c in frame.columns), None)
    if qid is None:
        raise LeakevalError(f"{name}: per-query values need a qid column besides measure, value")
    text = pd.DataFrame(
        {
            "qid": frame[qid].astype(str),
            "measure": frame.measure.astype(str),
            "value": frame.value.astype(str),
        }
    )
    lines = text.to_csv(sep="\t", index=False).encode()
    return read_evaluation((name, lines))


def _header(line: str) -> tuple[str, tuple] | None:
    """The separator and the positions of the qid, measure and value columns (then every
    cell) of a header line; None when it is not one."""
    for sep in ("\t", ","):
        cells = [c.strip().strip('"').lower() for c in line.split(sep)]
        if len(cells) < 3:
            continue
        found = [
            next((cells.index(n) for n in names if n in cells), None)
            for names in (COLUMN_ALIASES["qid"], MEASURE_COLUMNS, VALUE_COLUMNS)
        ]
        if None not in found and not any(c in COLUMN_ALIASES["docid"] for c in cells):
            return sep, (*found, cells)
    return None


def _order(fields: list[str]) -> str | None:
    """Which of the two three-field layouts a line is in; None when it is neither."""
    if len(fields) != 3:
        return None
    try:
        float(fields[2])
    except ValueError:
        if fields[0] != _TAG:
            return None
    if fields[0] == _TAG or fields[1] == _ALL or _measure(fields[0]) is not None:
        return "measure qid value"
    if _measure(fields[1]) is not None:
        return "qid measure value"
    return None


@cache
def _measure(raw: str) -> str | None:
    """leakeval's name of a measure named in trec_eval's or ir_measures' style; None for a
    name it does not know."""
    from leakeval_core.evaluation.measures import parse_measure

    try:
        return parse_measure(raw).name
    except LeakevalError:
        return None


def _value(name: str, number: int, value: str) -> float:
    try:
        parsed = float(value)
    except ValueError:
        raise ParseError(name, number, f"value {value!r} is not a number") from None
    if math.isinf(parsed):
        raise ParseError(name, number, f"value {value!r} is not finite")
    return parsed


def _layouts(line: str) -> str:
    shown = line if len(line) <= 80 else line[:77] + "..."
    return (
        f"{shown!r} is not a per-query evaluation line: expected trec_eval -q's "
        "`measure qid value`, ir_measures' `qid measure value`, or a header naming qid, "
        "measure and value columns"
    )
