"""The loud warnings a run's scores carry: counted once by the scorer, said in one sentence.

A run in another id space scores near 0 without an error; these tests hold the counts the
scorer keeps for it and the sentence every door shows (the doors' own tests hold that they
show it)."""

import re
from dataclasses import astuple

import pandas as pd
import pytest

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_run
from leakeval_core.evaluation.scoring_warnings import (
    JUDGED_BELOW,
    JUDGED_NOTE_BELOW,
    MISMATCH_BELOW,
    SHARED_BELOW,
    Judged,
    judged_note,
)

MEASURES = ("ndcg_cut_10", "P_1", "first_rel_rank", "recall_100", "judged_10")


def qrels(queries: int = 4, judged: int = 2) -> pd.DataFrame:
    """Each query judges `judged` documents `d{q}-{i}`, the first relevant."""
    rows = [
        (f"{q}", f"d{q}-{i}", int(i == 0)) for q in range(1, queries + 1) for i in range(judged)
    ]
    return pd.DataFrame(rows, columns=["qid", "docid", "grade"])


def run(docs: dict[str, list[str]]) -> pd.DataFrame:
    """A run ranking each query's documents in the order given."""
    rows = [(q, d, float(len(ds) - i)) for q, ds in docs.items() for i, d in enumerate(ds)]
    return pd.DataFrame(rows, columns=["qid", "docid", "score"])


def counts(judged: Judged) -> tuple[int, ...]:
    """The five counts of `Judged`, without the pool and the ids."""
    return astuple(judged)[:5]


def scored(docs: dict[str, list[str]], conventions: Conventions = Conventions(), **given):
    prepared = PreparedQrels(qrels(**given), conventions)
    return score_run(run(docs), prepared, MEASURES, name="run.txt").diagnostics


def test_a_run_in_another_id_space_is_counted_and_said_with_its_counts():
    """Ten documents a query, one of the forty judged (so no error): 1 of 40 top-10
    documents judged, 1 of 40 distinct documents known to the qrels, and, that one ranked
    third, P@1 at 0 on every query."""
    docs = {f"{q}": [f"x{q}-{i}" for i in range(10)] for q in range(1, 5)}
    docs["1"][2] = "d1-0"
    diagnostics = scored(docs)
    assert diagnostics.judged == Judged(
        10, 40, 1, 40, 1, ranked=40, pool=8, run_ids=("x1-0", "x2-0"), qrels_ids=("d1-0", "d1-1")
    )
    assert diagnostics.warnings("run.txt", "qrels.txt") == (
        "run.txt: 1 of the 40 documents it ranks in the top 10 (2.5%) are judged in "
        "qrels.txt; its scores mostly count unjudged documents as non-relevant — check that "
        "the run's and the qrels' document ids match: the run ranks x1-0, x2-0; the qrels "
        "judge d1-0, d1-1 (in a TREC run the docid is column 3).",
        "run.txt: P_1 is 0 on all 4 queries.",
    )


def test_a_run_none_of_whose_documents_is_judged_is_an_error_with_the_ids_side_by_side():
    from leakeval_core.errors import LeakevalError

    with pytest.raises(LeakevalError) as raised:
        scored({"1": ["X1", "X2", "X1b"]}, queries=1)
    assert str(raised.value) == (
        "run.txt: none of its 3 distinct documents is judged in the qrels; is this run for "
        "another collection? check that the run's and the qrels' document ids match: the run "
        "ranks X1, X2; the qrels judge d1-0, d1-1 (in a TREC run the docid is column 3)."
    )


def test_shallow_judgments_are_said_as_such_with_no_advice_on_ids():
    """Four of each query's top 10 judged, the ids the qrels': Judged@10 40%, what it means
    for a comparison, and what scores only the judged documents."""
    docs = {f"{q}": [f"d{q}-{i}" if i % 3 == 0 else f"u{q}-{i}" for i in range(10)] for q in (1, 2)}
    diagnostics = scored(docs, queries=2, judged=10)
    assert diagnostics.judged.shallow and not diagnostics.judged.ids_differ
    assert diagnostics.warnings("run.txt", "qrels.txt") == (
        "run.txt: Judged@10 is 40.0%: 8 of the 20 documents it ranks in the top 10 (40.0%) are "
        "judged in qrels.txt. Shallow judgments: unjudged documents count as non-relevant, "
        "which favours the systems that were pooled and under-scores one that finds documents "
        "they did not; bpref, or condensed lists (unjudged documents removed before the "
        "cutoff: --condensed, or the sidebar's Condensed lists), score only what was judged.",
    )


def test_sharing_almost_no_documents_is_said_too():
    """A run whose top 10 is judged but that ranks 1,100 more documents the qrels never
    saw, within a depth of 2,000: 10 of 1,110 distinct documents (0.9%) are in the qrels.
    Below the depth they are not counted. A sentence names both counts when both are low."""
    docs = {"1": [f"d1-{i}" for i in range(10)] + [f"x{i}" for i in range(1100)]}
    diagnostics = scored(docs, Conventions(depth=2000), queries=1, judged=200)
    assert counts(diagnostics.judged) == (10, 10, 10, 1110, 10)
    assert diagnostics.warnings("run.txt") == (
        "run.txt: only 10 of the 1,110 distinct documents it ranks (0.9%) appear in the "
        "qrels at all — check that the run's and the qrels' document ids match: the run ranks "
        "x0, x1; the qrels judge d1-0, d1-1 (in a TREC run the docid is column 3).",
    )
    assert counts(scored(docs, queries=1, judged=10).judged) == (10, 10, 10, 100, 10)
    both = Judged(10, 2490, 41, 24900, 100)
    assert both.warning("r", "q.txt") == (
        "r: 41 of the 2,490 documents it ranks in the top 10 (1.6%) are judged in q.txt, and "
        "100 of the 24,900 distinct documents it ranks (0.4%) appear in q.txt at all; its "
        "scores mostly count unjudged documents as non-relevant — check that the run's and "
        "the qrels' document ids match (in a TREC run the docid is column 3)."
    )


def test_a_shallow_pool_asks_for_a_share_of_what_it_could_give():
    """Ten judgments a query against 1,110 ranked: a run sharing 0.9% of its documents
    shares most of what the pool holds, and its ids are not doubted."""
    docs = {"1": [f"d1-{i}" for i in range(10)] + [f"x{i}" for i in range(1100)]}
    diagnostics = scored(docs, Conventions(depth=2000), queries=1, judged=10)
    assert not diagnostics.judged.ids_differ and diagnostics.warnings("run.txt") == ()


def test_a_document_judged_only_for_another_query_is_in_the_qrels():
    """d2-0 is judged for query 2 only: ranked for query 1 it is unjudged there, yet the
    qrels know it."""
    diagnostics = scored({"1": ["d2-0", "x1", "x2"], "2": ["x3", "x4", "x5"]}, queries=2)
    assert counts(diagnostics.judged) == (10, 6, 0, 6, 1)


@pytest.mark.parametrize(
    ("judged", "shallow", "ids_differ"),
    [
        (int(JUDGED_BELOW * 100), False, False),
        (int(JUDGED_BELOW * 100) - 1, True, False),
        (int(MISMATCH_BELOW * 100), True, False),
        (int(MISMATCH_BELOW * 100) - 1, False, True),
    ],
)
def test_half_of_the_top_judged_is_enough_and_a_tenth_is_a_mismatch(judged, shallow, ids_differ):
    counted = Judged(10, 100, judged, 100, 100)
    assert (counted.shallow, counted.ids_differ) == (shallow, ids_differ)
    assert (counted.warning("r", "q") is not None) == (shallow or ids_differ)


def test_the_shared_threshold_is_a_share_of_the_distinct_documents():
    at = int(SHARED_BELOW * 10_000)
    assert Judged(10, 10, 10, 10_000, at).warning("r", "q") is None
    assert Judged(10, 10, 10, 10_000, at - 1).warning("r", "q") is not None


def test_a_depth_below_ten_counts_that_depth():
    docs = {f"{q}": [f"d{q}-0", *(f"x{q}-{i}" for i in range(9))] for q in range(1, 5)}
    diagnostics = scored(docs, Conventions(depth=5))
    assert counts(diagnostics.judged) == (5, 20, 4, 20, 4)
    assert (
        "Judged@5 is 20.0%: 4 of the 20 documents it ranks in the top 5 (20.0%)"
        in (diagnostics.warnings("run.txt")[0])
    )


def test_measures_at_zero_on_every_query_are_called_out_but_not_those_better_lower():
    """Every document judged, none relevant: nDCG, P@1 and recall are 0 everywhere;
    judged@10 is not, and the first relevant rank (better lower, undefined here) is no
    zero to call out."""
    docs = {f"{q}": [f"d{q}-1"] for q in range(1, 4)}
    diagnostics = scored(docs, queries=3)
    assert diagnostics.all_zero == ("ndcg_cut_10", "P_1", "recall_100")
    assert diagnostics.warnings("run.txt") == (
        "run.txt: ndcg_cut_10, P_1 and recall_100 are 0 on all 3 queries.",
    )
    assert diagnostics.warnings("run.txt", measures=["P_1"]) == (
        "run.txt: P_1 is 0 on all 3 queries.",
    )
    assert diagnostics.warnings("run.txt", measures=["judged_10"]) == ()


def test_a_query_absent_from_the_run_scores_zero_and_counts_among_all_queries():
    """trec_eval -c: the run misses query 2, which scores 0; one query with a value above
    0 is enough for no call-out."""
    assert scored({"1": ["d1-1"]}, queries=2).warnings("run.txt") == (
        "run.txt: ndcg_cut_10, P_1 and recall_100 are 0 on all 2 queries.",
    )
    assert scored({"1": ["d1-0"]}, queries=2).all_zero == ()


def test_a_well_judged_run_has_nothing_to_say():
    """Every document judged; the relevant one first on odd queries only."""
    docs = {f"{q}": [f"d{q}-{1 - q % 2}", f"d{q}-{q % 2}"] for q in range(1, 5)}
    diagnostics = scored(docs)
    assert counts(diagnostics.judged) == (10, 8, 8, 8, 8)
    assert diagnostics.all_zero == () and diagnostics.warnings("run.txt") == ()


@pytest.fixture(scope="module")
def robust04_shallow():
    """Robust04's BM25 and BM25+RM3 runs, and its qrels cut to a shallow pool: the
    judgments of the two runs' top 10 only (3,206 of 311,410)."""
    from leakeval_core.io import trec
    from tests.support import realdata

    runs = realdata("robust04", "runs")
    bm25 = pd.concat([trec.read_run(f) for f in sorted(runs.glob("bm25.top150.fold*.run"))])
    rm3 = trec.read_run(runs / "bm25-rm3.top1000.run")
    ranked = [r.sort_values(["qid", "score"], ascending=[True, False]) for r in (bm25, rm3)]
    pool = pd.concat([r.groupby("qid").head(10) for r in ranked])[["qid", "docid"]]
    judged = trec.read_qrels(realdata("robust04", "qrels.txt"))
    return ranked, judged.merge(pool.drop_duplicates(), on=["qid", "docid"])


def test_a_shallow_pool_of_real_runs_is_told_apart_from_wrong_ids(robust04_shallow):
    """The pooled runs judge nearly all their top 10: nothing to say. RM3's ranking below
    its top 10, a run that finds what the pool did not, has the qrels' ids and 15% of its
    top 10 judged: Judged@10 and what copes with it, no id advice. The same run with its
    docids rewritten (lowercase, but one judged document, so that it is no error) gets the
    id advice with the run's and the qrels' ids side by side."""
    (bm25, rm3), qrels = robust04_shallow
    prepared = PreparedQrels(qrels)

    def said(run, name):
        return score_run(run, prepared, ["ndcg_cut_10"], name=name).diagnostics.warnings(name)

    assert said(bm25, "bm25") == said(rm3, "rm3") == ()
    below = rm3[rm3.groupby("qid").cumcount() >= 10].reset_index(drop=True)
    [shallow] = said(below, "below")
    assert shallow.startswith("below: Judged@10 is 15.3%: 352 of the 2,300 documents")
    assert "Shallow judgments" in shallow and "document ids" not in shallow
    kept = below.docid.isin(qrels.docid).idxmax()
    rewritten = below.assign(docid=below.docid.str.lower())
    rewritten.loc[kept, "docid"] = below.docid[kept]
    mismatch = said(rewritten, "rewritten")[0]
    assert "Shallow" not in mismatch and "Judged@10" not in mismatch
    side = re.search(
        r"ids match: the run ranks (\S+), (\S+); the qrels judge (\S+), (\S+) \(", mismatch
    )
    assert set(side.groups()[:2]) <= set(rewritten.docid) - set(qrels.docid)
    assert set(side.groups()[2:]) <= set(qrels.docid)


def test_a_comparison_names_its_lowest_judged_system_under_ninety_percent():
    assert judged_note({"bm25": (95, 100), "colbert": (99, 100)}) is None
    assert judged_note({"bm25": (95, 100), "dense": (72, 100), "splade": (80, 100)}) == (
        "Judged@10 is under 90% for 2 of the 3 compared, lowest dense at 72.0%: unjudged "
        "documents count as non-relevant, so those scores are lower bounds and the pooled "
        "systems are favoured."
    )
    at = int(JUDGED_NOTE_BELOW * 100)
    assert judged_note({"a": (at, 100)}) is None
    assert judged_note({"a": (at - 1, 100)}).startswith("Judged@10 is under 90% for the one")


def test_a_run_with_no_query_to_score_has_no_share_to_warn_of():
    """Qrels judging nothing relevant leave no query scored: no top 10 is counted, which is
    no share at all (it once divided by zero, on every page of the dashboard)."""
    from leakeval_core.evaluation.scoring_warnings import Judged

    assert Judged(documents=40, documents_judged=30).warning("r.run", "q.txt") is None
    lost = Judged(documents=400, documents_judged=1, run_ids=("a",), qrels_ids=("B",))
    assert lost.warning("r.run", "q.txt").startswith("r.run: only 1 of the 400 distinct")
