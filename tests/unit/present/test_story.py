"""The Story, for every measure: its headline and evidence against the per-query scores,
scipy and the share of the gain computed by hand, in the measure's own direction."""

import pandas as pd

from leakeval_core import api
from leakeval_core.analysis.statistics_options import Statistics
from leakeval_core.present.story import default_pair
from tests.support import write


def test_the_story_opens_on_the_largest_oriented_difference():
    """The defect: with First relevant rank the story negated the already oriented
    difference and opened on the pair whose leaked topics gained least. `difference` is
    positive where leaked topics gain more in the better direction, for every measure."""
    summary = pd.DataFrame({"collection": ["a", "b", "c"], "difference": [0.46, -1.29, None]})
    assert default_pair(summary, ["collection"]) == {"collection": "a"}


def test_an_audit_story_tells_the_model_against_the_baseline(tmp_path):
    """An experiment with a baseline and no twins: the story is the audit's."""
    qids = [str(q) for q in range(1, 13)]
    write(tmp_path / "t.tsv", "".join(f"{q}\ttopic {q}\n" for q in qids))
    write(tmp_path / "q.txt", "".join(f"{q} 0 d{q} 1\n" for q in qids))
    for model, first in (("bm25", lambda q: False), ("mine", lambda q: int(q) <= 6)):
        lines = [
            f"{q} Q0 {doc} {r} {s} x\n"
            for q in qids
            for r, (doc, s) in enumerate(
                [(f"d{q}", 2.0), ("other", 1.0)] if first(q) else [("other", 2.0), (f"d{q}", 1.0)],
                start=1,
            )
        ]
        write(tmp_path / "runs" / f"{model}.run", "".join(lines))
    write(
        tmp_path / "pairs.csv",
        "test_qid,train_qid,train_text,similarity,category\n"
        + "".join(f"{q},t{q},topic {q},1.0,identical\n" for q in qids[:6]),
    )
    write(
        tmp_path / "experiment.toml",
        '[collections.c]\ntopics = "t.tsv"\nqrels = "q.txt"\n[leakage]\ntable = "pairs.csv"\n'
        '[design]\nsystem = "model"\nbaseline = "bm25"\n[runs]\npattern = "runs/{model}.run"\n',
    )
    story = api.story(tmp_path, measure="P_1")
    assert story.kind == "audit" and story.pair == {"collection": "c", "model": "mine"}
    assert story.opening == "first"  # the design's first model, picked before looking
    # the headline is the leakage answer; the overall change opens the detail
    assert story.headline.startswith("Leaked topics inflate mine's P@1 on c: leaked − other +1.00")
    assert story.detail.startswith("Against bm25, mine improves P@1 from 0.000 to 0.500 on c.")
    assert "+1.00 on the 6 topics with a near-duplicate" in story.detail
    assert "0 on the 6 without: 100% [100%, 100%] of the gain comes from the leaked" in (
        story.detail
    )
    assert "against 50% if they gained like the others" in story.detail  # the reference
    assert "Welch's t-test over topics" in story.evidence and "Verdict: inflated" in story.evidence
    assert story.answers.model.tolist() == ["mine"] and story.top_title.endswith("most")
    # every figure the story tells is its row of the audit it describes
    audit = api.audit(tmp_path, measure="P_1")
    row = audit.table[audit.table.split == "leaked"].iloc[0]
    for name in ("leaked_topics", "other_topics", "gain_leaked", "gain_other", "difference"):
        assert getattr(story.facts, name) == row[name]
    for name in ("ci_low", "ci_high", "p", "p_adjusted", "mde", "confidence", "verdict"):
        assert getattr(story.facts, name) == row[name]
    board = audit.leaderboard.set_index("system")["mean"]
    assert (story.facts.mean_a, story.facts.mean_b) == (board["mine"], board["bm25"])
    # with the permutation test: C(12, 6) = 924 assignments, exactly 2 as extreme
    permuted = api.story(tmp_path, measure="P_1", statistics=Statistics(test="randomization"))
    assert f"p = {2 / 924:.2g}" in permuted.evidence and "permutation test" in permuted.evidence
