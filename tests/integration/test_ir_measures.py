"""ir_measures' names compute what ir_measures computes: on trec_eval's own test suite, each
name's per-query values from leakeval equal ir_measures' own (a test-only dependency), and
`leakeval score` gives the same numbers for an ir_measures name as for its trec_eval name.

ir_measures hands most measures to pytrec_eval, which breaks ties by docid descending, so
leakeval scores under trec_eval's conventions; its Judged provider breaks them by docid
ascending, leakeval's default. IPrec is left out: leakeval's iprec_at_recall is trec_eval
10's (checked against its printed values in test_trec_eval_suite), pytrec_eval's trec_eval
9's, and the two differ (302 at 0.30). ir_measures has nDCG(dcg='exp-log2') computed by
gdeval, which prints five decimals. ir_measures scores a query the run lacks 0 on every
measure; leakeval does so as trec_eval -c does, which still counts it (NumQ 1) and its
relevant documents (NumRel): those two are compared on the queries the run has.
"""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from leakeval_core.cli import main
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import parse_measure
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_run
from leakeval_core.io import trec
from tests.support import shared

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is a test dependency")

NAMES = [
    "nDCG@10",
    "P@1",
    "R@100",
    "RR",
    "AP",
    "Judged@10",
    "nDCG(dcg='exp-log2')@10",
    "nDCG(gains={1: 0})@10",
    "nDCG(gains={0: 1, 1: 0, 2: 10})",
    "P(rel=2)@10",
    "RR(rel=2)",
    "AP(rel=2)",
    "R(rel=2)@100",
    "nDCG",
    "AP@100",
    "Rprec",
    "Bpref",
    "Success@10",
    "infAP",
    "NumQ",
    "NumRet",
    "NumRelRet",
    "NumRet(rel=2)",
    "NumRel",
    "SetP",
    "SetP(relative=True)",
    "SetR",
    "SetF",
    "SetAP",
    "NumRelRet(rel=2)",  # each binary measure takes a level of its own, as in ir_measures
    "Bpref(rel=2)",
    "Rprec(rel=2)",
    "infAP(rel=2)",
    "Success(rel=2)@10",
    "SetP(rel=2)",
    "SetF(rel=2)",
]
FILES = [
    ("qrels.test", "results.test"),
    ("qrels.rel_level", "results.test"),  # grades -1 to 4
    ("qrels.test", "results.trunc"),  # a query missing, short rankings
]
COUNTED_WHEN_MISSING = {"NumQ", "NumRel"}
GDEVAL_DIGITS = 0.5e-5 + 1e-12


def suite(name: str):
    return shared("peer", "trec_eval-test", name)


@pytest.mark.parametrize(("qrels", "run"), FILES)
def test_every_name_computes_what_ir_measures_computes(qrels, run):
    judgments, ranking = trec.read_qrels(suite(qrels)), trec.read_run(suite(run))
    theirs_qrels = pd.DataFrame(
        {
            "query_id": judgments.qid.astype(str),
            "doc_id": judgments.docid.astype(str),
            "relevance": judgments.grade.astype(int),
        }
    )
    theirs_run = pd.DataFrame(
        {
            "query_id": ranking.qid.astype(str),
            "doc_id": ranking.docid.astype(str),
            "score": ranking.score.astype(float),
        }
    )
    compared = 0
    for name in NAMES:
        measure = parse_measure(name)
        theirs = {
            m.query_id: m.value
            for m in ir_measures.iter_calc(
                [ir_measures.parse_measure(name)], theirs_qrels, theirs_run
            )
        }
        ties = "docid_asc" if name.startswith("Judged") else "docid_desc"
        conventions = Conventions.trec_eval(tie_order=ties, missing="zero")
        ours = score_run(ranking, PreparedQrels(judgments, conventions), [measure])
        values = dict(zip(ours.qids, ours.values[measure.name], strict=True))
        tolerance = GDEVAL_DIGITS if "exp-log2" in name else 1e-12
        assert set(values) >= set(theirs), name
        for qid, value in theirs.items():
            if name in COUNTED_WHEN_MISSING and qid not in set(ranking.qid):
                continue
            assert values[qid] == pytest.approx(value, abs=tolerance), (name, qid)
            compared += 1
    assert compared >= len(NAMES) * 2


def test_score_gives_ir_measures_names_the_trec_eval_names_numbers(tmp_path):
    """The issue's check, to the last digit, per query and in the means."""

    def scored(measures: str, names: str) -> list[list[str]]:
        out = tmp_path / f"{names}.csv"
        args = ["score", "--qrels", str(suite("qrels.test")), "--run", str(suite("results.test"))]
        assert main([*args, "--measures", measures, "--per-query", "--out", str(out)]) == 0
        rows = list(csv.reader(out.open()))
        return rows[1:]

    ir = scored("nDCG@10,P@1,R@100,RR,AP", "ir_measures")
    trec_eval = scored("ndcg_cut_10,P_1,recall_100,recip_rank,map", "trec_eval")
    assert ir == trec_eval and len(ir) == 5 * 4  # the all row and three queries each


def test_names_set_how_outputs_name_the_measures(tmp_path, capsys):
    args = ["score", "--qrels", str(suite("qrels.test")), "--run", str(suite("results.test"))]
    assert main([*args, "--measures", "ndcg_cut_10,P(rel=2)@10,first_rel_rank"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == ["run", "ndcg_cut_10", "P_10(rel=2)", "first_rel_rank"]
    assert main([*args, "--measures", "ndcg_cut_10,P_10(rel=2),MRR", "--names", "ir_measures"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == ["run", "nDCG@10", "P(rel=2)@10", "RR"]


def test_ir_measures_objects_are_measures_in_the_api():
    from leakeval_core import api

    qrels, run = suite("qrels.test"), suite("results.test")
    by_object = api.score(qrels, {"r": run}, [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 10])
    by_name = api.score(qrels, {"r": run}, "ndcg_cut_10,P_10(rel=2)")
    assert by_object.runs["r"].means() == by_name.runs["r"].means()
