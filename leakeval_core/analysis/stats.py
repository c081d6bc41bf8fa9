"""Statistics over the SCORES table: fold aggregation first, then paired comparisons.

Everything pairs by query id through a join, never by position, and never treats
fold × query rows as independent observations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.scores import ExperimentScores

__all__ = [
    "FoldRule",
    "PairedResult",
    "PerQuery",
    "bootstrap_ci",
    "compare_levels",
    "compare_pair",
    "correct",
    "detect_fold_rule",
    "paired_ttest",
    "per_query",
    "randomization_test",
    "ranking_change",
]

FoldRule = Literal["split", "repeated", "mixed", "none"]


@dataclass(frozen=True)
class PerQuery:
    """One value per (condition, query) for one measure."""

    table: pd.DataFrame = field(repr=False)
    """The condition factors (fold removed), qid, value."""
    factors: tuple[str, ...]
    fold_rule: FoldRule
    """`split`: folds hold disjoint queries and were concatenated; `repeated`: folds re-score
    the same queries and were averaged per query; `none`: no fold factor."""
    missing: pd.DataFrame = field(repr=False)
    """Per condition, how many of the collection's queries no run scored."""

    def subset(self, levels: dict) -> PerQuery:
        """Only the conditions at the given factor levels (e.g. one collection)."""
        mask = np.ones(len(self.table), dtype=bool)
        for factor, level in levels.items():
            mask &= (self.table[factor] == level).to_numpy()
        return PerQuery(
            self.table[mask].reset_index(drop=True), self.factors, self.fold_rule, self.missing
        )


def detect_fold_rule(scores: pd.DataFrame, fold: str, factors: Sequence[str]) -> FoldRule:
    """Whether folds split the queries, re-score them, or (in a broken design) a bit of both."""
    if fold not in scores.columns:
        return "none"
    pairs = scores[[*factors, fold, "qid"]].drop_duplicates()
    folds_per_query = pairs.groupby([*factors, "qid"], observed=True)[fold].nunique()
    folds_per_condition = pairs.groupby(list(factors), observed=True)[fold].nunique()
    if (folds_per_query == 1).all():
        return "split"
    expected = folds_per_query.index.droplevel("qid").map(folds_per_condition)
    return "repeated" if (folds_per_query.to_numpy() == expected.to_numpy()).all() else "mixed"


def per_query(
    results: ExperimentScores,
    measure: str,
    fold: str = "fold",
    rule: FoldRule | Literal["auto"] = "auto",
) -> PerQuery:
    """Collapse runs to one value per (condition, query).

    Averaging each query over the folds that scored it concatenates folds that split the
    queries (each has one value) and averages folds that repeat them, so one mean serves both.
    `rule="none"` keeps fold as an ordinary factor instead. Queries of the collection that no
    fold scored get 0 (or are dropped) per the conventions, like trec_eval -c.
    """
    scores = results.scores[results.scores.measure == measure]
    if scores.empty and measure not in {m.name for m in results.measures}:
        raise LeakevalError(
            f"measure {measure!r} was not scored; scored: "
            f"{', '.join(m.name for m in results.measures)}"
        )
    all_factors = [c for c in scores.columns if c not in ("run_id", "qid", "measure", "value")]
    keep_fold = rule == "none" or fold not in all_factors
    factors = tuple(f for f in all_factors if keep_fold or f != fold)
    detected = "none" if keep_fold else detect_fold_rule(scores, fold, factors)
    if rule not in ("auto", "none") and rule != detected:
        detected = rule  # an explicit override wins; the mean per query serves every rule
    table = scores.groupby([*factors, "qid"], observed=True, sort=True).value.mean().reset_index()

    conditions = table[list(factors)].drop_duplicates()
    universe = conditions.merge(results.queries, on="collection", how="inner")
    full = universe.merge(table, on=[*factors, "qid"], how="left")
    absent = full.value.isna() & ~full.set_index([*factors, "qid"]).index.isin(
        table.set_index([*factors, "qid"]).index
    )
    missing = (
        full.assign(absent=absent)
        .groupby(list(factors), observed=True)
        .absent.sum()
        .rename("missing")
        .reset_index()
    )
    if results.conventions.missing == "zero":
        fill = np.nan if measure == "first_rel_rank" else 0.0
        full.loc[absent, "value"] = fill
    else:
        full = full[~absent]
    return PerQuery(full.reset_index(drop=True), factors, detected, missing)


# --------------------------------------------------------------------------- paired tests

Test = Literal["ttest", "randomization"]
Correction = Literal["bonferroni", "holm", "none"]
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PairedResult:
    n: int
    mean_a: float
    mean_b: float
    delta: float
    statistic: float
    p: float
    ci_low: float
    ci_high: float
    effect_size: float
    """Cohen's d_z: mean difference over the standard deviation of differences."""
    wins: int
    ties: int
    losses: int


def paired_ttest(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Student's paired t-test (scipy.stats.ttest_rel), defined where scipy gives NaN.

    Identical vectors have no evidence of a difference: t = 0, p = 1. A constant non-zero
    difference has zero variance: t = ±inf, p = 0.
    """
    from scipy import stats as sps

    delta = np.asarray(a, float) - np.asarray(b, float)
    if len(delta) < 2 or np.all(np.abs(delta) <= TIE_TOLERANCE):
        return 0.0, 1.0
    if np.ptp(delta) <= TIE_TOLERANCE:
        return float(np.sign(delta.mean()) * np.inf), 0.0
    result = sps.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


EXACT_UP_TO = 16
"""Up to this many queries the randomization test enumerates all 2^n sign flips."""


def randomization_test(
    a: np.ndarray, b: np.ndarray, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Paired (sign-flip) randomization test of the mean difference, two-sided.

    Exact for n ≤ 16; otherwise `resamples` seeded random flips with the +1 correction,
    p = (1 + #{|mean*| ≥ |mean|}) / (1 + resamples), so p is never 0.
    """
    delta = np.asarray(a, float) - np.asarray(b, float)
    n = len(delta)
    observed = abs(delta.mean()) if n else 0.0
    if n == 0 or np.all(np.abs(delta) <= TIE_TOLERANCE):
        return float(delta.mean()) if n else 0.0, 1.0
    tolerance = 1e-12 * max(1.0, observed)
    if n <= EXACT_UP_TO:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        means = np.abs(signs @ delta) / n
        return float(delta.mean()), float(np.mean(means >= observed - tolerance))
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, resamples, 2_000):
        size = min(2_000, resamples - start)
        signs = rng.choice((-1.0, 1.0), size=(size, n))
        hits += int(np.sum(np.abs(signs @ delta) / n >= observed - tolerance))
    return float(delta.mean()), (1 + hits) / (1 + resamples)


def bootstrap_ci(
    delta: np.ndarray, confidence: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean difference (scipy.stats.bootstrap), seeded."""
    from scipy import stats as sps

    delta = np.asarray(delta, float)
    if len(delta) < 2 or np.ptp(delta) <= TIE_TOLERANCE:
        mean = float(delta.mean()) if len(delta) else float("nan")
        return mean, mean
    result = sps.bootstrap(
        (delta,),
        np.mean,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def compare_pair(
    a: np.ndarray, b: np.ndarray, test: Test = "ttest", seed: int = 0, confidence: float = 0.95
) -> PairedResult:
    """Everything a paper's significance table needs for one paired comparison."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    delta = a - b
    if test == "ttest":
        statistic, p = paired_ttest(a, b)
    elif test == "randomization":
        statistic, p = randomization_test(a, b, seed=seed)
    else:
        raise LeakevalError(f"unknown test {test!r}; use ttest or randomization")
    low, high = bootstrap_ci(delta, confidence, seed=seed)
    sd = delta.std(ddof=1) if len(delta) > 1 else 0.0
    effect = (
        0.0
        if sd <= TIE_TOLERANCE and abs(delta.mean()) <= TIE_TOLERANCE
        else (
            float(delta.mean() / sd)
            if sd > TIE_TOLERANCE
            else float(np.sign(delta.mean()) * np.inf)
        )
    )
    return PairedResult(
        n=len(delta),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        delta=float(delta.mean()),
        statistic=statistic,
        p=p,
        ci_low=low,
        ci_high=high,
        effect_size=effect,
        wins=int((delta > TIE_TOLERANCE).sum()),
        ties=int((np.abs(delta) <= TIE_TOLERANCE).sum()),
        losses=int((delta < -TIE_TOLERANCE).sum()),
    )


def correct(pvalues: Sequence[float], method: Correction = "bonferroni") -> np.ndarray:
    """Adjust a family of p-values (statsmodels multipletests); `none` returns them as is."""
    p = np.asarray(pvalues, float)
    if method == "none" or len(p) == 0:
        return p
    if method not in ("bonferroni", "holm"):
        raise LeakevalError(f"unknown correction {method!r}; use bonferroni, holm or none")
    from statsmodels.stats.multitest import multipletests

    return multipletests(p, method=method)[1]


def compare_levels(
    per_query: PerQuery,
    vary: str,
    baseline: object | None = None,
    test: Test = "ttest",
    correction: Correction = "bonferroni",
    alpha: float = 0.05,
    seed: int = 0,
) -> pd.DataFrame:
    """Compare the levels of one factor within every combination of the others.

    Rows pair queries by id (inner join); each row's `n` says how many were shared. The
    correction runs over every row of the output: that is the family of tests shown together.
    """
    if vary not in per_query.factors:
        raise LeakevalError(f"unknown factor {vary!r}; factors: {', '.join(per_query.factors)}")
    others = [f for f in per_query.factors if f != vary]
    table = per_query.table.dropna(subset=["value"])
    levels = sorted(table[vary].unique().tolist())
    if baseline is not None and baseline not in levels:
        raise LeakevalError(f"baseline {baseline!r} is not a level of {vary}: {levels}")
    pairs = (
        [(lv, baseline) for lv in levels if lv != baseline]
        if baseline is not None
        else [(x, y) for i, x in enumerate(levels) for y in levels[i + 1 :]]
    )
    rows = []
    for keys, group in table.groupby(others, observed=True, sort=True) if others else [((), table)]:
        keys = keys if isinstance(keys, tuple) else (keys,)
        wide = group.pivot_table(index="qid", columns=vary, values="value", observed=True)
        for level_a, level_b in pairs:
            if level_a not in wide or level_b not in wide:
                continue
            both = wide[[level_a, level_b]].dropna()
            result = compare_pair(both[level_a].to_numpy(), both[level_b].to_numpy(), test, seed)
            rows.append(
                {
                    **dict(zip(others, keys, strict=True)),
                    "a": level_a,
                    "b": level_b,
                    **result.__dict__,
                }
            )
    columns = [
        *others,
        "a",
        "b",
        "n",
        "mean_a",
        "mean_b",
        "delta",
        "statistic",
        "p",
        "p_adjusted",
        "significant",
        "ci_low",
        "ci_high",
        "effect_size",
        "wins",
        "ties",
        "losses",
    ]
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=columns)
    out["p_adjusted"] = correct(out.p.to_numpy(), correction)
    out["significant"] = out.p_adjusted < alpha
    return out[columns]


def ranking_change(
    per_query: PerQuery,
    system: str = "model",
    condition: str = "leakage",
    within: Sequence[str] = ("collection", "train_size"),
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
