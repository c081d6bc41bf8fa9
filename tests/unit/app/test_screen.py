"""The app's screen state and its link: every page, every setting, both ways; a bad value
in a link gives its default and a notice, never an error. No Streamlit here."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_app.page_list import PAGES
from leakeval_app.screen import RESERVED, Screen
from leakeval_core.api.terms import Statistics
from leakeval_core.api.view import View
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from tests.unit.api.test_view import views

names = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(lambda n: n not in RESERVED)
texts = st.text(max_size=30)

screens = st.builds(
    Screen,
    view=views,
    page=st.sampled_from(list(PAGES)),
    experiment=st.none() | st.text(min_size=1, max_size=20),
    present=st.booleans(),
    choices=st.dictionaries(names, texts, max_size=5).map(lambda d: tuple(sorted(d.items()))),
)


@given(screens)
def test_property_screen_to_url_to_screen_is_identical(screen):
    back, notices = Screen.from_url(screen.to_url("http://127.0.0.1:8501"))
    assert back == screen
    assert notices == ()


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_has_its_own_link(page):
    screen = Screen(page=page, present=True)
    path = "" if page == "story" else page
    assert screen.to_url("http://h") == f"http://h/{path}?present=1"
    assert Screen.from_url(screen.to_url("http://h")) == (screen, ())


def test_a_link_to_no_page_opens_the_story_and_says_so():
    screen, notices = Screen.from_url("/nowhere?threshold=0.5")
    assert screen == Screen(View(threshold=0.5))
    assert notices == (
        "Ignored `page=nowhere` from the link: no such page (pages: story, datasets, leakage, "
        "queries, conditions, audit); using the Story.",
    )


@given(st.sampled_from(sorted(RESERVED - {"page"})), texts)
def test_property_any_text_in_any_parameter_gives_a_screen_and_never_raises(name, raw):
    screen, notices = Screen.from_params({name: raw})
    assert Screen.from_params(screen.to_params()) == (screen, ())  # what was kept is valid
    for notice in notices:
        assert f"{name}=" in notice


@pytest.mark.parametrize("name", sorted(RESERVED - {"page", "experiment", "collection"}))
def test_garbage_in_a_setting_gives_its_default_with_a_notice(name):
    screen, notices = Screen.from_params({name: "garbage!"})
    assert screen == Screen()
    assert len(notices) == 1 and f"`{name}=garbage!`" in notices[0]


@pytest.mark.parametrize(
    "params, notice",
    [
        ({"measure": "mrr_at"}, "Ignored `measure=mrr_at` from the link: unknown measure "),
        ({"method": "bm25"}, "Ignored `method=bm25` from the link: not one of lexical"),
        ({"gain": "log"}, "Ignored `gain=log` from the link: not one of linear, exponential; "),
        ({"test": "z"}, "Ignored `test=z` from the link: not one of ttest, randomization; "),
        ({"depth": "0"}, "Ignored `depth=0` from the link: not a whole number from 1 to 100000"),
        ({"seed": "-1"}, "Ignored `seed=-1` from the link: not a whole number from 0 to 42949"),
        ({"alpha": "1"}, "Ignored `alpha=1` from the link: not a level between 0 and 1; using"),
        ({"present": "yes"}, "Ignored `present=yes` from the link: not 1 or 0; using no presen"),
        ({"bad-name": "1"}, "Ignored the link's parameter `bad-name`: no setting has that name."),
    ],
)
def test_each_bad_value_says_what_it_was_and_what_applies(params, notice):
    screen, notices = Screen.from_params(params)
    assert screen == Screen()
    assert len(notices) == 1 and notices[0].startswith(notice), notices


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
    screen, notices = Screen.from_params({"threshold": raw})
    assert screen.view.threshold == threshold
    if notice is None:
        assert notices == ()
    else:
        assert len(notices) == 1 and notice in notices[0]
    assert screen.view.threshold is None or math.isfinite(screen.view.threshold)


def test_one_bad_setting_keeps_the_others():
    screen, notices = Screen.from_params({"depth": "-3", "gain": "exponential", "alpha": "2"})
    assert screen.view.conventions == Conventions(gain="exponential")
    assert screen.view.statistics == View().statistics  # the measure's own δs put in
    assert len(notices) == 2


def test_every_setting_has_its_parameter():
    """A link carries each setting of the View and of the screen under its own name."""
    screen = Screen(
        View(
            measure="P_1",
            conventions=Conventions(
                depth=10,
                relevance_level=2,
                gain="exponential",
                tie_order="docid_desc",
                condensed=True,
                missing="drop",
                no_relevant="zero",
            ),
            statistics=Statistics(
                test="randomization",
                correction="holm",
                alpha=0.01,
                seed=7,
                interval="bootstrap",
                delta=(0.05, 0.1),
            ),
            method="lexical",
            threshold=0.5,
            collection="core18",
            split="answer",
            allow_incomplete=True,
        ),
        page="audit",
        experiment="demo",
        present=True,
        choices=(("audit_tab", "Closer look"),),
    )
    assert screen.to_params() == {
        "experiment": "demo",
        "measure": "P_1",
        "method": "lexical",
        "threshold": "0.5",
        "collection": "core18",
        "split": "answer",
        "present": "1",
        "allow_incomplete": "1",
        "depth": "10",
        "rel": "2",
        "gain": "exponential",
        "ties": "docid_desc",
        "condensed": "1",
        "missing": "drop",
        "unjudged": "zero",
        "test": "randomization",
        "correction": "holm",
        "alpha": "0.01",
        "interval": "bootstrap",
        "seed": "7",
        "delta": "0.05,0.1",
        "audit_tab": "Closer look",
    }
    assert set(screen.to_params()) - {"audit_tab"} == RESERVED - {"page"}
    assert Screen.from_params(screen.to_params(), "audit") == (screen, ())


def test_a_screen_refuses_what_it_cannot_show():
    with pytest.raises(LeakevalError, match="unknown page"):
        Screen(page="settings")
    with pytest.raises(LeakevalError, match="page's choice"):
        Screen(choices=(("threshold", "1"),))
    with pytest.raises(LeakevalError, match="experiment"):
        Screen(experiment="")


def test_defaults_stay_out_of_the_link():
    assert Screen().to_params() == {}
    screen = Screen(View(threshold=0.61, collection="core18"))
    assert (
        replace(screen, choices=(("conditions_tab", "Inflation"),)).to_url()
        == "/?threshold=0.61&collection=core18&conditions_tab=Inflation"
    )


def test_screens_that_show_the_same_numbers_hold_one_view():
    """What a verb remembers is keyed by the View alone: the page, the open tab and
    presentation mode change what a screen shows, never which result it reads."""
    story, _ = Screen.from_url("/?threshold=0.6&measure=P_1")
    audit, _ = Screen.from_url("/audit?threshold=0.6&measure=P_1&present=1&audit_tab=Per+model")
    assert story != audit
    assert story.view == audit.view and hash(story.view) == hash(audit.view)


def test_a_measures_own_deltas_stay_out_of_the_link_and_come_back_from_it():
    """The first relevant rank's link carries no δ (its own 1, 2, 5 are the default), and
    reads back to them; another measure in the same link sizes for its own."""
    ranks = Screen(View(measure="first_rel_rank"))
    assert "delta" not in ranks.to_params()
    back, notices = Screen.from_params(ranks.to_params())
    assert notices == () and back.view.statistics.delta == (1.0, 2.0, 5.0)
    bad, notices = Screen.from_params({"measure": "first_rel_rank", "delta": "abc"})
    assert bad.view.statistics.delta == (1.0, 2.0, 5.0) and "the measure's own" in notices[0]


def test_a_links_split_is_read_and_a_bad_one_ignored():
    screen, notices = Screen.from_url("/audit?split=answer")
    assert screen.view.split == "answer" and notices == ()
    screen, notices = Screen.from_url("/audit?split=queries")
    assert screen.view.split == "leaked"
    assert "split=queries" in notices[0]
