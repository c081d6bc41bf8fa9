"""The lexical floor under the sentence encoders, chosen on human judgments.

A semantic or hybrid detection embeds only the candidates whose lexical similarity reaches
a floor (`detection_options.ENCODER_FLOOR`): embedding is nearly all of its time, and most
lexical candidates are far from any topic. Too high a floor misses near-duplicates whose
words differ from the topic's; the judgments say how high it may go. The floor is the
highest on a grid that keeps `KEEP` of the judged near-duplicates. Measured honestly, it is
chosen on the training topics of each fold and its share kept is counted on the held-out
topics (`held_out_floors`); the shipped floor is the rule applied to every judged pair.
"""

from __future__ import annotations

import numpy as np

__all__ = ["KEEP", "STEP", "choose_floor", "held_out_floors"]

KEEP = 0.99
"""Share of judged near-duplicates the floor keeps: the share of a detection's
near-duplicate pairs a faster detection may lose (issue 48's bar)."""
STEP = 0.05
"""The grid of floors tried: coarse, so that a floor is not fitted to one pair's value."""


def choose_floor(lexical: np.ndarray, near_duplicate: np.ndarray, keep: float = KEEP) -> float:
    """The highest floor on the grid under which at most 1 − `keep` of the near-duplicates
    fall (0 when there are none to keep)."""
    kept = np.asarray(lexical, float)[np.asarray(near_duplicate, bool)]
    if not len(kept):
        return 0.0
    grid = np.round(np.arange(0.0, 1.0 + STEP / 2, STEP), 10)
    return float(max(f for f in grid if (kept >= f).mean() >= keep))


def held_out_floors(
    lexical: np.ndarray, near_duplicate: np.ndarray, folds: list, keep: float = KEEP
) -> list[dict]:
    """Per fold (train, test index arrays, grouped by topic): the floor chosen on the
    training pairs, and the held-out near-duplicates it keeps."""
    lexical = np.asarray(lexical, float)
    positive = np.asarray(near_duplicate, bool)
    out = []
    for train, test in folds:
        floor = choose_floor(lexical[train], positive[train], keep)
        held = lexical[test][positive[test]]
        out.append(
            {
                "floor": floor,
                "near_duplicates": len(held),
                "kept": int((held >= floor).sum()),
            }
        )
    return out
