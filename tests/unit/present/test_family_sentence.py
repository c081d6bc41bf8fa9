"""The correction family in words, counted from the rows that were tested."""

import numpy as np
import pandas as pd
import pytest

from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.present.report import family_sentence

PARTS = [("model", "models"), ("baseline", "baselines")]


def _rows(cells: list[tuple[str, str, str]], p: float = 0.01) -> pd.DataFrame:
    frame = pd.DataFrame(cells, columns=["collection", "model", "baseline"])
    return frame.assign(split="leaked", p=p)


def test_one_size_of_family_is_counted_and_broken_down():
    rows = _rows([("robust04", m, b) for m in "ABC" for b in ("bm25", "rm3")])
    said = family_sentence(rows, ("collection", "split"), PARTS, Statistics())
    assert said == "Bonferroni over 6 comparisons: 3 models × 2 baselines, within each collection."


def test_families_of_different_sizes_are_each_named_where_they_are():
    """A model scored on one collection only: core18's family is 2 rows, robust04's 1, and
    neither "2 or 1" nor one count of both is what a reader needs."""
    rows = _rows([("core18", "A", "bm25"), ("core18", "A", "rm3"), ("robust04", "A", "bm25")])
    said = family_sentence(rows, ("collection", "split"), PARTS, Statistics(correction="holm"))
    assert said == (
        "Holm within each collection: over 2 comparisons (2 baselines) on core18, "
        "over 1 comparison on robust04."
    )


def test_an_untested_row_is_no_comparison_and_no_correction_says_so():
    rows = _rows([("robust04", m, "bm25") for m in "AB"])
    rows.loc[1, "p"] = np.nan  # too few topics to test
    said = family_sentence(rows, ("collection", "split"), PARTS, Statistics(correction="none"))
    assert said == "No correction over 1 comparison, within each collection."


@pytest.mark.parametrize("family", [(), ("collection",)])
def test_one_family_over_everything_names_no_place(family):
    rows = _rows([("robust04", m, "bm25") for m in "AB"])
    said = family_sentence(rows, family, PARTS, Statistics())
    where = ", within each collection" if family else ""
    assert said == f"Bonferroni over 2 comparisons: 2 models{where}."
