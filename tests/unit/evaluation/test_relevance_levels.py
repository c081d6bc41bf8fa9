"""The relevance level is one rule, declared beside each measure (`measures.RELEVANCE`): the
threshold of the binary measures, never a change to a graded gain, as trec_eval applies
`-l`. Held at levels 1, 2 and 3 against plain pytrec_eval (its own dicts, its own tie rule)
on generated graded qrels and runs, on trec_eval's own suite files, and on real Robust04
runs with grades spread 0-3; the measures pytrec_eval lacks against hand computations of
trec_eval 10's code.
"""

from __future__ import annotations

import math
import subprocess
import sys
import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import ALL_TREC, parse_measure, parse_measures
from leakeval_core.io import trec
from tests.pytrec_isolated import Isolated, frames, leakeval_values, pytrec_reference
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
GAINED = {"ndcg", "ndcg_cut", "ndcg_rel"}


GAIN_MEASURES = [m for m in PYTREC if parse_measure(m).family.name.lower().lstrip("r") in GAINED]
"""The measures the nDCG gain applies to, compared under exponential gain."""

POLICIES = {
    "zero": Conventions.trec_eval,
    "exclude": lambda **given: Conventions(tie_order="docid_desc", missing="drop", **given),
}
"""trec_eval's conventions, and leakeval's own counting (queries with no positive grade
left out) with trec_eval's ties and its dropping of queries a run lacks."""


def assert_equal_values(answer: dict, measures, qrels: pd.DataFrame, where) -> None:
    """leakeval's values, query by query, equal pytrec_eval's on every query both score;
    leakeval scores exactly pytrec_eval's queries, less those with no positive grade under
    its own counting."""
    ours, theirs = answer["leakeval"], answer["pytrec_eval"]
    policy = where[1]
    creditable = set(qrels.qid[qrels.grade > 0])
    expected = {q for q in theirs if policy == "zero" or q in creditable}
    for measure in measures:
        parsed = parse_measure(measure)
        assert set(ours[parsed.name]) == expected, (measure, *where)
        for qid in expected:
            value = theirs[qid][parsed.trec_name]
            assert ours[parsed.name][qid] == pytest.approx(value, abs=1e-9), (measure, *where, qid)


def assert_equals_pytrec_eval(qrels, run, level, measures=PYTREC, policy="zero"):
    """In this process, for inputs known not to crash pytrec_eval: leakeval under `policy`
    (`POLICIES`) at `level` equals plain pytrec_eval at `level`."""
    conventions = POLICIES[policy](relevance_level=level, depth=10_000)
    answer = {
        "leakeval": leakeval_values(qrels, run, measures, conventions),
        "pytrec_eval": pytrec_reference(qrels, run, measures, level),
    }
    assert_equal_values(answer, measures, qrels, (level, policy))


@pytest.fixture(scope="module")
def isolated():
    worker = Isolated()
    yield worker
    worker.close()


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
def test_property_every_measure_equals_pytrec_eval_at_every_level(isolated, collection):
    """Every measure pytrec_eval shares, at levels 1-3, under trec_eval's counting and
    leakeval's; the gain measures under exponential gain too; and nDCG@1000, beyond every
    ranking and every query's gaining documents, is nDCG. Scored in a worker process, so an
    input that crashes or hangs pytrec_eval fails here, naming itself."""
    qrels, run = collection
    for level in LEVELS:
        for policy, conventions in POLICIES.items():
            for gain, measures in (("linear", PYTREC), ("exponential", GAIN_MEASURES)):
                given = conventions(relevance_level=level, depth=10_000, gain=gain)
                answer = isolated.score(qrels, run, [*measures, "ndcg_cut_1000"], given)
                assert_equal_values(answer, measures, qrels, (level, policy, gain))
                ours = answer["leakeval"]
                assert ours["ndcg_cut_1000"] == pytest.approx(ours["ndcg"], abs=1e-12)


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
    creditable = set(qrels.qid[qrels.grade > 0])
    for level in LEVELS:
        for policy, conventions in POLICIES.items():
            ours = leakeval_values(qrels, run, HAND, conventions(relevance_level=level))
            for measure in HAND:
                expected = by_hand(qrels, run, measure, level)
                if policy == "exclude":
                    expected = {q: v for q, v in expected.items() if q in creditable}
                assert set(ours[measure]) == set(expected), (measure, policy)
                for qid, value in expected.items():
                    got = ours[measure][qid]
                    assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(
                        value, abs=1e-12
                    ), (measure, level, policy, qid)


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


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("level", [2, 3])
@pytest.mark.parametrize("run_file", ROBUST04_RUNS)
def test_real_robust04_with_grades_spread_0_to_3_equals_pytrec_eval(
    robust04_graded, run_file, level, policy
):
    """The issue's check: nDCG@10 at levels 2 and 3 is pytrec_eval's at that
    relevance_level, and so is every other measure, on every query (some have nothing at
    grade 2), under trec_eval's counting and leakeval's."""
    run = trec.read_run(realdata("robust04", "runs", run_file))
    without = robust04_graded.groupby("qid").grade.max() < 2
    assert without[without].index.isin(run.qid).any()
    assert_equals_pytrec_eval(robust04_graded, run, level, policy=policy)


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
    """The issue's reproduction and its neighbours: at level 2 a query with only grade-1
    documents scores its nDCG from them, as trec_eval does, and 0 on the binary measures,
    under both policies; only a query with no positive grade is left out by default."""
    qrels, run = frames(
        [("q1", "a", 2), ("q1", "b", 1), ("q2", "c", 1), ("q2", "d", 0), ("q3", "e", 0)],
        [("q1", "b", 2.0), ("q1", "a", 1.0), ("q2", "d", 2.0), ("q2", "c", 1.0)],
    )
    measures = "ndcg_cut_10,ndcg,P_10,map,recip_rank,first_rel_rank"
    for policy in ("exclude", "zero"):
        conventions = Conventions(relevance_level=2, no_relevant=policy)
        ours = leakeval_values(qrels, run, measures, conventions)
        assert ours["ndcg_cut_10"]["q2"] == pytest.approx(1 / math.log2(3))
        assert ours["ndcg_cut_10"] == ours["ndcg"]
        assert ours["P_10"]["q2"] == ours["map"]["q2"] == ours["recip_rank"]["q2"] == 0.0
        assert math.isnan(ours["first_rel_rank"]["q2"])  # left out of MFR and counted
        assert set(ours["ndcg"]) == ({"q1", "q2"} if policy == "exclude" else {"q1", "q2", "q3"})
    reproduced = frames([("q1", "d1", 1)], [("q1", "d1", 1.0)])
    for policy in ("exclude", "zero"):
        conventions = Conventions(relevance_level=2, no_relevant=policy)
        assert leakeval_values(*reproduced, "ndcg_cut_10", conventions) == {
            "ndcg_cut_10": {"q1": 1.0}
        }


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


CRASHING = """
import pytrec_eval
judged = {"neg": {"a": -1}, "pos": {"b": 1}}
evaluator = pytrec_eval.RelevanceEvaluator(judged, {"bpref", "Rprec"}, relevance_level=1)
evaluator.evaluate({"neg": {"a": 2.0}, "pos": {"b": 1.0}})
"""


def test_pytrec_eval_crashes_on_a_query_judged_only_negative_where_leakeval_does_not(isolated):
    """The defect the judged non-relevant sentinel guards: plain pytrec_eval 0.5 kills its
    process on bpref beside Rprec for a query judged only with negative grades. If this
    starts to pass, pytrec_eval was fixed and the sentinel can go."""
    done = subprocess.run([sys.executable, "-c", CRASHING], capture_output=True, timeout=120)
    assert done.returncode != 0
    qrels, run = frames([("neg", "a", -1), ("pos", "b", 1)], [("neg", "a", 2.0), ("pos", "b", 1.0)])
    answer = isolated.score(qrels, run, ["bpref", "Rprec", "gm_bpref"], Conventions.trec_eval())
    assert answer["leakeval"] == {
        "bpref": {"neg": 0.0, "pos": 1.0},
        "Rprec": {"neg": 0.0, "pos": 1.0},
        "gm_bpref": {"neg": pytest.approx(1e-5), "pos": 1.0},  # trec_eval's floor
    }
