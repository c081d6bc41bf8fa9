"""The topics a leaked count is "of" are the ones the scorer keeps, and the others are named."""

from __future__ import annotations

import pandas as pd

from leakeval_core.api.study import RunSet
from leakeval_core.api.view import View
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.judged_topics import judged_topics
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_run

QRELS = pd.DataFrame(
    {"qid": ["1", "1", "2", "3"], "docid": ["a", "b", "a", "c"], "grade": [1, 0, 0, 2]}
)
"""Topic 2 is judged with no relevant document; topic 4 is not judged at all."""


def test_the_scorers_topics_are_kept_and_the_rest_named():
    judged = judged_topics(["1", "2", "3", "4"], QRELS)
    assert judged.qids == ("1", "3")
    assert judged.note == "2 topics have no relevant document (2, 4)"
    run = pd.DataFrame({"qid": ["1", "2", "3"], "docid": ["a", "a", "c"], "score": [1.0] * 3})
    assert sorted(score_run(run, PreparedQrels(QRELS), ["P_1"]).qids) == list(judged.qids)


def test_under_zero_only_the_unjudged_are_left_out():
    judged = judged_topics(["1", "2", "3", "4"], QRELS, Conventions(no_relevant="zero"))
    assert judged.qids == ("1", "2", "3")
    assert judged.note == "4 has no judgments"


def test_many_left_out_are_counted_and_the_first_named():
    judged = judged_topics(["1", "3", "7", "8", "9", "10"], QRELS)
    assert judged.note == "4 topics have no relevant document (7, 8, 9, …)"


def test_the_leaked_count_is_of_the_judged_topics():
    run = pd.DataFrame({"qid": ["1", "3"], "docid": ["a", "c"], "score": [1.0, 1.0]})
    runs = RunSet(QRELS, {"a": run, "b": run}, leakage=["2", "3"], collection="c")
    # topic 2 is leaked but not scored: the count is of the two topics the audit uses
    assert runs.leaked_rule(View()) == {
        "c": "1 leaked of 2 judged topics (2 has no relevant document): human-judged pairs"
    }
