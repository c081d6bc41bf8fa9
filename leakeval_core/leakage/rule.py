"""Which topics count as leaked: one rule, on every path.

A topic is leaked when one of its pairs reaches the threshold of the method that produced the
pair: that method's default (`options.THRESHOLDS`, `GIVEN_THRESHOLD` for a method leakeval does
not know, or the threshold a pairs file says it was cut at) unless the View sets one. Pairs a
person judged are leaked as judged, whatever the threshold: a slider must not overrule a
judgment. An experiment folder, a pairs file, inline detection, the app and the API all hold
their pairs as a `LeakageTable` and ask it, so they cannot count differently, and each says
how many topics are leaked and by which rule in the same words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.detection_options import JUDGED, threshold_for
from leakeval_core.leakage.logs import TrainingLog

__all__ = [
    "ANSWER_COMPARISONS",
    "ANSWER_LEAKED",
    "CLEAN",
    "GIVEN",
    "JUDGED",
    "LEAKS",
    "QUERY_LEAKED",
    "LeakageTable",
]

GIVEN = "given"
"""The method of given pairs that do not name theirs: cut at `GIVEN_THRESHOLD`."""
ANSWER_LEAKED, QUERY_LEAKED, CLEAN = "answer-leaked", "query-leaked", "clean"
SHARED = ("shared_relevant", "shared_docs")
"""The columns a pair gains from training qrels (`answers.py`)."""
LEAKS = (ANSWER_LEAKED, QUERY_LEAKED, CLEAN)
"""How a topic leaked, where training qrels say which answers the model saw (`leaks`)."""
ANSWER_COMPARISONS = ((ANSWER_LEAKED, CLEAN), (QUERY_LEAKED, CLEAN), (ANSWER_LEAKED, QUERY_LEAKED))
"""The split by answers: each kind of leak against clean topics, and answers against queries
alone (does seeing the answer add to seeing the question?), one family of three tests."""
ANSWER_SPLITS = tuple(f"{first} vs {second}" for first, second in ANSWER_COMPARISONS)
"""Their names in an audit's split column; the first is the one a summary leads with."""


@dataclass(frozen=True)
class LeakageTable:
    """Leakage pairs (`detect.LEAKAGE_COLUMNS`, one row per test topic and training query),
    with what the rule needs to read them: each method's default threshold and the logs the
    pairs were found in."""

    table: pd.DataFrame = field(repr=False)
    source: str
    """Where the pairs come from, shown next to every leaked flag."""
    error: str = ""
    """Why the pairs could not be had (then the table is empty and pages say so)."""
    method: str = GIVEN
    """The main method: the detection method of most pairs (`judged` when a person judged
    them all). The View's threshold and `threshold` speak of it."""
    defaults: Mapping[str, float] = field(default_factory=dict)
    """A detected method's default threshold where the pairs were cut at another than its
    own (`leakeval leakage --threshold`, written in the pairs file's sidecar)."""
    logs: tuple[TrainingLog, ...] = ()
    """The training logs the pairs were found in, where known (for the sample warning)."""
    warnings: tuple[str, ...] = ()
    """What was wrong in the file in fields the rule does not read (`leakage_warnings`)."""
    answers: str = ""
    """Where the pairs carry `shared_relevant` (`answers.py`): the line saying how many
    training positives the test qrels judge at all; empty where they do not."""
    answers_level: int | None = None
    """The relevance level `shared_relevant` was counted at, where known."""

    @property
    def empty(self) -> bool:
        return self.table.empty

    @property
    def threshold(self) -> float:
        """The main method's default threshold (1 for judged pairs: their similarity is the
        judgment)."""
        return self.default(self.method)

    def default(self, method: str) -> float:
        if method == JUDGED:
            return 1.0
        return float(self.defaults.get(method, threshold_for(method)))

    def reached(self, threshold: float | None = None) -> pd.Series:
        """Per pair, whether it makes its topic leaked: judged pairs as judged, the others at
        `threshold` (the View's) or else their method's default."""
        table = self.table
        judged = (table.method == JUDGED).to_numpy()
        if threshold is None:
            cut = table.method.map({m: self.default(m) for m in table.method.unique()})
        else:
            cut = pd.Series(float(threshold), index=table.index)
        cut = cut.where(~judged, 1.0)
        return pd.Series(table.similarity.to_numpy() >= cut.to_numpy(), index=table.index)

    def leaked(self, threshold: float | None = None) -> pd.DataFrame:
        """collection, qid of every leaked topic."""
        pairs = self.table[self.reached(threshold)]
        return (
            pairs[["collection", "test_qid"]]
            .drop_duplicates()
            .rename(columns={"test_qid": "qid"})
            .reset_index(drop=True)
        )

    @property
    def answered(self) -> bool:
        """Whether each pair says how many relevant documents it shares (`shared_relevant`)."""
        return "shared_relevant" in self.table.columns

    def leaks(self, threshold: float | None = None) -> pd.DataFrame:
        """collection, qid, leak of every leaked topic: `answer-leaked` when one of its
        near-duplicates (the pairs `reached`) is a training query with a positive document
        the topic's qrels judge relevant, else `query-leaked`. A topic absent is clean."""
        if not self.answered:
            raise LeakevalError(
                "which answers leaked needs the training qrels: give them (--train-qrels, "
                "train_qrels=, [training_queries] qrels) or pairs with a shared_relevant column"
            )
        pairs = self.table[self.reached(threshold)]
        answered = (
            pairs.assign(shared=pairs.shared_relevant > 0)
            .groupby(["collection", "test_qid"], sort=True)
            .shared.any()
        )
        return pd.DataFrame(
            {
                "collection": answered.index.get_level_values(0),
                "qid": answered.index.get_level_values(1),
                "leak": np.where(answered.to_numpy(), ANSWER_LEAKED, QUERY_LEAKED),
            }
        )

    def leak_counts(self, topics: pd.DataFrame, threshold: float | None = None) -> pd.DataFrame:
        """Per collection of `topics` (collection, qid: the topics counted): how many are
        answer-leaked, query-leaked and clean (`leaks`), and their sum, `topics`."""
        flagged = topics[["collection", "qid"]].astype(str).drop_duplicates()
        flagged = flagged.merge(self.leaks(threshold), on=["collection", "qid"], how="left")
        flagged["leak"] = flagged.leak.fillna(CLEAN)
        counts = (
            flagged.groupby(["collection", "leak"])
            .size()
            .unstack(fill_value=0)
            .reindex(columns=list(LEAKS), fill_value=0)
        )
        counts["topics"] = counts.sum(axis=1)
        return counts.rename_axis(columns=None).reset_index()

    def leak_statements(
        self, topics: pd.DataFrame, threshold: float | None = None, judged: bool = False
    ) -> dict[str, str]:
        """Per collection: "12 answer-leaked, 13 query-leaked, 25 clean of 50 topics"."""
        of = " judged" if judged else ""
        return {
            row.collection: ", ".join(f"{getattr(row, _field(k))} {k}" for k in LEAKS)
            + f" of {row.topics}{of} topics"
            for row in self.leak_counts(topics, threshold)
            .rename(columns={k: _field(k) for k in LEAKS})
            .itertuples()
        }

    def origin(self, threshold: float | None = None) -> str:
        """Where the topics counted leaked come from, in a sentence that follows the pairs:
        a person's judgments cover only what was judged; a detection finds what its log
        holds, and a sample of a log finds fewer."""
        methods = set(self.table.method)
        if methods == {JUDGED}:
            return (
                f"The bars count topics with a human-judged near-duplicate in {self.source}: "
                "judgments, not a detection in a training log, so a topic no one judged is "
                "not counted."
            )
        rule = self.rule(threshold)
        sampled = (
            " Its log is a sample of the one it stands for, so it finds fewer."
            if any(log.sample_warning() for log in self.logs)
            else ""
        )
        return f"The bars count topics with {rule}, in the pairs from {self.source}.{sampled}"

    def rule(self, threshold: float | None = None, methods: Iterable[str] | None = None) -> str:
        """The rule in words, e.g. "human-judged pairs or lexical similarity ≥ 0.691"."""
        methods = self.table.method if methods is None else pd.Series(list(methods), dtype=str)
        counts = methods.value_counts(sort=True)
        detected = [m for m in counts.index if m != JUDGED]
        parts = ["human-judged pairs"] if JUDGED in counts.index else []
        parts += [
            f"{m} similarity ≥ {number(self.default(m) if threshold is None else threshold)}"
            for m in detected
        ]
        return " or ".join(parts)

    def statements(
        self,
        topics: pd.DataFrame | None = None,
        threshold: float | None = None,
        left_out: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        """Per collection, how many topics are leaked and by which rule: "9 leaked of 250:
        lexical similarity ≥ 0.691", "85 leaked of 125: human-judged pairs", "0 leaked of
        250: no pair reaches lexical similarity ≥ 0.691".

        `topics` (collection, qid) are the topics counted, every topic of each collection
        (or those the pairs cover); without them the count has no "of N" and the
        collections are the pairs'. With `left_out` ({collection: the topics the scorer
        leaves out, in words}) the topics are the judged ones a figure is computed over:
        "172 leaked of 249 judged topics (672 has no relevant document): …".
        """
        judged = " judged topics" if left_out is not None and topics is not None else ""
        out = {}
        for name, (flagged, of, why) in self._counted(topics, threshold).items():
            note = (left_out or {}).get(name, "")
            out[name] = f"{flagged} leaked{of}{judged}{f' ({note})' if note else ''}: {why}"
        return out

    def reasons(
        self, topics: pd.DataFrame | None = None, threshold: float | None = None
    ) -> dict[str, str]:
        """Per collection, the rule part of `statements` alone ("lexical similarity ≥
        0.691", "no pair reaches …"), for a table that gives the counts in a column of
        their own."""
        return {name: why for name, (_, _, why) in self._counted(topics, threshold).items()}

    def _counted(
        self, topics: pd.DataFrame | None, threshold: float | None
    ) -> dict[str, tuple[int, str, str]]:
        """Per collection: leaked topics, " of N" (or ""), and the rule in words."""
        leaked = self.leaked(threshold)
        names = (
            sorted(topics.collection.unique())
            if topics is not None
            else sorted(self.table.collection.unique())
        )
        out = {}
        for name in names:
            flagged = set(leaked.qid[leaked.collection == name])
            of = ""
            if topics is not None:
                counted = set(topics.qid[topics.collection == name].astype(str))
                flagged &= counted
                of = f" of {len(counted)}"
            own = self.table.method[self.table.collection == name]
            why = self._why(len(flagged), list(own.unique()) or self._methods(), threshold)
            out[name] = (len(flagged), of, why)
        return out

    def _methods(self) -> list[str]:
        """The methods of these pairs; of none found, the detection's (none: no pairs)."""
        found = list(self.table.method.unique())
        return found or ([] if self.source == "none" else [self.method])

    def _why(self, flagged: int, methods: list[str], threshold: float | None) -> str:
        if not methods:
            return "no leakage pairs"
        if flagged:
            return self.rule(threshold, methods)
        judged = "no human-judged near-duplicate" if JUDGED in methods else ""
        detected = self.rule(threshold, [m for m in methods if m != JUDGED])
        return " and ".join(p for p in (judged, detected and f"no pair reaches {detected}") if p)

    @classmethod
    def union(cls, tables: Iterable[LeakageTable]) -> LeakageTable:
        """Pairs of several sources as one: each pair keeps its own method, so its own rule.
        Two sources that cut one method at different defaults are an error: one threshold
        per method is what the rule can state."""
        tables = list(tables)
        if len(tables) == 1:
            return tables[0]
        defaults: dict[str, float] = {}
        for table in tables:
            for method, value in table.defaults.items():
                if defaults.setdefault(method, value) != value:
                    raise LeakevalError(
                        f"the leakage pairs cut {method} at {number(defaults[method])} and at "
                        f"{number(value)}; give the threshold to use (--threshold, threshold=)"
                    )
        # answers count only where every source's pairs carry them
        answered = all(t.answered for t in tables)
        frames = [
            t.table if answered else t.table.drop(columns=list(SHARED), errors="ignore")
            for t in tables
            if not t.empty
        ]
        pairs = (
            pd.concat(frames, ignore_index=True).drop_duplicates(ignore_index=True)
            if frames
            else tables[0].table
        )
        return cls(
            pairs,
            " + ".join(t.source for t in tables),
            method=main_method(pairs.method, tables[0].method),
            defaults=defaults,
            logs=tuple(dict.fromkeys(log for t in tables for log in t.logs)),
            warnings=tuple(w for t in tables for w in t.warnings),
            answers=" ".join(dict.fromkeys(t.answers for t in tables)) if answered else "",
        )


def main_method(methods: pd.Series, fallback: str = GIVEN) -> str:
    """The detection method of most pairs; `judged` when a person judged them all."""
    counts = methods.value_counts()
    detected = [m for m in counts.index if m != JUDGED]
    if detected:
        return str(detected[0])
    return JUDGED if len(counts) else fallback


def headline_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of an audit or an inflation table that a one-answer summary (the Story, the
    report, the uploaded audit) leads with: leaked minus other; split by answers,
    answer-leaked minus clean (the others are in the full table)."""
    if "split" not in table:  # inflation's rows, split by leaked topics alone
        return table
    first = "leaked" if (table.split == "leaked").any() else ANSWER_SPLITS[0]
    return table[table.split == first]


def _field(leak: str) -> str:
    return leak.replace("-", "_")


def number(value: float) -> str:
    """A threshold as the rule states it: 0.691, 0.8, 1."""
    return f"{value:.4g}"
