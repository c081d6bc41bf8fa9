"""The relevance level is one rule, declared beside each measure (`measures.RELEVANCE`): the
threshold of the binary measures, never a change to a graded gain, as trec_eval applies
`-l`. Held at levels 1, 2 and 3 against plain pytrec_eval (its own dicts, its own tie rule)
on generated graded qrels and runs, on trec_eval's own suite files, and on real Robust04
runs with grades spread 0-3; the measures pytrec_eval lacks against hand computations of
trec_eval 10's code.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import ALL_TREC, parse_measure, parse_measures
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_run
from leakeval_core.io import trec
from tests.support import realdata, shared

pytrec_eval = pytest.importorskip("pytrec_eval")

LEVELS = (1, 2, 3)
TREC_10_ONLY = {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"}
"""trec_eval 10's measures, which pytrec_eval (trec_eval 9) lacks: computed by hand below."""
INTERPOLATED = {m for m in ALL_TREC if m.startswith("iprec_at_recall") or m == "11pt_avg"}
"""trec_eval 10's interpolation, which pytrec_eval's trec_eval 9 does differently at some
recall levels: held to trec_eval 10's printed values in test_trec_eval_suite."""
PER_QUERY_UNLIKE = {"gm_map", "gm_bpref"}
"""pytrec_eval returns their logarithm per query."""
PYTREC = [m for m in ALL_TREC if m not in TREC_10_ONLY | INTERPOLATED | PER_QUERY_UNLIKE]
"""Every trec_eval 10 measure pytrec_eval computes the same way."""


def frames(qrels_rows, run_rows) -> tuple[pd.DataFrame, pd.DataFrame]:
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docid", "grade"]).astype(
        {"qid": "str", "docid": "str", "grade": "int64"}
    )
    run = pd.DataFrame(run_rows, columns=["qid", "docid", "score"]).astype(
        {"qid": "str", "docid": "str", "score": "float64"}
    )
    return qrels, run


def pytrec_reference(qrels: pd.DataFrame, run: pd.DataFrame, measures, level: int):
    """Plain pytrec_eval at `level`: its own dicts from the frames, its own tie rule.

    A query whose every judgment is negative, which trec_eval refuses and pytrec_eval
    crashes on, is held to what it means: nothing judged and nothing relevant, the same
    ranking scored against one judged non-relevant document it never ranks."""
    judged: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels.qid, qrels.docid, qrels.grade, strict=True):
        judged.setdefault(q, {})[d] = int(g)
    for q, docs in judged.items():
        if max(docs.values()) < 0:
            judged[q] = {"never ranked": 0}
    ranking: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run.qid, run.docid, run.score, strict=True):
        ranking.setdefault(q, {})[d] = float(s)
    names = {parse_measure(m).trec_name for m in measures}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, names, relevance_level=level)
    return evaluator.evaluate(ranking)


def leakeval_values(qrels, run, measures, conventions) -> dict[str, dict[str, float]]:
    scored = score_run(run, PreparedQrels(qrels, conventions), measures)
    return {
        name: dict(zip(scored.qids, values, strict=True)) for name, values in scored.values.items()
    }


def assert_equals_pytrec_eval(qrels, run, level, measures=PYTREC, tol=1e-9):
    """leakeval under trec_eval's conventions (which pytrec_eval shares) at `level`, query
    by query, equals plain pytrec_eval at `level`, on every query both score."""
    conventions = Conventions.trec_eval(relevance_level=level, depth=10_000)
    ours = leakeval_values(qrels, run, measures, conventions)
    theirs = pytrec_reference(qrels, run, measures, level)
    for measure in measures:
        name = parse_measure(measure).name
        assert set(ours[name]) == set(theirs), (measure, level)
        for qid, values in theirs.items():
            expected = values[parse_measure(measure).trec_name]
            assert ours[name][qid] == pytest.approx(expected, abs=tol), (measure, level, qid)


GRADES = st.sampled_from([-1, 0, 0, 0, 1, 1, 2, 3])


@st.composite
def graded_collections(draw):
    """Graded qrels (-1 to 3; queries with nothing at grade 2 or 3, or nothing relevant at
    all) and a run with tied scores, short rankings, unjudged documents and a query the
    qrels lack, or queries judged only with negative grades; one judged document the run
    ranks keeps the run on this collection."""
    queries = draw(st.integers(1, 6))
    qrels_rows, run_rows = [("q0", "d99", draw(GRADES))], [("q0", "d99", 0.5)]
    for q in range(queries):
        docs = draw(st.lists(st.integers(0, 25), min_size=1, max_size=14, unique=True))
        qrels_rows += [(f"q{q}", f"d{d:02d}", draw(GRADES)) for d in docs]
        ranked = draw(st.lists(st.integers(0, 30), max_size=16, unique=True))
        run_rows += [(f"q{q}", f"d{d:02d}", float(draw(st.integers(0, 4)))) for d in ranked]
    run_rows.append(("unjudged-query", "d00", 1.0))
    return frames(qrels_rows, run_rows)


@given(graded_collections())
def test_property_every_measure_equals_pytrec_eval_at_every_level(collection):
    qrels, run = collection
    for level in LEVELS:
        assert_equals_pytrec_eval(qrels, run, level)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    ("qrels", "run"),
    [
        ("qrels.test", "results.test"),
        ("qrels.rel_level", "results.test"),
        ("qrels.test", "results.trunc"),
    ],
)
def test_trec_eval_suite_files_equal_pytrec_eval_at_every_level(qrels, run, level):
    folder = shared("peer", "trec_eval-test")
    judged, ranking = trec.read_qrels(folder / qrels), trec.read_run(folder / run)
    assert_equals_pytrec_eval(judged, ranking, level)


def ranked_by_trec_eval(run: pd.DataFrame) -> dict[str, list[str]]:
    """Each query's docids in trec_eval's order: score descending, docid descending."""
    ordered = run.sort_values(["qid", "score", "docid"], ascending=[True, False, False])
    return {q: list(group.docid) for q, group in ordered.groupby("qid", sort=False)}


def by_hand(qrels: pd.DataFrame, run: pd.DataFrame, measure: str, level: int) -> dict:
    """trec_eval 10's m_unjudged.c, m_rbp.c and m_rbp_resid.c, one document at a time, for
    each query both judge; and first_rel_rank and Judged@10 as leakeval defines them."""
    grades = {(q, d): g for q, d, g in zip(qrels.qid, qrels.docid, qrels.grade, strict=True)}
    out = {}
    for qid, docs in ranked_by_trec_eval(run).items():
        own = [g for (q, _), g in grades.items() if q == qid]
        if not own:
            continue
        got = [grades.get((qid, d)) for d in docs]
        unjudged = [g is None or g < 0 for g in got]
        if measure.startswith("unj_"):
            k = int(measure.split("_")[1])
            out[qid] = sum(unjudged[:k]) / k
        elif measure == "rbp":
            scale = max(max(own), 1)
            out[qid] = sum(0.1 * 0.9**i * max(g or 0, 0) / scale for i, g in enumerate(got))
        elif measure == "rbp_resid":
            weights = sum(0.1 * 0.9**i for i, u in enumerate(unjudged) if u)
            out[qid] = weights + 0.9 ** len(got) if any(unjudged) else 0.0
        elif measure == "first_rel_rank":
            ranks = [i + 1 for i, g in enumerate(got) if g is not None and g >= level]
            out[qid] = ranks[0] if ranks else math.nan
        elif measure == "judged_10":
            top = got[:10]
            out[qid] = sum(g is not None for g in top) / len(top)
    return out


HAND = ["unj_5", "unj_10", "unj_20", "rbp", "rbp_resid", "first_rel_rank", "judged_10"]


@given(graded_collections())
def test_property_measures_pytrec_eval_lacks_equal_trec_eval_10_by_hand(collection):
    qrels, run = collection
    for level in LEVELS:
        conventions = Conventions.trec_eval(relevance_level=level, depth=10_000)
        ours = leakeval_values(qrels, run, HAND, conventions)
        for measure in HAND:
            expected = by_hand(qrels, run, measure, level)
            assert set(ours[measure]) == set(expected), measure
            for qid, value in expected.items():
                got = ours[measure][qid]
                assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(
                    value, abs=1e-12
                ), (measure, level, qid)


def declared_collection() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Forty queries whose grades run 0 to 3 and whose rankings reach nearly every judged
    document, so that every binary measure, high recall levels included, tells level 1
    from level 2 somewhere."""
    rng = np.random.default_rng(7)
    qrels_rows, run_rows = [], []
    for q in range(40):
        qrels_rows += [
            (f"q{q:02d}", f"d{d:03d}", int(rng.choice([0, 0, 1, 1, 2, 3]))) for d in range(60)
        ]
        ranked = rng.choice(64, 60, replace=False)
        run_rows += [(f"q{q:02d}", f"d{d:03d}", float(60 - i)) for i, d in enumerate(ranked)]
    return frames(qrels_rows, run_rows)


def test_the_declared_rule_is_the_one_trec_eval_applies():
    """Each measure's declared relevance (`MeasureFamily.relevance`), against what its
    values do: a binary measure changes between levels 1 and 2 on some query, a graded or
    unread one on none (of the queries with a document at grade 2, which both score)."""
    qrels, run = declared_collection()
    measures = [*ALL_TREC, "judged_10", "first_rel_rank"]
    at = {
        level: leakeval_values(qrels, run, measures, Conventions.trec_eval(relevance_level=level))
        for level in (1, 2)
    }
    for measure in parse_measures(measures):
        one, two = at[1][measure.name], at[2][measure.name]
        changed = any(
            not (math.isnan(one[q]) and math.isnan(two[q])) and one[q] != pytest.approx(two[q])
            for q in two
        )
        assert changed == (measure.family.relevance == "binary"), measure.name


def spread_grades(qrels: pd.DataFrame) -> pd.DataFrame:
    """Real qrels with their grades spread 0-3, the same way on every machine: a fifth of
    the queries keep only grades 0 and 1 (nothing relevant at level 2); on the others a
    grade 1 becomes 2 for a third of the documents, a grade 2 becomes 3 for half of them."""
    draw = np.array([zlib.crc32(d.encode()) % 6 for d in qrels.docid])
    capped = np.array([zlib.crc32(q.encode()) % 5 == 0 for q in qrels.qid])
    grade = qrels.grade.to_numpy()
    spread = np.where((grade == 1) & (draw < 2), 2, grade)
    spread = np.where((grade == 2) & (draw < 3), 3, spread)
    return qrels.assign(grade=np.where(capped, np.minimum(grade, 1), spread))


ROBUST04_RUNS = ["bm25-rm3.top1000.run", "bm25.top150.fold1.run", "bm25.top150.fold4.run"]


@pytest.fixture(scope="module")
def robust04_graded() -> pd.DataFrame:
    graded = spread_grades(trec.read_qrels(realdata("robust04", "qrels.txt")))
    assert set(graded.grade) == {0, 1, 2, 3}
    return graded


@pytest.mark.parametrize("run_file", ROBUST04_RUNS)
def test_real_robust04_with_grades_spread_0_to_3_equals_pytrec_eval_at_level_2(
    robust04_graded, run_file
):
    """The issue's check: nDCG@10 at level 2 is pytrec_eval's at relevance_level=2, and so
    is every other measure, on every query (some have nothing at grade 2)."""
    run = trec.read_run(realdata("robust04", "runs", run_file))
    without = robust04_graded.groupby("qid").grade.max() < 2
    assert without[without].index.isin(run.qid).any()
    assert_equals_pytrec_eval(robust04_graded, run, 2)


@pytest.mark.parametrize("depth", [100, 1000])
@pytest.mark.parametrize("level", LEVELS)
def test_ndcg_cut_at_or_beyond_the_depth_equals_ndcg(robust04_graded, depth, level):
    """With the run cut at the depth, nDCG@K for K at or beyond it and beyond every query's
    count of gaining documents is nDCG of the whole ranking, at any relevance level."""
    run = trec.read_run(realdata("robust04", "runs", "bm25-rm3.top1000.run"))
    assert robust04_graded[robust04_graded.grade > 0].groupby("qid").size().max() < 1000
    conventions = Conventions(depth=depth, relevance_level=level, no_relevant="zero")
    ours = leakeval_values(robust04_graded, run, "ndcg_cut_1000,ndcg", conventions)
    np.testing.assert_allclose(
        list(ours["ndcg_cut_1000"].values()), list(ours["ndcg"].values()), atol=1e-12
    )


def test_a_query_without_a_document_at_the_level_keeps_its_graded_gain():
    """Under trec_eval's counting a query with only grade-1 documents at level 2 scores its
    nDCG from them, as trec_eval does, and 0 on the binary measures."""
    qrels, run = frames(
        [("q1", "a", 2), ("q1", "b", 1), ("q2", "c", 1), ("q2", "d", 0)],
        [("q1", "b", 2.0), ("q1", "a", 1.0), ("q2", "d", 2.0), ("q2", "c", 1.0)],
    )
    level_two = Conventions.trec_eval(relevance_level=2)
    ours = leakeval_values(qrels, run, "ndcg_cut_10,ndcg,P_10,map", level_two)
    assert ours["ndcg_cut_10"]["q2"] == pytest.approx(1 / math.log2(3))
    assert ours["ndcg_cut_10"] == ours["ndcg"]
    assert ours["P_10"]["q2"] == ours["map"]["q2"] == 0.0
    excluded = leakeval_values(qrels, run, "ndcg_cut_10", Conventions(relevance_level=2))
    assert list(excluded["ndcg_cut_10"]) == ["q1"]  # leakeval's own counting excludes it


def test_a_graded_measure_that_ignores_low_grades_is_its_own_measure():
    """nDCG(gains={1: 0})@10 (ir_measures' name) drops grade 1 from the gains at any level;
    nDCG@10 keeps it, and a relevance level never does what the gains do."""
    qrels, run = frames(
        [("q", "a", 1), ("q", "b", 2), ("q", "c", 3)],
        [("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)],
    )
    names = "nDCG@10,nDCG(gains={1: 0})@10"
    plain, dropped = (parse_measure(n).name for n in names.split(","))
    for level in LEVELS:
        ours = leakeval_values(qrels, run, names, Conventions(relevance_level=level))
        ideal = 3 + 2 / math.log2(3)
        assert ours[plain]["q"] == pytest.approx((1 + 2 / math.log2(3) + 3 / 2) / (ideal + 1 / 2))
        assert ours[dropped]["q"] == pytest.approx((2 / math.log2(3) + 3 / 2) / ideal)


def test_a_query_judged_only_negative_scores_as_nothing_judged():
    """trec_eval refuses such a query ("Can't calculate measure") and pytrec_eval crashes
    the process on it; leakeval scores it as trec_eval counts negative grades elsewhere:
    nothing relevant, and nothing judged for trec_eval's measures."""
    qrels, run = frames(
        [("neg", "a", -1), ("neg", "b", -2), ("pos", "c", 1)],
        [("neg", "a", 2.0), ("neg", "b", 1.0), ("pos", "c", 1.0)],
    )
    measures = "bpref,num_rel,num_ret,P_10,unj_5,judged_10,recip_rank,Rprec,infAP"
    ours = leakeval_values(qrels, run, measures, Conventions.trec_eval())
    assert {name: values["neg"] for name, values in ours.items()} == {
        "bpref": 0.0,
        "num_rel": 0.0,
        "num_ret": 2.0,
        "P_10": 0.0,
        "unj_5": 2 / 5,
        "judged_10": 1.0,  # ir_measures' Judged counts a judgment of any grade
        "recip_rank": 0.0,
        "Rprec": 0.0,
        "infAP": 0.0,
    }
