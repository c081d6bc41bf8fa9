"""The dashboard on designs other than the demo's: factors under other names, one factor."""

from __future__ import annotations

import pytest

from tests.app.apptest import PAGES, open_tab, widget

pytestmark = pytest.mark.demo


@pytest.fixture
def open_design(open_app, tmp_path):
    """The dashboard on an experiment of another design, with a cache of its own."""
    return lambda experiment_dir, page=None: open_app(
        experiment_dir.parent, tmp_path / "cache", page
    )


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("fixture", ["renamed_dir", "single_factor_dir"])
def test_every_page_opens_on_other_designs(open_design, request, fixture, page):
    at = open_design(request.getfixturevalue(fixture), page)
    assert not at.error, [e.value for e in at.error]
    assert at.header[0].value


def test_renamed_design_drives_every_view(open_design, renamed_dir):
    at = open_design(renamed_dir, "app_pages/conditions.py")
    assert widget(at.selectbox, "x").value == "n_train"
    assert widget(at.selectbox, "colour").value == "contamination"
    assert widget(at.selectbox, "facet").value == "system"
    open_tab(at, "conditions_tab", "Inflation")
    assert not at.info and at.table and at.dataframe, "inflation shows its tables"
    summary = at.table[0].value
    assert {"system", "n_train", "Gain, leaked", "Gain, other"} <= set(summary.columns)
    open_tab(at, "conditions_tab", "Ranking change")
    assert not at.info and len(at.dataframe[0].value) == 5  # one tau per n_train

    at = open_design(renamed_dir, "app_pages/queries.py")
    assert widget(at.selectbox, "a_contamination").value == "contaminated"
    assert widget(at.selectbox, "b_contamination").value == "clean"


def test_single_factor_says_what_cannot_apply(open_design, single_factor_dir):
    at = open_design(single_factor_dir, "app_pages/conditions.py")
    assert widget(at.selectbox, "x").value == "model"
    open_tab(at, "conditions_tab", "Inflation")
    assert any(
        "Inflation needs a factor with a leaked and a clean level" in i.value for i in at.info
    )
    open_tab(at, "conditions_tab", "Ranking change")
    assert any("[design] system" in i.value or "[design] leakage" in i.value for i in at.info)
    at = open_design(single_factor_dir, "app_pages/leakage.py")
    assert any("The leakage overlap needs leakage pairs" in i.value for i in at.info)
