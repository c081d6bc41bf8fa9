"""A contamination card in words: GitHub-flavoured Markdown short enough for a model card or a
pull request, with no HTML.

Every figure is the `Card`'s (`api.cards`, a layer above: it is handed in, never
imported); this module only rounds and words them, with the same presenters the pages use
(`answers_table`, `share`, `fixed`). Two honesty rules shape it: "no evidence" stands
beside the mde that says what it rules out, and a leaked share stands beside how much of
the training data was searched, so a 0% from a sample of a log never reads as clean.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from leakeval_core.analysis.procedures import POWER, TOPIC_SET_SIZE
from leakeval_core.analysis.split import MIN_TOPICS
from leakeval_core.leakage.logs import LOG_SIZES, STUDY
from leakeval_core.present.display import DASH, fixed, share
from leakeval_core.present.story import answers_table
from leakeval_core.present.tables import to_markdown

if TYPE_CHECKING:
    import pandas as pd

    from leakeval_core.leakage.logs import TrainingLog

__all__ = ["card_markdown", "log_text", "markdown_text"]

_SPECIAL = re.compile(r"([\\`*_<>|\[\]])")


def markdown_text(text: object) -> str:
    """Free text (a query, a title, a run's name) as inline Markdown that stays text: one
    line, its Markdown and HTML characters escaped, so a query cannot break a table or
    become a tag."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def log_text(log: TrainingLog) -> str:
    """A training log, its size and how much of the training data it covers, in words."""
    name = markdown_text(log.name)
    full = log.stands_for
    if log.coverage is not None and log.sample_of is not None:
        return (
            f"{name}: {_queries(log.queries)}, {log.coverage:.1%} of {full} ({LOG_SIZES[full]:,})"
        )
    if full is not None:
        return f"{name}: the whole log ({_queries(LOG_SIZES[full])})"
    size = "size not recorded" if log.queries is None else _queries(log.queries)
    return f"{name}: {size}; which training data it samples is not declared (--sample-of)"


def _queries(count: int) -> str:
    return f"{count:,} {'query' if count == 1 else 'queries'}"


def card_markdown(card: Any) -> str:
    """The card: the leakage table, example pairs, the audit table, warnings, the command."""
    parts = [
        f"## {markdown_text(card.title)}",
        _intro(card),
        to_markdown(_leakage_rows(card)).rstrip("\n"),
        *_notes(card),
        "**Examples** (up to five leaked topics per collection, each with its nearest "
        "training query):",
        "\n".join(_examples(card)),
        *_audit(card),
        *(f"**Warning:** {markdown_text(w)}" for w in card.warnings),
        *_reproduce(card),
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def _intro(card: Any) -> str:
    over = "its clean twin" if card.twins else markdown_text(card.baseline)
    audited = f", and whether a model's gain over {over} is larger on them" if card.baseline else ""
    return (
        "Test topics with a near-duplicate among the training queries" + audited + ", by "
        f"leakeval. Leakage pairs: {markdown_text(card.source)}."
    )


def _logs(card: Any) -> str:
    if card.logs:
        return "; ".join(log_text(log) for log in card.logs)
    if card.method == "judged":
        return "none by leakeval: people judged candidate pairs"
    return "not recorded with the pairs"


def _leakage_rows(card: Any) -> pd.DataFrame:
    import pandas as pd

    from leakeval_core.leakage.rule import LEAKS

    table = card.leakage
    categories = {
        name: ", ".join(f"{c.category} {c.pairs}" for c in rows.itertuples())
        for name, rows in card.categories.groupby("collection")
    }
    logs = _logs(card)
    return pd.DataFrame(
        {
            "Collection": [markdown_text(c) for c in table.collection],
            "Leaked topics": [
                f"{leaked} of {topics} ({share(s)})"
                for leaked, topics, s in zip(table.leaked, table.topics, table.share, strict=True)
            ],
            **(
                {
                    "Answer-leaked / query-leaked / clean": [
                        f"{a} / {q} / {c}"
                        for a, q, c in zip(*(table[k] for k in LEAKS), strict=True)
                    ]
                }
                if set(LEAKS) <= set(table.columns)
                else {}
            ),
            "Rule": [markdown_text(r) for r in table.rule],
            "Categories of the leaked pairs": [categories.get(c, DASH) for c in table.collection],
            "Training log searched": logs,
        }
    )


def _notes(card: Any) -> list[str]:
    """What the shares are counted among and compared with, and what a low one means."""
    table = card.leakage
    notes = []
    part = table[table.topics < table.all_topics]
    if len(part):
        counted = "; ".join(
            f"{markdown_text(r.collection)}, {r.topics} of its {r.all_topics}"
            for r in part.itertuples()
        )
        notes.append(f"Topics counted: those the leakage pairs speak for ({counted}).")
    known = table.dropna(subset=["study_share"])
    if len(known):
        shares = [
            f"{share(r.study_share)} of {markdown_text(r.collection)}'s" for r in known.itertuples()
        ]
        listed = " and ".join([", ".join(shares[:-1]), shares[-1]] if len(shares) > 1 else shares)
        notes.append(f"{STUDY} flagged {listed} topics in MS MARCO / ORCAS.")
    partial = not card.logs or any(log.coverage is None or log.coverage < 1 for log in card.logs)
    if card.method != "judged" and partial:
        notes.append(
            "The log searched is not all of the training data, or its share of it is unknown: "
            "each leaked share is a lower bound."
        )
    if card.method == "judged":
        notes.append(
            "The pairs are human judgments of candidates found in the training data: a topic "
            "whose near-duplicate was never a candidate is not counted, so each leaked share "
            "is a lower bound."
        )
    zero = table[table.leaked == 0]
    if len(zero):
        names = ", ".join(markdown_text(c) for c in zero.collection)
        notes.append(
            f"A share of 0% ({names}) means that no pair reached the rule in the log searched "
            "(see how much of the training data it covers), not that the collection is clean."
        )
    return [" ".join(notes)]


def _examples(card: Any) -> list[str]:
    if card.examples.empty:
        return [f"- {DASH} (no topic is leaked)"]
    lines = []
    for row in card.examples.itertuples():
        how = (
            "judged"
            if row.method == "judged"
            else f"{markdown_text(row.method)} {fixed(row.similarity, 3)}"
        )
        kind = f"{markdown_text(row.category)}; " if row.category else ""
        topic = f' "{markdown_text(row.test_text)}"' if row.test_text else ""
        query = f' "{markdown_text(row.train_text)}"' if row.train_text else ""
        lines.append(
            f"- {markdown_text(row.collection)}, topic {markdown_text(row.test_qid)}{topic} ↔ "
            f"training query {markdown_text(row.train_qid) or DASH}{query} ({kind}{how})"
        )
    return lines


def _audit(card: Any) -> list[str]:
    if card.verdicts.empty:
        return [f"**Audit:** {markdown_text(card.no_verdict)}"]
    measure = card.measure
    shown = answers_table(card.verdicts, measure, card.factor, ["collection", *card.keys])
    for column in shown.columns[: list(shown.columns).index("Verdict")]:
        shown[column] = shown[column].map(markdown_text)
    baseline = markdown_text(card.baseline)
    oriented = f"gains oriented: {measure.direction.words}, so positive is an improvement"
    who = (
        f"each leaked-trained condition's {measure.label} gain over its clean twin "
        f"({markdown_text(card.factor)} {baseline}; {oriented})"
        if card.twins
        else f"each model's {measure.label} gain over {baseline} ({oriented})"
    )
    sides = (
        "on the first group of each split minus on the second (answer-leaked: a "
        "near-duplicate training query's positive is a relevant document; query-leaked: "
        "none is)"
        if "Split" in shown
        else "on leaked topics minus on the others"
    )
    return [
        f"**Audit:** {who} {sides}; {card.statistics.describe('split')}. {card.family}",
        to_markdown(shown).rstrip("\n"),
        " ".join([*_verdict_notes(set(card.verdicts.verdict)), card.caveat]),
    ]


def _verdict_notes(verdicts: set[str]) -> list[str]:
    """What the verdicts on the card mean, each said once."""
    notes = []
    if "no evidence" in verdicts:
        notes.append(
            "*no evidence*: the difference is not significant at its row's level; the test "
            f"would have found one of the row's mde or more with {POWER:.0%} power, and rules "
            "out no smaller one. *Topics for δ*: the leaked and other topics that would detect "
            f"each difference δ with {POWER:.0%} power at the row's level ({TOPIC_SET_SIZE.name}, "
            f"{TOPIC_SET_SIZE.reference}; '–' where the row cannot say)."
        )
    if "cannot tell" in verdicts:
        notes.append(
            f"*cannot tell*: fewer than {MIN_TOPICS} leaked or other topics, too few to test."
        )
    return notes


def _reproduce(card: Any) -> list[str]:
    if card.command is None:
        return ["Made from data given in memory: no command makes this card again."]
    return [
        "**Reproduce** (in the folder it was made in; the JSON beside the card holds every "
        "figure unrounded):",
        f"```bash\n{card.command}\n```",
    ]
