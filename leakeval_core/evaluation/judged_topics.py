"""The topics a figure is computed over, and why the others are not.

A leaked share counted over every topic of a collection sat beside an audit over fewer (a
Robust04 topic without a relevant document is not scored), so the caption said "of 250" and
the table "249". Every count of leaked topics is "of" the topics the scorer keeps under the
reader's conventions (`PreparedQrels.qids`, the scorer's own rule), and the topics it leaves
out are named beside the count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.qrels import PreparedQrels

__all__ = ["JudgedTopics", "judged_topics"]

_NAMED = 3
"""Left-out topics named one by one; more are counted, the first of them named."""


@dataclass(frozen=True)
class JudgedTopics:
    qids: tuple[str, ...]
    """The topics scored, in the given order."""
    left_out: tuple[str, ...]
    """The given topics the scorer leaves out."""
    reason: str
    """Why they are left out, as a predicate: "has no relevant document"."""

    @property
    def note(self) -> str:
        """The left-out topics in words ("672 has no relevant document"); "" when none."""
        if not self.left_out:
            return ""
        if len(self.left_out) == 1:
            return f"{self.left_out[0]} {self.reason}"
        named = ", ".join(self.left_out[:_NAMED])
        more = ", …" if len(self.left_out) > _NAMED else ""
        plural = self.reason.replace("has ", "have ", 1)
        return f"{len(self.left_out)} topics {plural} ({named}{more})"


def judged_topics(
    topics: Iterable[str], qrels, conventions: Conventions = Conventions()
) -> JudgedTopics:
    """Which of `topics` (one collection's qids) the scorer keeps under `conventions`: those
    with a positive grade (a relevant document at any relevance level), or under
    `no_relevant="zero"` every judged one."""
    scored = set(PreparedQrels(qrels, conventions).qids)
    given = list(dict.fromkeys(str(q) for q in topics))
    reason = "has no judgments" if conventions.no_relevant == "zero" else "has no relevant document"
    return JudgedTopics(
        tuple(q for q in given if q in scored), tuple(q for q in given if q not in scored), reason
    )
