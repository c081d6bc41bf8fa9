"""The View: one settings value, and its URL encoding both ways."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.api.terms import METHODS, Statistics
from leakeval_core.api.view import PAGES, RESERVED, View
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions

names = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(lambda n: n not in RESERVED)
texts = st.text(max_size=30)

views = st.builds(
    View,
    experiment=st.none() | st.text(min_size=1, max_size=20),
    page=st.sampled_from(PAGES),
    measure=st.sampled_from(
        ["ndcg_cut_10", "P_1", "first_rel_rank", "map", "recall_100", "gm_map", "ndcg_cut_3"]
    ),
    conventions=st.builds(
        Conventions,
        depth=st.integers(1, 100_000),
        relevance_level=st.integers(1, 100),
        gain=st.sampled_from(["linear", "exponential"]),
        tie_order=st.sampled_from(["docid_asc", "docid_desc"]),
        missing=st.sampled_from(["zero", "drop"]),
        no_relevant=st.sampled_from(["exclude", "zero"]),
    ),
    statistics=st.builds(
        Statistics,
        test=st.sampled_from(["ttest", "randomization"]),
        correction=st.sampled_from(["bonferroni", "holm", "none"]),
        alpha=st.floats(1e-6, 0.999, allow_nan=False),
        seed=st.integers(0, 2**32 - 1),
        interval=st.sampled_from(["test", "bootstrap"]),
    ),
    method=st.none() | st.sampled_from(METHODS),
    threshold=st.none() | st.floats(0.0, 1.0, allow_nan=False),
    collection=st.none() | st.text(min_size=1, max_size=20),
    choices=st.dictionaries(names, texts, max_size=5).map(lambda d: tuple(sorted(d.items()))),
    present=st.booleans(),
    allow_incomplete=st.booleans(),
)


@given(views)
def test_property_view_to_url_to_view_is_identical(view):
    back, notices = View.from_url(view.to_url("http://127.0.0.1:8501"))
    assert back == view
    assert notices == ()


@given(st.sampled_from(sorted(RESERVED - {"page"})), texts)
def test_property_any_text_in_any_parameter_gives_a_view_and_never_raises(name, raw):
    view, notices = View.from_params({name: raw})
    assert View.from_params(view.to_params()) == (view, ())  # what was kept is valid
    for notice in notices:
        assert f"{name}=" in notice


@pytest.mark.parametrize("name", sorted(RESERVED - {"page", "experiment", "collection"}))
def test_garbage_in_a_setting_gives_its_default_with_a_notice(name):
    view, notices = View.from_params({name: "garbage!"})
    assert view == View()
    assert len(notices) == 1 and f"`{name}=garbage!`" in notices[0]


@pytest.mark.parametrize(
    "raw, threshold, notice",
    [
        ("0.61", 0.61, None),
        ("nan", None, "not a number"),
        ("-1", 0.0, "outside [0, 1]"),
        ("5", 1.0, "outside [0, 1]"),
        ("inf", 1.0, "outside [0, 1]"),
        ("abc", None, "not a number"),
    ],
)
def test_bad_thresholds_fall_back_or_clamp_with_a_notice(raw, threshold, notice):
    view, notices = View.from_params({"threshold": raw})
    assert view.threshold == threshold
    if notice is None:
        assert notices == ()
    else:
        assert len(notices) == 1 and notice in notices[0]
    assert view.threshold is None or math.isfinite(view.threshold)


def test_one_bad_setting_keeps_the_others():
    view, notices = View.from_params({"depth": "-3", "gain": "exponential", "alpha": "2"})
    assert view.conventions == Conventions(gain="exponential")
    assert view.statistics == Statistics()
    assert len(notices) == 2


def test_a_view_refuses_what_it_cannot_mean():
    with pytest.raises(LeakevalError, match="threshold"):
        View(threshold=1.5)
    with pytest.raises(LeakevalError, match="unknown measure"):
        View(measure="ndcg_at_ten")
    assert View(measure="nDCG@10") == View(measure="ndcg_cut_10")  # one key, either name
    with pytest.raises(LeakevalError, match="method"):
        View(method="bm25")
    with pytest.raises(LeakevalError, match="page's choice"):
        View(choices=(("threshold", "1"),))


def test_defaults_stay_out_of_the_link():
    assert View().to_params() == {}
    assert (
        View(threshold=0.61, collection="core18").with_choices(conditions_tab="Inflation").to_url()
        == "/?threshold=0.61&collection=core18&conditions_tab=Inflation"
    )


@given(views)
def test_property_the_flags_of_a_view_give_its_settings_back(view):
    """A card prints `View.to_flags` as its command: the command line reads them into the
    same settings (the page, collection and choices are a screen's, and stay out)."""
    from leakeval_core.cli import _parser
    from leakeval_core.cli.audit import audit_view

    args = _parser().parse_args(["card", "x", *view.to_flags(), "--out", "card.md"])
    settings = ("measure", "conventions", "statistics", "method", "threshold", "allow_incomplete")
    assert audit_view(args) == View(**{name: getattr(view, name) for name in settings})


def test_default_settings_give_no_flags():
    assert View(page="audit", collection="robust04", present=True).to_flags() == []
