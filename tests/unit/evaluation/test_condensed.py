"""Condensed lists: a run scored with its unjudged documents removed before the cutoff
equals pytrec_eval on the same run filtered by hand, for every measure they share, at every
relevance level, under trec_eval's counting and leakeval's."""

import pandas as pd
import pytest
from hypothesis import given, settings

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_run
from tests.pytrec_isolated import Isolated
from tests.unit.evaluation.test_relevance_levels import (
    LEVELS,
    POLICIES,
    PYTREC,
    assert_equal_values,
    graded_collections,
)

pytest.importorskip("pytrec_eval")

NAMED = ("ndcg_cut_10", "P_10", "map", "bpref")
"""The measures the issue names: each is among `PYTREC`, checked here by name too."""


def by_hand(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    """The run without the rows whose document is not judged for their query."""
    judged = qrels[["qid", "docid"]].assign(judged=True)
    return run.merge(judged, on=["qid", "docid"], how="left").query("judged == True")[
        ["qid", "docid", "score"]
    ]


@pytest.fixture(scope="module")
def isolated():
    worker = Isolated()
    yield worker
    worker.close()


def test_the_named_measures_are_checked():
    assert set(NAMED) <= set(PYTREC)


@settings(max_examples=30)
@given(graded_collections())
def test_property_condensed_equals_pytrec_eval_on_the_run_filtered_by_hand(isolated, collection):
    qrels, run = collection
    for level in LEVELS:
        for policy, conventions in POLICIES.items():
            given = conventions(relevance_level=level, depth=10_000, condensed=True)
            answer = isolated.score(qrels, run, PYTREC, given, reference_run=by_hand(qrels, run))
            assert_equal_values(answer, PYTREC, qrels, (level, policy, "condensed"))


def test_condensed_cuts_after_removing_and_leaves_bpref_alone():
    """d1 judged relevant at rank 3 behind two unjudged documents: condensed, it is first
    (P@1 1, nDCG@2 1); the depth of 2 counts judged documents. bpref is the same."""
    qrels = pd.DataFrame({"qid": ["1", "1", "1"], "docid": ["d1", "n1", "n2"], "grade": [1, 0, 0]})
    run = pd.DataFrame(
        {"qid": ["1"] * 5, "docid": ["u1", "u2", "d1", "n1", "n2"], "score": [5, 4, 3, 2, 1.0]}
    )
    measures = ["P_1", "ndcg_cut_2", "bpref"]
    plain = score_run(run, PreparedQrels(qrels, Conventions(depth=3)), measures).means()
    condensed = Conventions(depth=2, condensed=True)
    ours = score_run(run, PreparedQrels(qrels, condensed), measures).means()
    assert (plain["P_1"], plain["ndcg_cut_2"]) == (0.0, 0.0)
    assert ours == {"P_1": 1.0, "ndcg_cut_2": 1.0, "bpref": 1.0}
    assert plain["bpref"] == 1.0


def test_the_command_line_scores_condensed_as_the_api_does(tmp_path):
    """`leakeval score --condensed` writes the per-query values `api.score` gives with
    `condensed`, and they differ from the plain ones: query 1 ranks an unjudged document
    first, query 2 one above its relevant document."""
    import subprocess
    import sys

    from leakeval_core import api

    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 n1 0\n2 0 d2 2\n")
    (tmp_path / "run.txt").write_text(
        "1 Q0 u1 1 3 r\n1 Q0 n1 2 2 r\n1 Q0 d1 3 1 r\n2 Q0 u2 1 2 r\n2 Q0 d2 2 1 r\n"
    )
    measures = ["P_1", "ndcg_cut_10", "map", "bpref"]

    def written(*flags):
        subprocess.run(
            [
                *(sys.executable, "-m", "leakeval_core.cli", "score", "--run", "run.txt"),
                *("--qrels", "qrels.txt", "--measures", ",".join(measures), "--per-query"),
                *("--out", "scores.csv", *flags),
            ],
            cwd=tmp_path,
            check=True,
            timeout=120,
        )
        table = pd.read_csv(tmp_path / "scores.csv", dtype={"qid": str})
        return table[table.qid != "all"].reset_index(drop=True)

    files = {"run.txt": str(tmp_path / "run.txt")}
    given = api.score(str(tmp_path / "qrels.txt"), files, measures, Conventions(condensed=True))
    condensed = written("--condensed")
    pd.testing.assert_frame_equal(condensed, given.table.astype({"qid": str}), check_dtype=False)
    assert condensed.value.tolist() != written().value.tolist()
    assert condensed.set_index(["qid", "measure"]).value.to_dict() == {
        **{("1", "P_1"): 0.0, ("1", "map"): 0.5, ("1", "bpref"): 0.0},
        **{("2", "P_1"): 1.0, ("2", "map"): 1.0, ("2", "bpref"): 1.0},
        **{("1", "ndcg_cut_10"): pytest.approx(0.6309297535714575), ("2", "ndcg_cut_10"): 1.0},
    }
