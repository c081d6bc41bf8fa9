"""Figures as a page shows them: tables with headers a reader knows and numbers as text, and
a sentence where a figure is undefined, never "nan" or "-0.00"."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

__all__ = [
    "CHANGES_TITLE",
    "DASH",
    "NO_CHANGES",
    "agreement_figures",
    "best_first",
    "changes_table",
    "fixed",
    "key_columns",
    "leaderboard_table",
    "moved_pairs",
    "rank_interval",
    "share",
    "tau_table",
    "tau_text",
]

DASH = "–"
"""What a table shows for a figure that does not exist (no clean topic, no interval)."""


COMPARED_FIGURES = (
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "ci_low",
    "ci_high",
    "p_adjusted",
    "significant",
    "topics_needed",
)
"""A paired comparison's columns a reader needs on a screen; its other figures (the statistic,
the uncorrected p, the effect size, wins and losses) are in its CSV and report."""
RANKING_FIGURES = ("tau", "tau_low", "tau_high", "p_same", "queries")
"""A ranking change's figures beside its rankings."""


def key_columns(frame: pd.DataFrame, figures: Sequence[str], places: Sequence[str]) -> list[str]:
    """The columns a screen shows of a table of rows placed by `places`: the places whose
    value varies (one that does not is said by the page's filters), then `figures`, so a
    table of 15 rows fits 1280 px without scrolling sideways."""
    varying = [c for c in places if c in frame and frame[c].nunique() > 1]
    return [*varying, *(c for c in figures if c in frame)]


def _missing(value: object) -> bool:
    try:
        return value is None or bool(pd.isna(value)) or not math.isfinite(float(value))
    except (TypeError, ValueError):
        return True


def fixed(value: object, digits: int = 3, sign: bool = False) -> str:
    """`value` with `digits` decimals; one that rounds to zero is "0.000", never "-0.000";
    a missing one is a dash."""
    if _missing(value):
        return DASH
    number = round(float(value), digits) + 0.0  # + 0.0 turns -0.0 into 0.0
    return f"{number:+.{digits}f}" if sign and number != 0 else f"{number:.{digits}f}"


def share(value: object) -> str:
    """A proportion as a whole percentage ("67%"); a missing one is a dash."""
    return DASH if _missing(value) else f"{round(100 * float(value)):d}%"


def _interval(low: object, high: object, digits: int) -> str:
    if _missing(low) or _missing(high):
        return DASH
    return f"[{fixed(low, digits)}, {fixed(high, digits)}]"


def rank_interval(low: object, high: object) -> str:
    """A rank interval as a reader says it: "1–3", or "2" where it is one rank; a dash
    where there is none (no clean topic)."""
    if _missing(low) or _missing(high):
        return DASH
    return f"{int(low)}" if int(low) == int(high) else f"{int(low)}–{int(high)}"


def best_first(board: pd.DataFrame, places: Sequence[str] = ()) -> pd.DataFrame:
    """The leaderboard's rows (`Leaderboard.table`) as every table of it lists them: by
    `places`, then best first on all topics (ties by name), the order of the rank-interval
    chart's rows, so the page's table, the report and the LaTeX agree."""
    keys = [p for p in places if p in board]
    return board.sort_values([*keys, "rank", "system"], kind="stable")


def _rank_change(value: object) -> str:
    if _missing(value):
        return DASH
    change = int(value)
    return f"{change:+d}" if change else "0"


def _grouped(mean: object, group: object, digits: int) -> str:
    """A mean with its HSD group letters, as a paper prints them beside it: "0.723 (ab)"."""
    shown = fixed(mean, digits)
    return f"{shown} ({group})" if isinstance(group, str) and group and shown != DASH else shown


def leaderboard_table(
    board: pd.DataFrame,
    places: Sequence[str] = (),
    confidence: float = 0.95,
    digits: int = 3,
) -> tuple[pd.DataFrame, str]:
    """The leaderboard (`Leaderboard.table`, the audit's too) as a page shows it: readable
    headers, each mean with its HSD group letters ("0.723 (ab)"), each interval in one
    "[low, high]" column, the two rank intervals in one ("1–2 → 1–3"), and only the
    `places` columns (the factors the rows are split by) that vary. Narrow enough for a
    1280-pixel window.

    Returns the table, every figure as text (a missing one a dash, never "nan" or "None"),
    and a sentence saying how many topics each mean is over. The downloads keep the raw
    columns: this is for the screen only.
    """
    if board.empty:
        return board, ""
    board = best_first(board, places)
    level = f"{round(100 * confidence):d}%"
    out = pd.DataFrame(index=board.index)
    for place in places:
        if place in board.columns and board[place].nunique(dropna=False) > 1:
            out[place] = board[place].astype(str)
    out["System"] = board["system"].astype(str)
    counts = []
    ranks = []
    for prefix, name in (("", "all"), ("clean_", "clean")):
        topics = board[f"{prefix}topics"]
        if topics.nunique() > 1:
            out[f"Topics ({name})"] = topics.astype(int)
        else:
            counts.append(int(topics.iloc[0]))
        out[f"Mean ({name} topics)"] = [
            _grouped(v, g, digits)
            for v, g in zip(board[f"{prefix}mean"], board[f"{prefix}group"], strict=True)
        ]
        out[f"{level} CI ({name})" if prefix else f"{level} CI"] = [
            _interval(lo, hi, digits)
            for lo, hi in zip(board[f"{prefix}ci_low"], board[f"{prefix}ci_high"], strict=True)
        ]
        ranks.append(
            [
                rank_interval(lo, hi)
                for lo, hi in zip(
                    board[f"{prefix}rank_low"], board[f"{prefix}rank_high"], strict=True
                )
            ]
        )
    out["Ranks (all → clean)"] = [f"{a} → {c}" for a, c in zip(*ranks, strict=True)]
    out["Rank change"] = [_rank_change(v) for v in board["rank_change"]]
    read = (
        f"Means as scored with their groups (systems sharing a letter are not significantly "
        f"different), {level} t intervals; ranks: the best to the worst rank the test "
        "allows, rank 1 the best; systems listed best first on all topics. Rank change: "
        "positive, the system's mean ranks better (nearer rank 1) on the clean topics."
    )
    note = (
        f"All topics: the {counts[0]:,} every system was scored on; clean topics: the "
        f"{counts[1]:,} of them without a near-duplicate. {read}"
        if len(counts) == 2
        else read
    )
    return out.reset_index(drop=True), note


CHANGES_TITLE = "Pairs whose verdict or order changes without the leaked topics"
"""The heading of `changes_table` wherever it is shown: the app, the report, the CLI."""
NO_CHANGES = (
    "No pair changes from different to tied or tied to different, and no pair's order "
    "reverses, when the leaked topics are left out."
)
"""What stands for `changes_table` where it has no row, on every door."""


def moved_pairs(changes: pd.DataFrame) -> pd.DataFrame:
    """The rows of `Leaderboard.changes` whose verdict or order changes (`tukey.CHANGES`
    but `UNCHANGED`): what every door's table of changed pairs lists."""
    from leakeval_core.analysis.tukey import UNCHANGED

    return changes[changes.change != UNCHANGED] if len(changes) else changes


def changes_table(
    changes: pd.DataFrame, digits: int = 3, places: Sequence[str] = ()
) -> pd.DataFrame:
    """The pairs whose verdict or order changes without the leaked topics
    (`Leaderboard.changes`, the unchanged left out: a pair tied on both whose order flips
    stays) as a page shows them: the `places` that vary (a report holds every leaderboard,
    a page one), the pair, each topic set's difference in the better direction with its
    verdict and p, and the change."""
    moved = moved_pairs(changes)
    if moved.empty:
        return pd.DataFrame()

    def said(difference: object, verdict: object, p: object) -> str:
        return f"{fixed(difference, digits, sign=True)} ({verdict}, p = {float(p):.3g})"

    varying = [p for p in places if p in changes and changes[p].nunique() > 1]
    return pd.DataFrame(
        {
            **{place: moved[place].astype(str).to_numpy() for place in varying},
            "Pair (ahead on all topics first)": [
                f"{a} vs {b}" for a, b in zip(moved.a, moved.b, strict=True)
            ],
            "All topics": [
                said(d, v, p)
                for d, v, p in zip(moved.difference_all, moved["all"], moved.p_all, strict=True)
            ],
            "Clean topics": [
                said(d, v, p)
                for d, v, p in zip(
                    moved.difference_clean, moved["clean"], moved.p_clean, strict=True
                )
            ],
            "Change": moved.change.to_numpy(),
        }
    )


def tau_table(taus: pd.DataFrame, places: Sequence[str] = ()) -> pd.DataFrame:
    """`Leaderboard.tau` as the report lists it, a row per leaderboard (`tau_text` says one
    in a sentence, with the same figures): the `places` that vary, how many systems,
    Kendall's τ and its 95% bootstrap interval over topics."""
    varying = [p for p in places if p in taus and taus[p].nunique() > 1]
    return pd.DataFrame(
        {
            **{place: taus[place].astype(str).to_numpy() for place in varying},
            "Systems": taus.systems.astype(int).to_numpy(),
            "Kendall's τ": [fixed(t, 2, sign=True) for t in taus.tau],
            "95% bootstrap interval": [
                f"{fixed(low, 2, sign=True)} to {fixed(high, 2, sign=True)}"
                for low, high in zip(taus.tau_low, taus.tau_high, strict=True)
            ],
        }
    )


def tau_text(tau: object) -> str:
    """Kendall's τ between a leaderboard's rankings on all and on clean topics (a row of
    `Leaderboard.tau`) in a sentence, as the app's caption and the report's table say it."""
    return (
        f"Kendall's τ between the two rankings of {tau.systems} systems: "
        f"{fixed(tau.tau, 2, sign=True)} (95% bootstrap interval over topics "
        f"{fixed(tau.tau_low, 2, sign=True)} to {fixed(tau.tau_high, 2, sign=True)}); 1 "
        "means the clean topics rank the systems as all topics do."
    )


def agreement_figures(score: Mapping[str, object], threshold: float) -> dict[str, str]:
    """Detection scored against the planted duplicates (`views.leakage_overview(...)
    .agreement`): "precision" and "recall" as text, and a "note" that says why one is
    undefined (no topic flagged at this threshold, or none planted), else "".

    Precision over no flagged topic is 0/0: the page says so instead of showing "nan"."""
    flagged, known = int(score["flagged"]), int(score["known"])
    precision, recall = score.get("precision"), score.get("recall")
    notes = []
    if flagged == 0 or _missing(precision):
        notes.append(f"No topic is flagged at threshold {threshold:.2f}, so precision is undefined")
    if known == 0 or _missing(recall):
        notes.append("no topic has a planted duplicate, so recall is undefined")
    elif notes:
        notes.append(f"recall {share(recall)}")
    note = "; ".join(notes)
    return {
        "precision": "undefined" if _missing(precision) else fixed(precision, 2),
        "recall": "undefined" if _missing(recall) else fixed(recall, 2),
        "note": (note[0].upper() + note[1:] + ".") if note else "",
    }
