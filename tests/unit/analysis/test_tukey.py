"""The randomised Tukey HSD test, its letters and its rank intervals, each held against an
independent computation: a loop over permutations written here, an exact enumeration of
every arrangement, brute-force maximal cliques, and cases worked by hand."""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.analysis import tukey
from leakeval_core.analysis.procedures import MANY_SYSTEMS
from leakeval_core.analysis.tukey import changes, letters, rank_intervals, standings, tukey_hsd
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.direction import Direction


def loop_hsd(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Randomised Tukey HSD as Carterette (2012) writes it, one permutation and one topic
    at a time."""
    rng = np.random.default_rng(seed)
    topics, systems = values.shape
    means = values.mean(axis=0)
    counts = np.zeros((systems, systems))
    for _ in range(resamples):
        shuffled = np.array([rng.permutation(values[t]) for t in range(topics)])
        permuted = shuffled.mean(axis=0)
        spread = permuted.max() - permuted.min()
        for i in range(systems):
            for j in range(systems):
                if spread >= abs(means[i] - means[j]) - 1e-12:
                    counts[i, j] += 1
    return (counts + 1) / (resamples + 1)


def exact_hsd(values: np.ndarray) -> np.ndarray:
    """The share of all (k!)^n arrangements whose range reaches each observed difference."""
    topics, systems = values.shape
    orders = list(__import__("itertools").permutations(range(systems)))
    means = values.mean(axis=0)
    spreads = []
    for chosen in product(orders, repeat=topics):
        permuted = np.array([values[t, list(o)] for t, o in enumerate(chosen)]).mean(axis=0)
        spreads.append(permuted.max() - permuted.min())
    spreads = np.array(spreads)
    observed = np.abs(means[:, None] - means[None, :])
    return (spreads[None, None, :] >= observed[..., None] - 1e-12).mean(axis=2)


def within_monte_carlo(estimate: np.ndarray, truth: np.ndarray, resamples: int, draws=1):
    """Each estimate within 5 standard errors of the truth (draws: how many estimates the
    truth itself averages, 1 for an exact truth, 2 for another estimate of it)."""
    error = np.sqrt(draws * truth * (1 - truth) / resamples) + 2 / resamples
    return np.abs(estimate - truth) <= 5 * error


def test_pairwise_p_agrees_with_a_loop_over_permutations():
    rng = np.random.default_rng(45)
    shift = np.array([0.0, 0.02, 0.05, 0.12])
    values = np.clip(rng.normal(0.4, 0.2, (30, 1)) + rng.normal(0, 0.1, (30, 4)) + shift, 0, 1)
    fast = tukey_hsd(values, 4_000, seed=1)
    slow = loop_hsd(values, 4_000, seed=2)
    assert within_monte_carlo(fast, slow, 4_000, draws=2).all(), (fast, slow)
    assert fast.min() < 0.01 and fast[0, 1] > 0.1  # some pairs differ, some do not
    np.testing.assert_array_equal(fast, fast.T)
    assert (np.diag(fast) == 1).all()


def test_pairwise_p_agrees_with_every_arrangement_enumerated():
    values = np.array([[0.1, 0.5, 0.9], [0.2, 0.4, 0.8], [0.0, 0.6, 0.7], [0.3, 0.3, 0.9]])
    exact = exact_hsd(values)  # 6^4 = 1,296 arrangements
    estimate = tukey_hsd(values, 20_000, seed=3)
    assert within_monte_carlo(estimate, exact, 20_000).all(), (estimate, exact)


def test_p_counts_the_data_itself():
    """(b + 1) / (B + 1): identical systems get 1, a difference no permutation reaches
    1 / (B + 1)."""
    same = np.tile(np.arange(10.0)[:, None], (1, 3))
    assert (tukey_hsd(same, 99) == 1).all()
    apart = np.column_stack([np.zeros(40), np.ones(40)])  # every topic: 0 against 1
    p = tukey_hsd(apart, 99)
    # a permutation reaches 1 only by swapping no topic or every topic: 2 of 2^40
    assert p[0, 1] == pytest.approx(1 / 100)


def test_chunks_bound_memory_without_changing_the_answer(monkeypatch):
    values = np.random.default_rng(0).random((25, 5))
    whole = tukey_hsd(values, 500, seed=7)
    monkeypatch.setattr(tukey, "CHUNK_CELLS", 25 * 5 * 3)  # three permutations at a time
    np.testing.assert_array_equal(tukey_hsd(values, 500, seed=7), whole)


class _Spy:
    """A generator that records how many permuted scores it is asked for at once, whether
    as rows to shuffle or as one tabled arrangement per topic, and permutes nothing (the
    bound, not the shuffle, is under test)."""

    def __init__(self, systems: int) -> None:
        self.systems = systems
        self.cells: list[int] = []
        self.permutations = 0

    def permuted(self, values, axis):
        self.cells.append(values.size)
        self.permutations += values.shape[0]
        return values

    def integers(self, low, high, size):
        self.cells.append(size[0] * size[1] * self.systems)
        self.permutations += size[0]
        return np.zeros(size, dtype=np.int64)


@pytest.mark.parametrize(
    ("topics", "systems", "cells"),
    [
        (250, 10, None),  # the default run on a Robust04-sized leaderboard, default chunks
        (250, 5, None),  # arrangements tabled
        (25, 4, 1_000),  # ten permutations a chunk
        (40, 30, 1_000),  # one permutation is more than a chunk: one at a time
    ],
)
def test_the_default_chunking_bounds_the_scores_held_at_once(monkeypatch, topics, systems, cells):
    """However many permutations are asked for, no more than CHUNK_CELLS permuted scores
    (or one permutation's, where that is more) are held at once, and every permutation is
    drawn."""
    if cells is not None:
        monkeypatch.setattr(tukey, "CHUNK_CELLS", cells)
    values = np.random.default_rng(1).random((topics, systems))
    spy = _Spy(systems)
    monkeypatch.setattr(tukey.np.random, "default_rng", lambda seed: spy)
    tukey.permuted_ranges(values, MANY_SYSTEMS.resamples, seed=0)
    assert spy.permutations == MANY_SYSTEMS.resamples
    assert max(spy.cells) <= max(tukey.CHUNK_CELLS, topics * systems)
    assert len(spy.cells) >= MANY_SYSTEMS.resamples * topics * systems / max(
        tukey.CHUNK_CELLS, topics * systems
    )


@pytest.mark.parametrize("systems", [2, 3, 4, 6])
def test_tabled_arrangements_and_shuffles_give_one_distribution(monkeypatch, systems):
    """The permuted range's distribution is the same whether a topic's arrangement is
    picked from the table or its row is shuffled (two-sample Kolmogorov–Smirnov)."""
    from scipy.stats import ks_2samp

    values = np.random.default_rng(3).random((30, systems)) ** 2
    tabled = tukey.permuted_ranges(values, 4_000, seed=1)
    monkeypatch.setattr(tukey, "TABLED_SYSTEMS", 0)
    shuffled = tukey.permuted_ranges(values, 4_000, seed=2)
    assert ks_2samp(tabled, shuffled).pvalue > 0.001


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (np.zeros((5, 1)), "two or more systems"),
        (np.zeros((0, 3)), "two or more systems"),
        (np.array([[0.1, np.nan], [0.2, 0.3]]), "every system on every topic"),
    ],
)
def test_bad_input_is_one_clear_error(values, message):
    with pytest.raises(LeakevalError, match=message):
        tukey_hsd(values, 10)


def test_no_permutation_is_one_clear_error():
    with pytest.raises(LeakevalError, match="one or more permutations"):
        tukey_hsd(np.zeros((3, 2)), 0)


def _different(count: int, pairs) -> np.ndarray:
    out = np.zeros((count, count), dtype=bool)
    for i, j in pairs:
        out[i, j] = out[j, i] = True
    return out


@pytest.mark.parametrize(
    ("count", "pairs", "expected"),
    [
        (3, [], ["a", "a", "a"]),
        (3, [(0, 1), (0, 2), (1, 2)], ["a", "b", "c"]),
        (3, [(0, 2)], ["a", "ab", "b"]),  # not transitive: a ~ b, b ~ c, a differs from c
        (4, [(0, 2), (0, 3), (1, 3)], ["a", "ab", "bc", "c"]),
        (4, [(0, 3)], ["a", "ab", "ab", "b"]),
        (4, [(0, 1), (2, 3)], ["ab", "cd", "ac", "bd"]),  # groups need not be runs of ranks
    ],
)
def test_letters_by_hand(count, pairs, expected):
    assert letters(_different(count, pairs)) == expected


def _maximal_cliques(different: np.ndarray) -> set[frozenset[int]]:
    count = len(different)
    cliques = [
        frozenset(members)
        for size in range(1, count + 1)
        for members in combinations(range(count), size)
        if not any(different[i, j] for i, j in combinations(members, 2))
    ]
    return {c for c in cliques if not any(c < other for other in cliques)}


@given(
    st.integers(1, 7).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    )
)
def test_letters_are_the_maximal_sets_of_undistinguished_systems(case):
    count, flags = case
    upper = np.triu(np.array(flags).reshape(count, count), 1)
    different = upper | upper.T
    shown = letters(different)
    groups = {
        frozenset(s for s in range(count) if letter in shown[s]) for letter in set("".join(shown))
    }
    assert groups == _maximal_cliques(different)
    assert shown[0].startswith("a")
    for i, j in combinations(range(count), 2):  # share a letter exactly when not different
        assert bool(set(shown[i]) & set(shown[j])) == (not different[i, j])


def test_rank_intervals_by_hand():
    better = np.zeros((4, 4), dtype=bool)
    better[0, 2] = better[0, 3] = better[1, 3] = True  # 0 beats 2 and 3; 1 beats 3
    low, high = rank_intervals(better)
    assert low.tolist() == [1, 1, 2, 3]
    assert high.tolist() == [2, 3, 4, 4]


def test_standings_order_group_and_bound_ranks():
    rng = np.random.default_rng(5)
    base = rng.normal(0.5, 0.15, (60, 1))
    wide = pd.DataFrame(
        base + rng.normal(0, 0.03, (60, 3)) + [0.0, 0.1, 0.01],
        columns=["low", "high", "mid"],
    )
    result = standings(wide, Direction("higher").orient, 0.05, 999, seed=0)
    systems = result.systems.set_index("system")
    assert list(systems.index) == ["high", "mid", "low"]
    assert systems["mean"].to_dict() == pytest.approx(wide.mean().to_dict())
    assert systems.group.tolist() == ["a", "b", "b"]
    assert systems.rank_low.tolist() == [1, 2, 2]
    assert systems.rank_high.tolist() == [1, 3, 3]
    pairs = result.pairs.set_index(["a", "b"])
    assert pairs.loc[("high", "low"), "difference"] == pytest.approx(
        wide.high.mean() - wide.low.mean()
    )
    assert (result.pairs.difference >= 0).all()
    assert pairs.different.tolist() == (pairs.p <= 0.05).tolist()


def test_a_lower_is_better_measure_ranks_the_lowest_first():
    """The first relevant rank: the lowest mean ranks first and gets "a"; the same
    standings as its negation read higher-is-better (a measure replaced by its negation with
    the opposite direction changes nothing a reader sees but the raw means)."""
    rng = np.random.default_rng(6)
    ranks = pd.DataFrame(
        rng.integers(1, 20, (50, 1)) + rng.integers(0, 3, (50, 3)) + [8, 0, 3],
        columns=["slow", "fast", "middling"],
    ).astype(float)
    lower = standings(ranks, Direction("lower").orient, 0.05, 999, seed=1)
    higher = standings(-ranks, Direction("higher").orient, 0.05, 999, seed=1)
    assert lower.systems.system.tolist()[0] == "fast"
    assert lower.systems.group.iloc[0].startswith("a")
    pd.testing.assert_frame_equal(lower.pairs, higher.pairs)
    pd.testing.assert_frame_equal(
        lower.systems.drop(columns="mean"), higher.systems.drop(columns="mean")
    )
    assert lower.systems["mean"].tolist() == pytest.approx((-higher.systems["mean"]).tolist())


def test_changes_say_which_pairs_tie_separate_or_reverse():
    before = pd.DataFrame(
        {
            "a": ["x", "x", "y", "y"],
            "b": ["y", "z", "z", "w"],
            "difference": [0.2, 0.3, 0.1, 0.05],
            "p": [0.01, 0.01, 0.5, 0.01],
            "different": [True, True, False, True],
        }
    )
    after = pd.DataFrame(  # clean topics: the order of y and z flips, and of y and w
        {
            "a": ["x", "x", "z", "w"],
            "b": ["y", "z", "y", "y"],
            "difference": [0.02, 0.3, 0.2, 0.1],
            "p": [0.6, 0.01, 0.02, 0.03],
            "different": [False, True, True, True],
        }
    )
    out = changes(before, after).set_index(["a", "b"])
    assert out.change.to_dict() == {
        ("x", "y"): "different → tied",
        ("x", "z"): "unchanged",
        ("y", "z"): "tied → different",
        ("y", "w"): "reversed",
    }
    assert out.difference_clean.to_dict() == pytest.approx(
        {("x", "y"): 0.02, ("x", "z"): 0.3, ("y", "z"): -0.2, ("y", "w"): -0.1}
    )
    assert out.reversed.tolist() == [False, False, True, True]
    assert changes(before, after.iloc[:0]).empty


def test_a_pair_tied_on_both_whose_order_flips_is_shown_as_a_change():
    """y ahead of z on all topics, z ahead on the clean ones, tied on both: no verdict
    changes, the order does. The change says so, and the table of changed pairs every
    door shows (app, report, CLI) lists the pair instead of saying none moved."""
    from leakeval_core.present.display import changes_table

    before = pd.DataFrame(
        {"a": ["y"], "b": ["z"], "difference": [0.01], "p": [0.7], "different": [False]}
    )
    after = pd.DataFrame(
        {"a": ["z"], "b": ["y"], "difference": [0.03], "p": [0.4], "different": [False]}
    )
    out = changes(before, after)
    assert out.change.tolist() == ["order reversed (tied on both)"]
    assert out.reversed.tolist() == [True]
    shown = changes_table(out)
    assert shown["Change"].tolist() == ["order reversed (tied on both)"]
    assert shown["Clean topics"].tolist() == ["-0.030 (tied, p = 0.4)"]
    same = changes(before, after.assign(a=["y"], b=["z"]))  # the same order: nothing to show
    assert same.change.tolist() == ["unchanged"] and changes_table(same).empty
