"""Does leakage reorder the systems? Kendall's tau between system rankings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from leakeval_core.analysis.folds import PerQuery, select
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.direction import Direction

__all__ = ["kendall_tau_b", "ranking_change"]


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between the last axes of `x` and `y` (scipy's definition, ties
    included), for many rankings at once; NaN where one side has no order at all."""
    i, j = np.triu_indices(x.shape[-1], 1)
    sx, sy = np.sign(x[..., i] - x[..., j]), np.sign(y[..., i] - y[..., j])
    denominator = np.sqrt(np.abs(sx).sum(-1) * np.abs(sy).sum(-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, (sx * sy).sum(-1) / denominator, np.nan)


def _bootstrap_taus(
    values: np.ndarray, pairs: list[tuple[int, int]], resamples: int, seed: int
) -> np.ndarray:
    """tau of each pair of conditions under `resamples` draws of the queries with
    replacement; `values` is (queries, conditions, systems)."""
    rng = np.random.default_rng(seed)
    first, second = (np.array(side) for side in zip(*pairs, strict=True))
    out = []
    for start in range(0, resamples, 200):  # bounded memory: 200 resamples at a time
        draw = rng.integers(0, len(values), size=(min(200, resamples - start), len(values)))
        means = values[draw].mean(axis=1)  # (draws, conditions, systems)
        out.append(kendall_tau_b(means[:, first], means[:, second]))
    return np.concatenate(out)  # (resamples, pairs)


def ranking_change(
    per_query: PerQuery,
    system: str,
    condition: str,
    within: Sequence[str],
    direction: Direction,
    confidence: float = 0.95,
    resamples: int = 1_000,
    seed: int = 0,
) -> pd.DataFrame:
    """Kendall's tau between the system rankings under each pair of condition levels.

    tau = 1: same order; lower: leakage reorders the systems (the study's finding that
    leakage can change which model looks best). With a handful of systems tau moves in big
    steps (three systems: ±1/3 or ±1) and one query can flip two close means, so each tau
    comes with a percentile bootstrap interval over queries (the queries every condition and
    system scored, drawn with replacement, seeded) and `p_same`, the share of draws that keep
    the two rankings identical. Each `ranking (level)` names its systems best first, in the
    measure's direction.
    """
    from scipy import stats as sps

    for name in (system, condition, *within):
        if name not in per_query.factors:
            raise LeakevalError(f"unknown factor {name!r}")
    means = (
        per_query.table.groupby([*within, condition, system], observed=True)
        .value.mean()
        .unstack(system)
    )
    levels = sorted(per_query.table[condition].unique().tolist())
    systems = sorted(per_query.table[system].unique().tolist())
    rows = []
    # one level by name, not a list of one: its keys are scalars on pandas 2 and tuples on 3
    level = list(within) if len(within) > 1 else within[0]
    for keys, block in means.groupby(level=level, observed=True):
        keys = keys if len(within) > 1 else (keys,)
        block = block.droplevel(list(within))
        present = [lv for lv in levels if lv in block.index]
        pairs = [(i, j) for i in range(len(present)) for j in range(i + 1, len(present))]
        if not pairs:
            continue
        scored = select(per_query.table, dict(zip(within, keys, strict=True)))
        wide = scored.pivot_table(
            index="qid", columns=[condition, system], values="value", observed=True
        )
        grid = pd.MultiIndex.from_product([present, systems])
        common = wide.reindex(columns=grid).dropna(axis=0, how="any")
        values = common.to_numpy().reshape(len(common), len(present), len(systems))
        draws = (
            _bootstrap_taus(values, pairs, resamples, seed)
            if len(common) > 1
            else np.full((1, len(pairs)), np.nan)
        )
        for (i, j), taus in zip(pairs, draws.T, strict=True):
            x, y = present[i], present[j]
            tau = sps.kendalltau(block.loc[x], block.loc[y]).statistic
            low, high = (
                np.nanquantile(taus, [(1 - confidence) / 2, (1 + confidence) / 2])
                if np.isfinite(taus).any()
                else (np.nan, np.nan)
            )
            order = {
                lv: " > ".join(
                    direction.orient(block.loc[lv]).sort_values(ascending=False).index.astype(str)
                )
                for lv in (x, y)
            }
            rows.append(
                {
                    **dict(zip(within, keys, strict=True)),
                    "a": x,
                    "b": y,
                    "tau": float(tau),
                    "tau_low": float(low),
                    "tau_high": float(high),
                    "p_same": float(np.mean(taus == 1.0)) if np.isfinite(taus).any() else np.nan,
                    "queries": len(common),
                    f"ranking ({x})": order[x],
                    f"ranking ({y})": order[y],
                }
            )
    return pd.DataFrame(rows)
