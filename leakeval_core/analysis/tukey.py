"""Many systems at once: the randomised Tukey HSD test over topics, the groups of systems it
cannot tell apart, and the ranks each system could hold.

A leaderboard compares every system with every other, so a pairwise test per pair would
find a "winner" by chance. The randomised Tukey HSD (honestly significant difference) test
(Carterette, "Multiple testing in statistical analysis of systems-based information
retrieval experiments", TOIS 2012; Sakai, *Laboratory Experiments in Information
Retrieval*, 2018, ch. 4) holds the family-wise error of all pairs at α and keeps what a
leaderboard's systems share: every system answers the same topics. Under the null that the
systems are exchangeable on each topic, each permutation shuffles every topic's scores
across the systems independently; its statistic is the largest system mean minus the
smallest. A pair's p is the share of permutations whose range reaches the pair's observed
difference, counting the data itself, `(b + 1) / (B + 1)`.

The groups are a compact letter display (Piepho, "An algorithm for a letter-based
representation of all-pairwise comparisons", JCGS 2004): systems that share a letter are
not significantly different, and every letter is a maximal set of mutually undistinguished
systems, so three systems where a ~ b and b ~ c but a ≠ c print as "a", "ab", "b".

Values come in oriented (`Direction.orient`: higher is better for every measure), so the
best system is first and gets "a"; the permutations themselves do not depend on the sign.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import permutations
from math import factorial

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError

__all__ = [
    "CHANGES",
    "CHUNK_CELLS",
    "UNCHANGED",
    "Standings",
    "changes",
    "letters",
    "rank_intervals",
    "standings",
    "tukey_hsd",
]

CHUNK_CELLS = 4_000_000
"""Permuted scores held at once (32 MB of floats): permutations are drawn in chunks of this
many topic × system cells, so memory stays bounded whatever B, topics and systems are."""
_TOLERANCE = 1e-12
"""A permuted range equal to an observed difference up to rounding counts as reaching it."""
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


TABLED_SYSTEMS = 6
"""Up to this many systems, every arrangement of each topic's scores is laid out once
(k! of them, 720 at six systems) and a permutation picks one per topic: the same
distribution as shuffling each topic's row, several times faster."""
TABLE_CELLS = 4_000_000
"""The most scores the arrangements may hold (32 MB; 250 topics of six systems hold a
million): more topics than that are shuffled instead. Chunking never decides it, so the
permutations drawn from a seed are the same whatever CHUNK_CELLS is."""


def permuted_ranges(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The statistic of `resamples` permutations of `values` (topics × systems): each
    shuffles every topic's row independently; the statistic is max − min of the system
    means."""
    topics, systems = values.shape
    chunk = max(1, CHUNK_CELLS // max(1, topics * systems))
    rng = np.random.default_rng(seed)
    tabled = systems <= TABLED_SYSTEMS and topics * factorial(systems) * systems <= TABLE_CELLS
    means_of = _arranged(values, rng) if tabled else _shuffled(values, rng)
    ranges = np.empty(resamples)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        means = means_of(size)
        ranges[start : start + size] = means.max(axis=1) - means.min(axis=1)
    return ranges


def _arranged(values: np.ndarray, rng) -> Callable[[int], np.ndarray]:
    """The system means of `size` permutations, each picking one of the tabled arrangements
    of every topic's scores."""
    topics, systems = values.shape
    orders = np.array(list(permutations(range(systems))))
    table = values[:, orders].reshape(topics * len(orders), systems)
    first = np.arange(topics) * len(orders)  # topic t's arrangements start at row t·k!

    def means_of(size: int) -> np.ndarray:
        picked = rng.integers(0, len(orders), (size, topics)) + first
        return table[picked].mean(axis=1)

    return means_of


def _shuffled(values: np.ndarray, rng) -> Callable[[int], np.ndarray]:
    """The system means of `size` permutations, each shuffling every topic's row."""
    topics, systems = values.shape

    def means_of(size: int) -> np.ndarray:
        shuffled = rng.permuted(np.broadcast_to(values, (size, topics, systems)), axis=2)
        return shuffled.mean(axis=1)

    return means_of


def tukey_hsd(values: np.ndarray, resamples: int, seed: int = 0) -> np.ndarray:
    """Each pair's p (a symmetric systems × systems matrix, 1 on the diagonal) from the
    randomised Tukey HSD test over the rows (topics) of `values`."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[1] < 2 or values.shape[0] < 1:
        raise LeakevalError("the Tukey HSD test needs two or more systems scored on a topic")
    if not np.isfinite(values).all():
        raise LeakevalError("the Tukey HSD test needs a score for every system on every topic")
    if resamples < 1:
        raise LeakevalError(f"the Tukey HSD test needs one or more permutations, got {resamples}")
    means = values.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    ranges = np.sort(permuted_ranges(values, resamples, seed))
    # permutations whose range reaches each observed difference
    reached = resamples - np.searchsorted(ranges, observed - _TOLERANCE, side="left")
    return (reached + 1) / (resamples + 1)


def letters(different: np.ndarray) -> list[str]:
    """The compact letter display of systems in rank order (best first), where
    `different[i, j]` says that systems i and j differ: insert-and-absorb (Piepho 2004).

    Starting from one letter shared by all, each differing pair splits every letter holding
    both into one without each, and a letter contained in another is absorbed; what remains
    are the maximal sets of systems no pair of which differs. Letters are named in the
    order of their best system, so the best system's first letter is "a"."""
    different = np.asarray(different, dtype=bool)
    count = len(different)
    columns: list[frozenset[int]] = [frozenset(range(count))]
    for i, j in zip(*np.nonzero(np.triu(different, 1)), strict=True):
        split = []
        for column in columns:
            if i in column and j in column:
                split += [column - {i}, column - {j}]
            else:
                split.append(column)
        columns = [c for c in split if not any(c < other for other in split)]
        columns = list(dict.fromkeys(columns))  # equal sets once
    named = sorted(columns, key=lambda c: sorted(c))
    if len(named) > len(_ALPHABET):
        names = [f"{_ALPHABET[n % len(_ALPHABET)]}{n // len(_ALPHABET)}" for n in range(len(named))]
    else:
        names = list(_ALPHABET[: len(named)])
    return ["".join(n for n, c in zip(names, named, strict=True) if s in c) for s in range(count)]


def rank_intervals(beats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each system's best and worst rank consistent with the tests, where `beats[i, j]`
    says i is significantly better than j: 1 + the systems significantly better than it,
    and the number of systems minus those significantly worse."""
    beats = np.asarray(beats, dtype=bool)
    return 1 + beats.sum(axis=0), len(beats) - beats.sum(axis=1)


@dataclass(frozen=True)
class Standings:
    """The systems of one leaderboard, as the HSD test orders and groups them."""

    systems: pd.DataFrame
    """Best first: system, mean (as scored), group, rank_low, rank_high."""
    pairs: pd.DataFrame
    """Each pair, the better-ranked first: a, b, difference (a's mean minus b's, in the
    measure's better direction, so never negative), p, different (p ≤ α)."""


def standings(
    wide: pd.DataFrame,
    orient,
    alpha: float,
    resamples: int,
    seed: int = 0,
) -> Standings:
    """The HSD standings of the systems (columns) of `wide` over its rows (topics, every
    one scored by every system), the raw values oriented by `orient` (a measure's
    `Direction.orient`): ordered best first (ties by name), each pair's p, the groups and
    the rank intervals at `alpha`."""
    if wide.shape[1] < 2:
        raise LeakevalError("a leaderboard needs two or more systems")
    if wide.empty:
        raise LeakevalError("the systems share no scored topic")
    raw = wide.mean(axis=0)
    gained = orient(wide.to_numpy(dtype=float))
    order = sorted(range(wide.shape[1]), key=lambda s: (-gained[:, s].mean(), str(wide.columns[s])))
    gained = gained[:, order]
    names: Sequence[str] = [str(wide.columns[s]) for s in order]
    p = tukey_hsd(gained, resamples, seed)
    means = gained.mean(axis=0)
    different = p <= alpha
    beats = different & (means[:, None] > means[None, :])
    low, high = rank_intervals(beats)
    systems = pd.DataFrame(
        {
            "system": names,
            "mean": raw.iloc[order].to_numpy(),
            "group": letters(different),
            "rank_low": low,
            "rank_high": high,
        }
    )
    upper = np.triu_indices(len(names), 1)
    pairs = pd.DataFrame(
        {
            "a": [names[i] for i in upper[0]],
            "b": [names[j] for j in upper[1]],
            "difference": means[upper[0]] - means[upper[1]],
            "p": p[upper],
            "different": different[upper],
        }
    )
    return Standings(systems, pairs)


UNCHANGED = "unchanged"
"""The change of a pair whose verdict and order are the same on both sets of topics: the
one `changes` value every table of changed pairs leaves out."""
CHANGES = {
    "different → tied": "different on all topics, tied on the clean ones",
    "tied → different": "tied on all topics, different on the clean ones",
    "reversed": "different on both, the other way round",
    "order reversed (tied on both)": "tied on both, but the other system's mean is ahead "
    "on the clean topics: no verdict changes, the order does",
    UNCHANGED: "the same verdict and order on both",
}
"""Each change a pair can make when the leaked topics are left out, and what it means."""


def changes(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """How each pair's verdict and order change from one set of topics (`before`: all) to
    another (`after`: the clean ones), both `Standings.pairs` of the same systems: a and b
    as `before` orders them, `before` and `after` ("different" or "tied"), both differences
    oriented as `before`'s, both p, `reversed` (the order of the two means flips), and the
    change (`CHANGES`). A pair tied on both whose order flips is said to, not "unchanged":
    a table of what moved without the leaked topics must show it. Empty without `after`."""
    if after.empty:
        return pd.DataFrame()
    same = after.set_index(["a", "b"])
    flipped = after.rename(columns={"a": "b", "b": "a"}).assign(difference=-after.difference)
    keyed = pd.concat([same, flipped.set_index(["a", "b"])])
    later = keyed.reindex(pd.MultiIndex.from_frame(before[["a", "b"]]))
    verdict = {True: "different", False: "tied"}
    out = pd.DataFrame(
        {
            "a": before.a.to_numpy(),
            "b": before.b.to_numpy(),
            "all": before.different.map(verdict).to_numpy(),
            "clean": later.different.map(verdict).to_numpy(),
            "difference_all": before.difference.to_numpy(),
            "difference_clean": later.difference.to_numpy(),
            "p_all": before.p.to_numpy(),
            "p_clean": later.p.to_numpy(),
        }
    )
    out["reversed"] = out.difference_clean < 0
    was, now = out["all"] == "different", out["clean"] == "different"
    out["change"] = np.select(
        [was & ~now, ~was & now, was & now & out.reversed, ~was & ~now & out.reversed],
        list(CHANGES)[:4],
        UNCHANGED,
    )
    return out
