"""Answers that leaked, on the Leakage overlap page: each pair's shared count, and a topic's
near-duplicates with their training positives, relevant ones first."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest import linked, widget
from tests.support import ROOT

pytestmark = pytest.mark.demo


def _page(answers_dir, tmp_path, monkeypatch, **params: str) -> AppTest:
    return linked(answers_dir, tmp_path, monkeypatch, "app_pages/leakage.py", **params)


def _chooser(at: AppTest):
    return next(s for s in at.selectbox if s.key == "answers_topic")


def _first_relevant(answers_dir, qid: str) -> str:
    qrels = pd.read_csv(answers_dir / "qrels.txt", sep=" ", names=["q", "i", "d", "g"], dtype=str)
    return qrels[(qrels.q == qid) & (qrels.g.astype(int) > 0)].d.min()


def test_a_topics_shared_documents_are_shown_with_their_grades(answers_dir, tmp_path, monkeypatch):
    at = _page(answers_dir, tmp_path, monkeypatch)
    pairs = at.dataframe[0].value
    assert "shared_relevant" in pairs.columns
    assert "20 answer-leaked, 11 query-leaked, 19 clean of 50 judged topics" in " ".join(
        m.value for m in at.markdown
    )
    chooser = _chooser(at)
    topics = [tuple(label.split(" · ")[:2]) for label in chooser.options]  # collection · qid
    even = next(t for t in topics if int(t[1]) % 2 == 0)
    odd = next(t for t in topics if int(t[1]) % 2 == 1)
    chooser.set_value(even).run()
    assert any("answer-leaked." in c.value for c in at.caption)
    shown = at.dataframe[1].value
    first = shown.iloc[0]
    assert (first.docid, bool(first.relevant)) == (_first_relevant(answers_dir, even[1]), True)
    assert first.grade != "–" and not shown.isna().any().any()
    assert set(shown.docid[~shown.relevant.astype(bool)].str[0]) == {"D"}  # elsewhere: unjudged
    _chooser(at).set_value(odd).run()
    assert any(
        "none is a relevant document of the topic (grade ≥ 1): query-leaked." in c.value
        for c in at.caption
    )
    assert not at.dataframe[1].value.relevant.astype(bool).any()


def test_the_audit_page_splits_by_answers_from_a_link(answers_dir, tmp_path, monkeypatch):
    at = _page(answers_dir, tmp_path, monkeypatch, split="answer")
    at.switch_page("app_pages/audit.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert widget(at.selectbox, "audit_split").options == [
        "answer-leaked vs clean",
        "answer-leaked vs query-leaked",
        "query-leaked vs clean",
    ]
    assert any("20 answer-leaked, 11 query-leaked, 19 clean" in c.value for c in at.caption)


def test_the_audit_page_switches_to_the_split_by_answers(answers_dir, tmp_path, monkeypatch):
    at = _page(answers_dir, tmp_path, monkeypatch)
    at.switch_page("app_pages/audit.py").run()
    assert widget(at.selectbox, "audit_split").options == ["leaked"]
    widget(at.radio, "split").set_value("answer").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "answer-leaked vs clean" in widget(at.selectbox, "audit_split").options
    assert at.query_params["split"] == "answer"  # the link keeps it


def test_the_inflation_tab_draws_one_comparison_by_answers_at_a_time(
    demo_dir, demo_cache, tmp_path, monkeypatch
):
    """Twins split by answers: the Inflation tab offers the three comparisons, draws the
    chosen one, and its table holds all three for every pair of conditions."""
    from tests.app.apptest import open_tab
    from tests.support import answered_demo

    folder = answered_demo(demo_dir, tmp_path / "data" / "answered")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("LEAKEVAL_DATA", str(folder.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))  # the demo's scores, kept
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["split"] = "answer"
    at.run()
    at.switch_page("app_pages/conditions.py").run()
    at = open_tab(at, "conditions_tab", "Inflation")
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.main.error]
    chooser = widget(at.selectbox, "inflation_split")
    assert chooser.options == [
        "answer-leaked vs clean",
        "query-leaked vs clean",
        "answer-leaked vs query-leaked",
    ]
    chooser.set_value("query-leaked vs clean").run()
    assert not at.exception, [e.value for e in at.exception]
