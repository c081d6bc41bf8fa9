"""Incomplete designs are errors, not data (#37): the demo with one fold of one condition
deleted, or made unreadable, on every door but the app (tests/app/test_story_page.py)."""

from __future__ import annotations

import json

import pytest

from leakeval_core import api
from leakeval_core.cli import main
from leakeval_core.errors import LeakevalError
from tests.support import DAMAGED, INCOMPLETE, damaged_demo, write

pytestmark = pytest.mark.demo

WHAT = {"deleted": DAMAGED.format(1), "malformed": DAMAGED.format(2) + ":5001"}
"""What each damage's messages name: the missing run's path, or the bad line."""
LEVELS = [arg for f, v in INCOMPLETE.items() for arg in ("--level", f, str(v))]


@pytest.fixture(scope="module", params=["deleted", "malformed"])
def damaged(request, demo_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param) / "demo"
    return request.param, damaged_demo(demo_dir, out, request.param)


@pytest.fixture(autouse=True)
def _cache(demo_cache, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))


def test_validate_fails_and_names_the_damaged_run(damaged, capsys):
    how, folder = damaged
    assert main(["validate", str(folder)]) == 2
    err = capsys.readouterr().err
    assert WHAT[how] in err
    if how == "deleted":
        assert f"{DAMAGED.format(1)}: missing" in err


def test_the_story_says_the_pair_is_incomplete_instead_of_a_headline(damaged, capsys):
    how, folder = damaged
    with pytest.raises(LeakevalError, match="No story for this pair") as raised:
        api.story(folder, pair=INCOMPLETE)
    assert WHAT[how] in str(raised.value)
    assert ("incomplete" if how == "deleted" else "broken") in str(raised.value)
    # the opening pair is another one, and the story names the condition left out
    told = api.story(folder)
    assert told.pair != INCOMPLETE
    assert any(WHAT[how] in note and "left out" in note for note in told.incomplete)
    # the command line: no headline, the reason, a failing exit
    assert main(["story", str(folder), *LEVELS]) == 2
    out, err = capsys.readouterr()
    assert "Leaked training" not in out and WHAT[how] in err


def test_allowed_the_pair_is_computed_and_says_how_many_queries_it_lacks(damaged, capsys):
    how, folder = damaged
    told = api.story(folder, pair=INCOMPLETE, allow_incomplete=True)
    assert told.headline.startswith("Leaked training")
    assert any("lacks 50 of its 250 queries" in note for note in told.incomplete)
    assert main(["story", str(folder), "--allow-incomplete", "--json", *LEVELS]) == 0
    out, err = capsys.readouterr()
    record = json.loads(out)
    assert record["pair"] == {f: str(v) for f, v in INCOMPLETE.items()}
    assert "lacks 50 of its 250 queries" in " ".join(record["incomplete"]) and WHAT[how] in err


def test_every_verb_leaves_the_condition_out_and_names_it(damaged, tmp_path, capsys):
    how, folder = damaged
    where = dict(INCOMPLETE)
    compared = api.compare(folder)
    assert api.doors.rows_at(compared.table, where).empty
    inflated = api.inflation(folder)
    assert api.doors.rows_at(inflated.table, where).empty
    audited = api.audit(folder)
    assert api.doors.rows_at(audited.table, where).empty
    for result in (compared, inflated, audited):
        assert any(WHAT[how] in note for note in result.incomplete)
    report = api.report(folder)
    assert WHAT[how] in report
    # the same numbers with the condition computed anyway, each output saying so
    allowed = api.inflation(folder, allow_incomplete=True)
    assert len(api.doors.rows_at(allowed.table, where)) == 1
    assert "lacks 50 of its 250 queries" in " ".join(allowed.incomplete)
    assert main(["inflation", str(folder), "--format", "json", "--allow-incomplete"]) == 0
    out = capsys.readouterr().out
    assert "lacks 50 of its 250 queries" in " ".join(json.loads(out)["incomplete"])
    assert main(["compare", str(folder), "--out", str(tmp_path / "c.csv")]) == 0
    assert WHAT[how] in capsys.readouterr().err


def test_a_collection_that_cannot_be_loaded_is_named_as_the_cause(audit_dir, tmp_path):
    """Not "no topic is scored by both the model and the baseline": the collection, its file
    and line."""
    import shutil

    folder = shutil.copytree(audit_dir, tmp_path / "audit")
    qrels = folder / "qrels.txt"
    write(qrels, qrels.read_text() + "broken\n")
    with pytest.raises(LeakevalError) as raised:
        api.audit(folder)
    message = str(raised.value)
    assert "collection 'core17' could not be loaded" in message
    assert f"{qrels}:" in message and "no topic is scored" not in message
