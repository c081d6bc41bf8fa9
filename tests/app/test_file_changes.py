"""A served experiment changes under its reader (#47): the next page shows the new numbers
and says what changed, and what it did to the correction family."""

from __future__ import annotations

import re

import pytest

from tests.support import baseline_experiment, edit_in_place


@pytest.fixture
def story(open_app, tmp_path):
    """The Story on a small experiment of its own (models against a BM25 baseline), and the
    experiment's folder."""
    root = baseline_experiment(tmp_path / "data" / "x")
    return open_app(root.parent, tmp_path / "cache"), root


def headline(at) -> str:
    """The Story's first sentence: "Against bm25, bm25-rm3 improves nDCG@10 from A to B"."""
    return next(m.value for m in at.markdown if m.value.startswith("Against bm25"))


def notices(at) -> list[str]:
    """The notices at the top of the page (the page's own warnings are below its header)."""
    return [w.value for w in at.main.warning if not w.value.startswith("bm25-rm3 is not")]


def test_an_edit_keeping_size_and_mtime_shows_new_numbers_and_says_so(story, hashes_kept_at_once):
    at, root = story
    before = re.search(r"from (\S+) to (\S+) on a", headline(at)).groups()
    at.run()
    assert re.search(r"from (\S+) to (\S+) on a", headline(at)).groups() == before
    edit_in_place(root / "runs" / "a" / "bm25.run", "Q0 d1-0 ", "Q0 d1-X ")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    after = re.search(r"from (\S+) to (\S+) on a", headline(at)).groups()
    assert after[0] != before[0] and after[1] == before[1]  # the baseline's mean moved
    assert notices(at) == ["runs/a/bm25.run changed: its scores are computed anew."]
    at.run()
    assert notices(at) == []  # said once


def test_a_deleted_run_says_the_family_shrank(story):
    at, root = story
    assert notices(at) == []
    (root / "runs" / "a" / "bm25-rm3.run").unlink()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert notices(at) == [
        "runs/a/bm25-rm3.run is gone.",
        "bm25-rm3 is gone from a: Bonferroni is now over 1 model.",
    ]
    # the Story stays on the model it showed, which it can no longer audit on a: it says so
    assert [w.value for w in at.main.warning if w.value.startswith("bm25-rm3 is not")] == [
        "bm25-rm3 is not audited at collection=a: it has no complete runs there, or scores "
        "as bm25 on every topic; choose another model."
    ]
