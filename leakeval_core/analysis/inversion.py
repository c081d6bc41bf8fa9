"""The interval dual to a resampling test whose statistic moves linearly with a shift.

Both randomization tests have this form. The paired sign-flip test (`paired`): shifting the
differences by θ turns a flip's mean into a − θ·b (a: its mean at θ = 0, b: the mean of its
signs) against the observed mean d − θ. The two-sample permutation test (`split.ShiftTest`):
under "flagged topics gain θ more", an assignment's difference in means becomes a − θ·b (b:
the share of truly flagged topics it puts on the flagged side minus the share it puts on the
other) against d − θ. One set of resamples therefore serves every θ, and one inversion both.
"""

from __future__ import annotations

import numpy as np

__all__ = ["shift_interval"]


def shift_interval(
    a: np.ndarray, b: np.ndarray, observed: float, exact: bool, level: float
) -> tuple[float, float]:
    """Every shift θ the test does not reject at `level`, found exactly, without bisection.

    A resample counts as extreme at θ when (a − θ·b)² ≥ (d − θ)², a quadratic inequality in
    θ: for |b| < 1 (the paired test always) its solutions are the closed interval between
    the roots, which holds d; for |b| > 1 the outside of the roots, or every θ without
    roots; |b| = 1 only for the data itself or its mirror image, extreme at every θ.
    Counting along θ how many resamples are extreme gives p at every θ at once: the count
    over the resamples when `exact`, else with the +1 correction, (1 + count) / (1 + R).

    θ is kept while p(θ) ≥ `level`: a row is significant when p < its level
    (`corrections.per_comparison_alpha`), so the interval excludes 0 exactly when the test
    at θ = 0 rejects, p equal to the level included. Unbounded when `level` is at or below
    the smallest p the resamples can give.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    quad, lin, const = b * b - 1.0, -2.0 * (a * b - observed), a * a - observed * observed
    flat = np.abs(quad) <= 1e-12
    curve = np.where(flat, -1.0, quad)
    disc = lin * lin - 4.0 * curve * const
    root = np.sqrt(np.maximum(disc, 0.0))
    first, second = (-lin - root) / (2.0 * curve), (-lin + root) / (2.0 * curve)
    low, high = np.minimum(first, second), np.maximum(first, second)
    between = (quad < 0) & ~flat  # extreme between the roots
    outside = (quad > 0) & ~flat & (disc >= 0)  # extreme outside them
    everywhere = flat | ((quad > 0) & ~flat & (disc < 0))
    n_out, n_all = int(outside.sum()), int(everywhere.sum())
    # each extreme set as closed stretches [start, end], ±inf allowed
    starts = np.r_[low[between], np.full(n_all + n_out, -np.inf), high[outside]]
    ends = np.r_[high[between], np.full(n_all, np.inf), low[outside], np.full(n_out, np.inf)]
    bounds = np.r_[starts, ends, observed]
    points = np.unique(bounds[np.isfinite(bounds)])
    # the count at each point, and on each open stretch between neighbours and beyond
    probes = np.r_[points, points[0] - 1.0, (points[:-1] + points[1:]) / 2, points[-1] + 1.0]
    lefts = np.r_[points, -np.inf, points]
    rights = np.r_[points, points, np.inf]
    count = np.searchsorted(np.sort(starts), probes, side="right") - np.searchsorted(
        np.sort(ends), probes, side="left"
    )
    share = count / len(a) if exact else (1 + count) / (1 + len(a))
    kept = share >= level  # p(θ) as the test computes its p: rejected when p < level
    return float(lefts[kept].min()), float(rights[kept].max())
