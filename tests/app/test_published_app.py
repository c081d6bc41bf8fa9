"""An experiment of published per-query evaluations in the dashboard: every page draws,
every measure they carry is offered, and a link's measure is the one shown."""

from __future__ import annotations

import pytest

from leakeval_app import page_list
from leakeval_core.evaluation.published import NOT_RECOMPUTED
from tests.app.apptest import PAGES, linked, widget
from tests.support import published_experiment

pytestmark = pytest.mark.demo


@pytest.fixture(scope="module", params=[True, False], ids=["with-qrels", "without-qrels"])
def published(audit_dir, tmp_path_factory, request):
    """The audit experiment's runs as trec_eval -q files, with its qrels or, as they are
    usually published, without."""
    out = tmp_path_factory.mktemp("data") / "published"
    return published_experiment(audit_dir, out, qrels=request.param)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_draws_and_a_link_to_p_at_10_shows_p_at_10(
    published, tmp_path, monkeypatch, page
):
    """Every page draws, offers the measures the files carry (the study's first), and
    shows P@10 where a link names it."""
    at = linked(published, tmp_path, monkeypatch, page, measure="P_10")
    measure = widget(at.sidebar.selectbox, "measure")
    assert measure.value == "P_10"
    assert measure.options == ["nDCG@10", "RR", "AP", "P@10"]
    assert not [e.value for e in at.main.error]
    assert not [w.value for w in at.main.warning if "Ignored measure" in w.value]
    shown = [
        *(m.value for m in at.main.markdown),
        *(c.value for c in at.main.caption),
        *(c.proto.spec for c in at.get("plotly_chart")),
    ]
    assert not any("nDCG@10" in text for text in shown), shown
    if page not in MEASURELESS:
        assert any("P@10" in text for text in shown), shown


MEASURELESS = {page_list.script("datasets"), page_list.script("leakage")}
"""The pages that show no measure: the collections' topics and judgments, and the pairs."""


def test_one_query_says_there_is_no_ranking_and_nothing_to_recompute(
    published, tmp_path, monkeypatch
):
    at = linked(
        published, tmp_path, monkeypatch, page_list.script("queries"), queries_tab="One query"
    )
    at.session_state["queries_audit"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.main.caption]
    assert (
        "No ranked list of this query for A or B: its run does not rank it, or its file holds "
        "published per-query values, not a ranking." in captions
    )
    assert NOT_RECOMPUTED in captions
    assert not at.get("plotly_chart") or all(
        "Ranked" not in c.proto.spec for c in at.get("plotly_chart")
    )
