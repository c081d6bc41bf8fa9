"""Convention check: the same view recomputed under each alternative convention.

Graded qrels are where published numbers silently disagree (gain, relevance threshold, tie
order, missing queries); this puts the size of each disagreement on screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from leakeval_core.analysis.folds import per_query, select
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.experiment.cache import Cache
from leakeval_core.experiment.manifest import Experiment
from leakeval_core.experiment.scores import Progress, score_experiment

__all__ = ["convention_check", "convention_variants"]


def convention_variants(base: Conventions) -> list[tuple[str, Conventions]]:
    """Each single-convention change from `base`, with a label saying what changed, short
    enough for a table cell: what the relevance level moves (`relevance_level_note`) is
    said beside the table, once."""
    gain = "exponential" if base.gain == "linear" else "linear"
    level = 2 if base.relevance_level == 1 else 1
    ties = "docid_desc" if base.tie_order == "docid_asc" else "docid_asc"
    missing = "drop" if base.missing == "zero" else "zero"
    return [
        (f"gain: {base.gain} → {gain}", replace(base, gain=gain)),
        (
            f"relevance_level: {base.relevance_level} → {level}",
            replace(base, relevance_level=level),
        ),
        (f"ties: {base.tie_order} → {ties}", replace(base, tie_order=ties)),
        (f"missing queries: {base.missing} → {missing}", replace(base, missing=missing)),
    ]


def convention_check(
    experiment: Experiment,
    conditions: Sequence[Mapping[str, object]],
    measure: str,
    base: Conventions,
    cache: Cache | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Per condition and alternative: both means, their difference, and per-query changes.

    Only the runs of the given conditions are rescored (each once per convention, cached).
    Whether a condition is complete is the caller's to check, on the whole experiment: the
    rescored subset lacks the siblings that say which runs a condition should have.
    """
    chosen = set(pd.concat([select(experiment.conditions, levels) for levels in conditions]).run_id)
    subset = replace(experiment, runs=tuple(r for r in experiment.runs if r["run_id"] in chosen))
    variants = convention_variants(base)

    def table(conventions: Conventions, step: int) -> pd.DataFrame:
        def report(done: int, total: int, what: str) -> None:
            if progress:
                progress(step * total + done, (len(variants) + 1) * total, what)

        results = score_experiment(subset, [measure], conventions, cache, report)
        return per_query(results, measure, allow_incomplete=True)

    base_table = table(base, 0)
    factors = list(base_table.factors)
    rows = []
    for step, (label, conventions) in enumerate(variants, start=1):
        alt = table(conventions, step).table
        joined = base_table.table.merge(
            alt, on=[*factors, "qid"], how="outer", suffixes=("_base", "_alt")
        )
        for levels in conditions:
            part = select(joined, levels)
            diff = (part.value_alt - part.value_base).abs()
            rows.append(
                {
                    **levels,
                    "change": label,
                    "mean (current)": part.value_base.mean(),
                    "mean (alternative)": part.value_alt.mean(),
                    "queries (current)": int(part.value_base.notna().sum()),
                    "queries (alternative)": int(part.value_alt.notna().sum()),
                    "queries that change": int(
                        (diff > 1e-12).sum()
                        + (part.value_base.isna() != part.value_alt.isna()).sum()
                    ),
                    "largest per-query change": float(np.nanmax(diff))
                    if diff.notna().any()
                    else 0.0,
                }
            )
    out = pd.DataFrame(rows)
    out.insert(
        out.columns.get_loc("queries (current)"),
        "difference of means",
        out["mean (alternative)"] - out["mean (current)"],
    )
    return out
