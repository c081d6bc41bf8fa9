"""Which way a measure is better, applied once.

A raw difference between two scores (model − baseline, leaked − clean) means "better" for
nDCG when it is positive and for the first relevant rank when it is negative. Where such a
difference becomes a gain, `orient` turns it into one whose positive side is better for
every measure; everything after that (choices, verdicts, intervals, sorting, leaderboards)
works on gains and never asks for the direction again. The words a reader sees ("lower is
better", "0.40 worse") are the only other thing the direction decides, and they are said
here too, so no other module branches on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

__all__ = ["Direction"]

Values = TypeVar("Values")


@dataclass(frozen=True)
class Direction:
    better: Literal["higher", "lower"]

    def __post_init__(self) -> None:
        if self.better not in ("higher", "lower"):
            raise ValueError(f"a measure is better higher or lower, not {self.better!r}")

    @property
    def _sign(self) -> int:
        return 1 if self.better == "higher" else -1

    def orient(self, raw: Values) -> Values:
        """Raw differences (a number, an array, a Series) as gains: positive is better."""
        return raw if self._sign == 1 else -raw

    @property
    def zero_is_worst(self) -> bool:
        """Whether 0 is the worst a measure scores: so for every measure better higher (none
        goes below 0), not for those better lower (a rank, an unjudged share), where 0 is
        the best. A run at 0 on every query of such a measure found nothing it counts."""
        return self._sign == 1

    @property
    def words(self) -> str:
        """ "higher is better" or "lower is better"."""
        return f"{self.better} is better"

    @property
    def gains(self) -> str:
        """What every caption of oriented gains says: "Gains are oriented (lower is better,
        so a positive gain is an improvement)"."""
        return f"Gains are oriented ({self.words}, so a positive gain is an improvement)"

    @property
    def note(self) -> str:
        """What a sentence about a raw value must add so that it reads the right way round:
        nothing where higher is better, which every reader assumes, else " (lower is
        better)"."""
        return "" if self._sign == 1 else f" ({self.words})"

    def raw_reads(self, raw: float) -> str:
        """How a raw difference reads: "better" or "worse" (for a nonzero one)."""
        return "better" if self._sign * raw > 0 else "worse"

    def gain_text(self, signed: str, gain: float) -> str:
        """A gain already formatted with its sign ("+0.19", "-0.40"), as a reader says it:
        as it is where higher is better, whose signs read as they are, else "0.19 better" /
        "0.40 worse", because a rank that falls by 0.4 does not read as "+0.40"."""
        if self._sign == 1 or signed == "0":
            return signed
        return f"{signed.lstrip('+-')} {'better' if gain > 0 else 'worse'}"
