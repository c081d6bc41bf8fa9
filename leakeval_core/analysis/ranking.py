"""Does leakage reorder the systems? Kendall's tau between system rankings."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from leakeval_core.analysis.folds import PerQuery
from leakeval_core.errors import LeakevalError

__all__ = ["ranking_change"]


def ranking_change(
    per_query: PerQuery,
    system: str,
    condition: str,
    within: Sequence[str],
) -> pd.DataFrame:
    """Kendall's tau between the system rankings under each pair of condition levels.

    tau = 1: same order; lower: leakage reorders the systems (the study's finding that
    leakage can change which model looks best).
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
    rows = []
    for keys, block in means.groupby(level=list(within), observed=True):
        block = block.droplevel(list(within))
        for i, x in enumerate(levels):
            for y in levels[i + 1 :]:
                if x not in block.index or y not in block.index:
                    continue
                tau = sps.kendalltau(block.loc[x], block.loc[y]).statistic
                order = {
                    lv: " > ".join(block.loc[lv].sort_values(ascending=False).index.astype(str))
                    for lv in (x, y)
                }
                rows.append(
                    {
                        **dict(zip(within, keys, strict=True)),
                        "a": x,
                        "b": y,
                        "tau": float(tau),
                        f"ranking ({x})": order[x],
                        f"ranking ({y})": order[y],
                    }
                )
    return pd.DataFrame(rows)
