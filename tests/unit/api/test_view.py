"""The View: the settings that change a number, validated, and their CLI encoding."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.api import view as view_module
from leakeval_core.api.terms import METHODS, Statistics
from leakeval_core.api.view import SPLITS, View
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions

views = st.builds(
    View,
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
    split=st.sampled_from(SPLITS),
    allow_incomplete=st.booleans(),
)
"""Every View: the screen's URL tests (tests/unit/app/test_screen.py) draw from it too."""


def test_a_view_holds_only_what_changes_a_number():
    """The verbs key their remembered results by the View: a page, a tab or presentation
    mode in it would make two screens of the same numbers compute them twice."""
    assert {f.name for f in fields(View) if f.init} == {
        "measure",
        "conventions",
        "statistics",
        "method",
        "threshold",
        "collection",
        "split",
        "allow_incomplete",
    }


def test_a_view_refuses_what_it_cannot_mean():
    with pytest.raises(LeakevalError, match="threshold"):
        View(threshold=1.5)
    with pytest.raises(LeakevalError, match="unknown measure"):
        View(measure="ndcg_at_ten")
    assert View(measure="nDCG@10") == View(measure="ndcg_cut_10")  # one key, either name
    with pytest.raises(LeakevalError, match="method"):
        View(method="bm25")
    with pytest.raises(LeakevalError, match="collection"):
        View(collection="")


def test_the_measure_is_parsed_once_per_view(monkeypatch):
    calls = []
    parse = view_module.parse_measure
    monkeypatch.setattr(
        view_module, "parse_measure", lambda text: calls.append(text) or parse(text)
    )
    view = View(measure="nDCG@10")
    assert {view.parsed_measure.name for _ in range(75)} == {"ndcg_cut_10"}
    assert calls == ["nDCG@10"]
    assert view.replace(threshold=0.5).parsed_measure is not None
    assert calls == ["nDCG@10", "ndcg_cut_10"]  # a new View, parsed once more
    assert "parsed_measure" not in repr(view)
    assert hash(view) == hash(View(measure="ndcg_cut_10"))


@given(views)
def test_property_the_flags_of_a_view_give_its_settings_back(view):
    """A card prints `View.to_flags` as its command: the command line reads them into the
    same settings (the collection is the card's own `--collection`, and stays out)."""
    from leakeval_core.cli import _parser
    from leakeval_core.cli.audit import audit_view

    args = _parser().parse_args(["card", "x", *view.to_flags(), "--out", "card.md"])
    assert audit_view(args) == view.replace(collection=None)


def test_default_settings_give_no_flags():
    assert View(collection="robust04").to_flags() == []


def test_the_deltas_sized_for_by_default_are_the_measures_own():
    """A first relevant rank is sized for in ranks (1, 2, 5), a score in points of it
    (0.01, 0.02, 0.05): declared once, in the measure registry, and put in by the View
    wherever no δ is asked for, including when another measure replaces the first."""
    from leakeval_core.evaluation.measures import parse_measure

    assert parse_measure("first_rel_rank").deltas == (1.0, 2.0, 5.0)
    assert parse_measure("nDCG@10").deltas == (0.01, 0.02, 0.05)
    assert parse_measure("num_rel_ret").deltas == (1.0, 2.0, 5.0)  # a count of documents
    ranks = View(measure="first_rel_rank")
    assert ranks.statistics.delta == (1.0, 2.0, 5.0)
    assert View().statistics.delta == (0.01, 0.02, 0.05)
    assert View().replace(measure="first_rel_rank") == ranks
    assert ranks.replace(measure="P_1").statistics.delta == (0.01, 0.02, 0.05)
    asked = View(statistics=Statistics(delta=(0.5,)))
    assert asked.replace(measure="first_rel_rank").statistics.delta == (0.5,)  # asked: kept
    assert ranks.to_flags() == ["--measure", "first_rel_rank"]  # its own δs are no flag
    assert View(measure="first_rel_rank", statistics=Statistics(delta=0.01)).to_flags()[-2:] == [
        "--delta",
        "0.01",
    ]


def test_the_split_is_a_setting_with_a_flag_and_one_error():
    assert View(split="answer").to_flags() == ["--split", "answer"]
    assert View().to_flags() == []
    with pytest.raises(LeakevalError, match="unknown split 'answers'; use leaked or answer"):
        View(split="answers")
