import math

import numpy as np
import pandas as pd
import pytest

from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import parse_measure
from leakeval_core.evaluation.pytrec import score_with_pytrec_eval
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.run_order import rank_run
from leakeval_core.evaluation.scoring import score_run
from leakeval_core.io import trec
from tests.support import fresh_python, realdata

ALL_NATIVE = "ndcg_cut_10,ndcg_cut_5,P_1,P_10,recall_100,recall_5,recip_rank,map"


def run_frame(rows):
    return pd.DataFrame(rows, columns=["qid", "docid", "score"]).astype(
        {"qid": "str", "docid": "str", "score": "float64"}
    )


def qrels_frame(rows):
    return pd.DataFrame(rows, columns=["qid", "docid", "grade"]).astype(
        {"qid": "str", "docid": "str", "grade": "int64"}
    )


def values(result, measure=None):
    frame = result.table
    if measure:
        frame = frame[frame.measure == measure]
    return dict(zip(frame.qid, frame.value, strict=True))


def ranked_binary(relevant_ranks, n_docs=10):
    qrels = qrels_frame([("q", f"d{i}", int(i in relevant_ranks)) for i in range(1, n_docs + 1)])
    run = run_frame([("q", f"d{i}", 100.0 - i) for i in range(1, n_docs + 1)])
    return run, PreparedQrels(qrels)


@pytest.mark.parametrize(("ranks", "expected"), [((1, 4, 8), 0.8194), ((1, 2, 5), 0.9469)])
def test_design_check_values(ranks, expected):
    run, qrels = ranked_binary(ranks)
    assert values(score_run(run, qrels, "ndcg_cut_10"))["q"] == pytest.approx(expected, abs=5e-5)


def test_graded_check_values_linear_and_exponential():
    qrels = qrels_frame([("q", "a", 3), ("q", "b", 2), ("q", "c", 1), ("q", "d", 0)])
    run = run_frame([("q", "c", 4), ("q", "b", 3), ("q", "a", 2), ("q", "d", 1)])
    linear = values(score_run(run, PreparedQrels(qrels), "ndcg_cut_10"))["q"]
    exp = values(
        score_run(run, PreparedQrels(qrels, Conventions(gain="exponential")), "ndcg_cut_10")
    )["q"]
    assert linear == pytest.approx(0.789998, abs=1e-6)
    assert exp == pytest.approx(0.6806, abs=5e-5)
    # by hand: DCG = 1 + 3/log2(3) + 7/2, IDCG = 7 + 3/log2(3) + 1/2
    assert exp == pytest.approx((1 + 3 / math.log2(3) + 3.5) / (7 + 3 / math.log2(3) + 0.5))


def test_binary_measures_by_hand():
    run, qrels = ranked_binary((2, 4, 8))
    got = score_run(run, qrels, "P_1,P_10,recip_rank,first_rel_rank,map,recall_5,judged_10")
    v = {m: values(got, m)["q"] for m in got.table.measure}
    assert v == pytest.approx(
        {
            "P_1": 0.0,
            "P_10": 0.3,
            "recip_rank": 0.5,
            "first_rel_rank": 2.0,
            "map": (1 / 2 + 2 / 4 + 3 / 8) / 3,
            "recall_5": 2 / 3,
            "judged_10": 1.0,
        }
    )


def test_ties_break_by_docid_ascending_and_are_counted():
    qrels = qrels_frame([("q", "a", 0), ("q", "b", 1)])
    run = run_frame(
        [("q", "b", 1.0), ("q", "a", 1.0), ("q", "c", 0.5), ("q", "d", 0.5), ("q", "e", 0.5)]
    )
    asc = score_run(run, PreparedQrels(qrels), "P_1,first_rel_rank")
    assert values(asc, "P_1")["q"] == 0.0  # "a" wins the tie
    assert values(asc, "first_rel_rank")["q"] == 2.0
    assert asc.diagnostics.tied_pairs == 1 + 3
    desc = score_run(run, PreparedQrels(qrels, Conventions(tie_order="docid_desc")), "P_1")
    assert values(desc)["q"] == 1.0  # trec_eval's order: "b" wins


def test_the_tie_note_says_the_order_and_how_many_queries_trec_evals_would_change():
    """q1's tie joins a relevant and a non-relevant document, so the order decides its
    values; q2's joins two unjudged ones, whose order changes nothing."""
    qrels = qrels_frame([("q1", "a", 0), ("q1", "b", 1), ("q2", "x", 1)])
    run = run_frame(
        [("q1", "a", 1.0), ("q1", "b", 1.0), ("q2", "x", 2.0), ("q2", "y", 1.0), ("q2", "z", 1.0)]
    )
    ours = score_run(run, PreparedQrels(qrels), "P_1,ndcg_cut_10")
    assert ours.diagnostics.tied_pairs == 2 and ours.diagnostics.tie_changes == 1
    assert ours.diagnostics.tie_note("docid_asc") == (
        "2 tied document pairs, broken by docid ascending; trec_eval's order (docid "
        "descending) changes the values of 1 query"
    )
    theirs = score_run(run, PreparedQrels(qrels, Conventions(tie_order="docid_desc")), "P_1")
    assert theirs.diagnostics.tie_changes == 0
    assert theirs.diagnostics.tie_note("docid_desc") == (
        "2 tied document pairs, broken by docid descending (trec_eval's)"
    )
    unmoved = score_run(run[run.qid == "q2"], PreparedQrels(qrels), "P_1,ndcg_cut_10")
    assert unmoved.diagnostics.tie_note("docid_asc").endswith("changes no value")


def test_rank_column_is_ignored_and_input_not_mutated():
    run = run_frame([("q", "x", 1.0), ("q", "y", 3.0)])
    copy = run.copy()
    ranked = rank_run(run)
    assert ranked.docid.tolist() == ["y", "x"] and ranked["rank"].tolist() == [1, 2]
    pd.testing.assert_frame_equal(run, copy)


def test_depth_cuts_the_run():
    run, _ = ranked_binary((), n_docs=5)
    qrels = PreparedQrels(qrels_frame([("q", "d5", 1)]), Conventions(depth=4))
    result = score_run(run, qrels, "recall_100,first_rel_rank,recip_rank")
    assert values(result, "recall_100")["q"] == 0.0
    assert math.isnan(values(result, "first_rel_rank")["q"])
    assert values(result, "recip_rank")["q"] == 0.0
    assert result.diagnostics.first_rel_undefined == 1


def test_missing_queries_score_zero_or_drop():
    qrels_rows = [("q1", "a", 1), ("q2", "a", 1)]
    run = run_frame([("q1", "a", 1.0)])
    zero = score_run(run, PreparedQrels(qrels_frame(qrels_rows)), "ndcg_cut_10,first_rel_rank")
    assert values(zero, "ndcg_cut_10") == {"q1": 1.0, "q2": 0.0}
    assert math.isnan(values(zero, "first_rel_rank")["q2"])
    assert zero.diagnostics.missing_from_run == ("q2",)
    drop = score_run(
        run, PreparedQrels(qrels_frame(qrels_rows), Conventions(missing="drop")), "ndcg_cut_10"
    )
    assert values(drop) == {"q1": 1.0}


def test_queries_without_a_positive_grade_are_excluded_and_counted_at_every_level():
    """Only a query with nothing to credit is left out: at level 2, q1 (grade 1 only) is
    scored, 0 on a binary measure."""
    qrels = qrels_frame([("q1", "a", 1), ("q2", "a", 0), ("q3", "a", 1), ("q3", "b", 2)])
    run = run_frame([("q1", "a", 1.0), ("q2", "a", 1.0), ("q3", "a", 2.0), ("q3", "b", 1.0)])
    level1 = score_run(run, PreparedQrels(qrels), "P_1")
    assert values(level1) == {"q1": 1.0, "q3": 1.0}
    assert level1.diagnostics.no_relevant == 1
    level2 = score_run(run, PreparedQrels(qrels, Conventions(relevance_level=2)), "P_1")
    assert values(level2) == {"q1": 0.0, "q3": 0.0}
    assert level2.diagnostics.no_relevant == 1


def test_queries_without_relevant_scored_zero_quietly_under_trec_eval_counting():
    """no_relevant="zero" (trec_eval's counting) divides by a zero num_rel and ideal DCG;
    the values are trec_eval's 0 and numpy says nothing on stderr."""
    import warnings

    qrels = qrels_frame([("q1", "a", 1), ("q2", "a", 0)])
    run = run_frame([("q1", "a", 1.0), ("q2", "a", 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = score_run(
            run, PreparedQrels(qrels, Conventions(no_relevant="zero")), "map,ndcg_cut_10,recall_5"
        )
    assert values(result, "map") == {"q1": 1.0, "q2": 0.0}
    assert values(result, "ndcg_cut_10") == {"q1": 1.0, "q2": 0.0}
    assert values(result, "recall_5") == {"q1": 1.0, "q2": 0.0}


def test_negative_grades_gain_nothing_are_judged_and_count_as_unjudged_in_trec_eval_unj():
    """A negative grade was assessed: ir_measures' Judged@k counts it, over the documents
    ranked when fewer than k; trec_eval's unj treats it as unjudged, over k, and the ranks
    the run leaves empty as judged (trec_eval 10 prints 0.2 here: a and c of 10)."""
    qrels = qrels_frame([("q", "a", -1), ("q", "b", 1)])
    run = run_frame([("q", "a", 2.0), ("q", "b", 1.0), ("q", "c", 0.5)])
    result = score_run(run, PreparedQrels(qrels), "ndcg_cut_10,judged_10,judged_2,unj_10")
    assert values(result, "ndcg_cut_10")["q"] == pytest.approx(1 / math.log2(3))
    assert values(result, "judged_10")["q"] == pytest.approx(2 / 3)
    assert values(result, "judged_2")["q"] == pytest.approx(1.0)
    assert values(result, "unj_10")["q"] == pytest.approx(0.2)


def test_ndcg_cut_deeper_than_the_depth_takes_the_ideal_at_the_cutoff():
    """Depth 2 keeps two documents; ndcg_cut_5's ideal still has all three relevant ones
    (trec_eval -M2 gives the same), so it is below ndcg_cut_2's."""
    qrels = qrels_frame([("q", d, 1) for d in "abc"])
    run = run_frame([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)])
    result = score_run(run, PreparedQrels(qrels, Conventions(depth=2)), "ndcg_cut_2,ndcg_cut_5")
    dcg = 1 + 1 / math.log2(3)
    assert values(result, "ndcg_cut_2")["q"] == pytest.approx(1.0)
    assert values(result, "ndcg_cut_5")["q"] == pytest.approx(dcg / (dcg + 0.5))


def test_all_row_as_trec_eval_prints_it():
    """Sums for counts, geometric means for gm_*, 0 when no query is defined."""
    from leakeval_core.evaluation.scoring import aggregate

    assert aggregate("num_ret", np.array([500.0, 300.0])) == 800.0
    assert aggregate("gm_map", np.array([0.5, 0.0])) == pytest.approx(math.sqrt(0.5 * 1e-5))
    assert aggregate("map", np.array([])) == 0.0
    assert math.isnan(aggregate("first_rel_rank", np.array([np.nan])))


@pytest.mark.parametrize("name", ["runid", "relstring", "relstring_20"])
def test_text_measures_are_refused_by_name(name):
    from leakeval_core.errors import LeakevalError
    from leakeval_core.evaluation.measures import parse_measure

    with pytest.raises(LeakevalError, match=f"measure '{name}' is text"):
        parse_measure(name)


def test_run_for_another_collection_is_an_error():
    qrels = PreparedQrels(qrels_frame([("q1", "a", 1)]))
    with pytest.raises(LeakevalError, match="another collection"):
        score_run(run_frame([("zz", "a", 1.0)]), qrels, name="x.run")
    with pytest.raises(LeakevalError, match="none of its 1 distinct documents is judged"):
        score_run(run_frame([("q1", "other", 1.0)]), qrels, name="x.run")


def test_other_pytrec_eval_measures_pass_through():
    run, qrels = ranked_binary((1, 2, 5))
    result = score_run(run, qrels, "bpref,success_1,Rprec")
    assert values(result, "success_1")["q"] == 1.0
    assert values(result, "Rprec")["q"] == pytest.approx(2 / 3)
    with pytest.raises(LeakevalError, match="unknown measure"):
        parse_measure("ndcg_at_ten")


def test_high_grades_reach_pytrec_eval_as_exponential_gains_exactly():
    """pytrec_eval's ndcg under exponential gain sees each grade g as 2^g - 1: 8191 and
    131071 for 13 and 17, exact, whatever type the qrels keep their grades in."""
    import pytrec_eval

    grades = {"d1": 17, "d2": 0, "d3": 13, "d4": 1}
    qrels = pd.DataFrame({"qid": "q", "docid": list(grades), "grade": list(grades.values())})
    run = run_frame([("q", "d4", 4.0), ("q", "d3", 3.0), ("q", "d1", 2.0), ("q", "d9", 1.0)])
    result = score_run(run, PreparedQrels(qrels, Conventions(gain="exponential")), "ndcg")
    gains = {"q": {d: 2**g - 1 for d, g in grades.items()}}
    ranking = {"q": dict(zip(run.docid, run.score, strict=True))}
    expected = pytrec_eval.RelevanceEvaluator(gains, {"ndcg"}).evaluate(ranking)["q"]["ndcg"]
    assert values(result, "ndcg")["q"] == expected


@pytest.mark.parametrize(
    "measure, gain, grade, told",
    [
        ("ndcg", "exponential", 18, "262,143 (2^g - 1"),
        ("ndcg", "linear", 200_000, "here 200,000, so"),
        ("ndcg_rel", "exponential", 18, "under linear gain it is handed the qrels' own"),
        ("G", "linear", 200_000, "no other measure computes it"),
    ],
)
def test_grades_pytrec_eval_would_not_finish_on_are_a_clear_error(measure, gain, grade, told):
    """pytrec_eval's nDCG takes a time that grows faster than the square of the highest
    grade (minutes a run at a grade of 20 under exponential gain): past `GRADE_LIMIT` the
    measure is refused, naming the grade and what to use instead (the native nDCG@k for
    nDCG); measures whose time does not grow with the grade are still scored."""
    qrels = qrels_frame([("q", "d1", grade), ("q", "d2", 1)])
    prepared = PreparedQrels(qrels, Conventions(gain=gain))
    run = run_frame([("q", "d1", 2.0), ("q", "d2", 1.0)])
    with pytest.raises(LeakevalError, match=f"measure {measure}: .*grows faster") as raised:
        score_run(run, prepared, measure)
    assert told in str(raised.value)
    assert values(score_run(run, prepared, "binG,ndcg_cut_10"), "ndcg_cut_10")["q"] == 1.0


def test_the_conventions_page_gives_the_grade_limit_the_code_applies():
    """The page says past which grade pytrec_eval's gain measures are refused; the number
    is `pytrec.GRADE_LIMIT`'s, so the two cannot drift apart unnoticed."""
    from leakeval_core.evaluation.pytrec import GRADE_LIMIT
    from tests.support import ROOT

    page = " ".join((ROOT / "docs" / "conventions.md").read_text().split())
    assert f"Past {GRADE_LIMIT:,} they are refused" in page


def independent_judged_and_first_rel(run, qrels_frame_, conventions, qids):
    """judged@10 and first relevant rank by a plain pandas path (no pytrec_eval equivalent)."""
    ranked = run.assign(neg=-run.score).sort_values(
        ["qid", "neg", "docid"], ascending=[True, True, conventions.tie_order == "docid_asc"]
    )
    ranked["rank"] = ranked.groupby("qid").cumcount() + 1
    ranked = ranked[ranked["rank"] <= conventions.depth].merge(
        qrels_frame_, on=["qid", "docid"], how="left"
    )
    top = ranked[ranked["rank"] <= 10]
    judged = top.grade.notna().groupby(top.qid).mean()  # of the top 10, or all if fewer
    first = ranked[ranked.grade >= conventions.relevance_level].groupby("qid")["rank"].min()
    return judged.reindex(qids).fillna(0.0), first.reindex(qids).astype(float)


def assert_parity(run, qrels_frame_, conventions, measures=ALL_NATIVE, tol=1e-9):
    qrels = PreparedQrels(qrels_frame_, conventions)
    ours = score_run(run, qrels, measures + ",judged_10,first_rel_rank").table
    ref = score_with_pytrec_eval(run, qrels, measures)
    wide = ours.pivot(index="qid", columns="measure", values="value").reindex(qrels.qids)
    for name, expected in ref.items():
        np.testing.assert_allclose(wide[name].to_numpy(), expected, atol=tol, err_msg=name)
    judged, first = independent_judged_and_first_rel(run, qrels_frame_, conventions, qrels.qids)
    np.testing.assert_allclose(wide.judged_10.to_numpy(), judged.to_numpy(), atol=tol)
    np.testing.assert_allclose(wide.first_rel_rank.to_numpy(), first.to_numpy(), atol=tol)


CONVENTIONS = [
    Conventions(),
    Conventions(gain="exponential", relevance_level=2),
    Conventions(tie_order="docid_desc", depth=20),
    Conventions(depth=1000),
]


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: c.describe()[:60])
@pytest.mark.parametrize(
    "collection,run_file",
    [
        ("core17", "bm25.top1000.run"),
        ("core18", "bm25.top1000.run"),
        ("robust04", "bm25.top150.fold3.run"),
    ],
)
@pytest.mark.parametrize("rounded", [False, True], ids=["raw", "rounded-ties"])
def test_parity_with_pytrec_eval_on_real_runs(collection, run_file, conventions, rounded):
    qrels = trec.read_qrels(realdata(collection, "qrels.txt"))
    run = trec.read_run(realdata(collection, "runs", run_file))
    if rounded:
        run = run.assign(score=run.score.round(0))
    assert_parity(run, qrels, conventions)


@pytest.mark.parametrize("seed", range(5))
def test_parity_with_pytrec_eval_on_random_runs(seed):
    rng = np.random.default_rng(seed)
    n_q, n_docs = 12, 60
    qrels = qrels_frame(
        [
            (f"q{q}", f"d{d}", int(g))
            for q in range(n_q)
            for d in range(n_docs)
            if (g := rng.choice([-1, 0, 0, 0, 1, 2, 3, 9])) != 9
        ]
    )
    run = run_frame(
        [
            (f"q{q}", f"d{d}", float(rng.integers(0, 8)))
            for q in range(n_q + 2)
            for d in rng.choice(n_docs + 10, 40, replace=False)
        ]
    )
    for conventions in CONVENTIONS:
        assert_parity(run, qrels, conventions)


def test_plain_pytrec_eval_agrees_on_core17_per_query():
    """The issue's bar: independent pytrec_eval (its own parse) vs `leakeval score`, 1e-6."""
    import pytrec_eval

    qrels_path = realdata("core17", "qrels.txt")
    run_path = realdata("core17", "runs", "bm25.top1000.run")
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        run = pytrec_eval.parse_run(fh)
    # Plain pytrec_eval breaks ties by docid descending and has no depth cut.
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "P_1", "map"}).evaluate(run)
    ours = score_run(
        trec.read_run(run_path),
        PreparedQrels(trec.read_qrels(qrels_path), Conventions(depth=1000, tie_order="docid_desc")),
        "ndcg_cut_10,P_1,map",
    )
    for row in ours.table.itertuples():
        assert row.value == pytest.approx(reference[row.qid][row.measure], abs=1e-6)


@pytest.mark.parametrize("prepared_while_reading", [False, True])
def test_score_files_matches_pytrec_eval_per_file_and_keeps_order(tmp_path, prepared_while_reading):
    """The batch path (thread pool, one judgment index searched by every file) against an
    independent pytrec_eval on each file, with a broken file in the middle and shuffled line
    order; the qrels given prepared, or as the function that prepares them while the first
    files are read."""
    import pytrec_eval

    from leakeval_core.evaluation.scoring import score_files

    qrels_path = realdata("core17", "qrels.txt")
    run = trec.read_run(realdata("core17", "runs", "bm25.top1000.run"))
    paths = []
    for i in range(5):
        part = run.sample(frac=0.5, random_state=i)  # shuffled: the sort path, not the fast one
        path = tmp_path / f"r{i}.run"
        body = part.qid + " Q0 " + part.docid + " 1 " + part.score.map(repr) + " x"
        path.write_text("\n".join(body) + "\n")
        paths.append(path)
    (tmp_path / "bad.run").write_text("q1 Q0 d1 1 x sys\n")
    paths.insert(2, tmp_path / "bad.run")
    conventions = Conventions(depth=1000, tie_order="docid_desc")

    def qrels() -> PreparedQrels:
        return PreparedQrels(trec.read_qrels_table(qrels_path), conventions)

    given = qrels if prepared_while_reading else qrels()
    seen = []
    results = list(score_files(paths, given, "ndcg_cut_10,map", lambda d, t, w: seen.append(d)))
    assert isinstance(results[2], LeakevalError) and "bad.run:1" in str(results[2])
    assert seen[-1] == len(paths)
    with open(qrels_path) as fh:
        evaluator = pytrec_eval.RelevanceEvaluator(
            pytrec_eval.parse_qrel(fh), {"ndcg_cut_10", "map"}
        )
    for path, result in zip(paths, results, strict=True):
        if path.name == "bad.run":
            continue
        with open(path) as fh:
            reference = evaluator.evaluate(pytrec_eval.parse_run(fh))
        scored = result.table
        assert scored.qid.nunique() == 50  # core17: 50 topics, all with relevant documents
        for row in scored.itertuples():
            assert row.value == pytest.approx(reference[row.qid][row.measure], abs=1e-9)


@pytest.mark.parametrize(
    "before, expected",
    [
        ("", "True 0 0 4194304 jemalloc jemalloc mimalloc"),  # in time: every option set
        ("import pyarrow; ", "False unset unset unset {own} None None"),  # too late
        (
            "os.environ['MIMALLOC_PURGE_DELAY'] = '10'; ",
            "True 10 0 4194304 jemalloc jemalloc mimalloc",
        ),
        ("reuse = False; ", "True 0 0 4194304 mimalloc None None"),  # the served app's
        (
            "os.environ['ARROW_DEFAULT_MEMORY_POOL'] = 'mimalloc'; ",
            "True 0 0 4194304 mimalloc None None",
        ),
        (  # a pool the user chose is theirs for every file
            "os.environ['ARROW_DEFAULT_MEMORY_POOL'] = 'jemalloc'; ",
            "True 0 0 4194304 jemalloc None None",
        ),
    ],
)
def test_release_memory_promptly_sets_the_allocators_only_before_pyarrow(before, expected):
    """mimalloc and jemalloc read their options once, when pyarrow loads; `leakeval score`
    sets them first, the user's values kept, and has pyarrow allocate through jemalloc
    (pyarrow's Linux wheels, which the tests run on, have it). A small file is then read
    through it, a large one through mimalloc, which hands its blocks back at once. The
    served app keeps mimalloc alone."""
    script = (
        "import os\n"
        "for k in ('MIMALLOC_PURGE_DELAY', 'MIMALLOC_ARENA_EAGER_COMMIT', "
        "'JE_ARROW_MALLOC_CONF', 'ARROW_DEFAULT_MEMORY_POOL'):\n"
        "    os.environ.pop(k, None)\n"
        f"{before}\n"
        "from leakeval_core.io.allocator import REUSED_BYTES, reading_pool, "
        "release_memory_promptly\n"
        "done = release_memory_promptly(reuse_small_blocks=globals().get('reuse', True))\n"
        "import pyarrow as pa\n"
        "small, large = reading_pool(REUSED_BYTES), reading_pool(REUSED_BYTES + 1)\n"
        "print(done, os.environ.get('MIMALLOC_PURGE_DELAY', 'unset'), "
        "os.environ.get('MIMALLOC_ARENA_EAGER_COMMIT', 'unset'), "
        "os.environ.get('JE_ARROW_MALLOC_CONF', 'unset').removeprefix('oversize_threshold:'), "
        "pa.default_memory_pool().backend_name, small and small.backend_name, "
        "large and large.backend_name)\n"
    )
    own = fresh_python("import pyarrow as pa; print(pa.default_memory_pool().backend_name)")
    assert fresh_python(script) == expected.format(own=own)  # own: pyarrow's, by version


def test_qrels_are_prepared_through_a_pool_that_hands_their_scratch_back():
    """Where pyarrow allocates through jemalloc, which keeps small blocks, preparing qrels
    from their file goes through mimalloc (`handing_back`), so that a first command's peak
    is not the preparation's scratch kept; the runs after it through jemalloc again. A run
    read meanwhile, on a scoring thread, is read through jemalloc all the same: were it read
    through mimalloc, each such thread would leave a heap of its own behind."""
    script = (
        "from leakeval_core.io.allocator import REUSED_BYTES, handing_back, reading_pool, "
        "release_memory_promptly\n"
        "release_memory_promptly(reuse_small_blocks=True)\n"
        "import pyarrow as pa\n"
        "with handing_back():\n"
        "    within = pa.default_memory_pool().backend_name\n"
        "    run = reading_pool(REUSED_BYTES).backend_name\n"
        "print(within, run, pa.default_memory_pool().backend_name)\n"
    )
    assert fresh_python(script) == "mimalloc jemalloc jemalloc"


def test_a_run_against_qrels_without_a_judgment_is_one_clear_error():
    """Not an index error deep in the lookup of the run's qids."""
    empty = pd.DataFrame({"qid": pd.Series([], dtype=str), "docid": [], "grade": []})
    run = pd.DataFrame({"qid": ["q1"], "docid": ["d1"], "score": [1.0]})
    with pytest.raises(LeakevalError, match="none of its 1 queries has judgments"):
        score_run(run, PreparedQrels(empty), ["P_1"])


def test_qrels_that_fail_to_prepare_stop_the_batch(tmp_path, monkeypatch):
    """The error of the qrels function is raised to the caller, and the files still queued
    are not read: the workers waiting for the qrels get the error instead of hanging."""
    from leakeval_core.evaluation.scoring import score_files

    read = []
    real_read = trec.read_run_table
    monkeypatch.setattr(trec, "read_run_table", lambda p: read.append(p) or real_read(p))
    paths = []
    for i in range(50):
        paths.append(tmp_path / f"r{i}.run")
        paths[-1].write_text("q1 Q0 d1 1 1.0 x\n")

    def broken() -> PreparedQrels:
        return PreparedQrels(trec.read_qrels_table(tmp_path / "missing.txt"))

    with pytest.raises(LeakevalError, match=r"missing\.txt: no such file"):
        list(score_files(paths, broken, "map"))
    assert len(read) < len(paths)


def test_a_measures_own_relevance_level_and_gain():
    """P(rel=2)@10 counts grade 2 and up while the run's other measures keep level 1, over
    the same queries; a query with nothing at grade 2 scores 0 on it, as in pytrec_eval.
    nDCG(dcg='exp-log2')@10 is the exponential gain's nDCG whatever the conventions say."""
    qrels = qrels_frame([("q1", "a", 2), ("q1", "b", 1), ("q2", "c", 1)])
    run = run_frame([("q1", "b", 2.0), ("q1", "a", 1.0), ("q2", "c", 1.0)])
    names = "P_10,P(rel=2)@10,RR(rel=2),nDCG@10,nDCG(dcg='exp-log2')@10,map_cut_10(rel=2)"
    result = score_run(run, PreparedQrels(qrels), names)
    assert values(result, "P_10") == {"q1": 0.2, "q2": 0.1}
    assert values(result, "P_10(rel=2)") == {"q1": 0.1, "q2": 0.0}
    assert values(result, "recip_rank(rel=2)") == {"q1": 0.5, "q2": 0.0}
    assert values(result, "map_cut_10(rel=2)") == {"q1": 0.5, "q2": 0.0}  # via pytrec_eval
    linear = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    exponential = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert values(result, "ndcg_cut_10")["q1"] == pytest.approx(linear)
    assert values(result, "ndcg_cut_10(dcg='exp-log2')")["q1"] == pytest.approx(exponential)
    exponential_conventions = PreparedQrels(qrels, Conventions(gain="exponential"))
    again = score_run(run, exponential_conventions, "nDCG@10,nDCG(dcg='log2')@10")
    assert values(again, "ndcg_cut_10")["q1"] == pytest.approx(exponential)
    assert values(again, "ndcg_cut_10(dcg='log2')")["q1"] == pytest.approx(linear)


BINARY = [
    "P_10",
    "recall_10",
    "recip_rank",
    "first_rel_rank",
    "map",
    "iprec_at_recall_0.20",
    "11pt_avg",
    "map_cut_10",
    "success_5",
    "relative_P_10",
    "bpref",
    "Rprec",
    "Rprec_mult_0.40",
    "infAP",
    "gm_map",
    "num_rel",
    "num_rel_ret",
    "set_P",
    "set_recall",
    "set_F",
]
"""Measures declared binary, native and pytrec_eval's: each takes a level of its own."""


def test_a_binary_measures_own_level_is_that_level_set_for_the_run():
    """X(rel=2) under level-1 conventions gives, on every query both score, what X gives
    when the conventions' level is 2: the declaration that lets a measure take `rel` is the
    one the scorer applies (first_rel_rank's nothing to credit stays NaN). Two queries the
    run misses keep their family's rule (num_rel counted from the qrels, 0 elsewhere)."""
    rng = np.random.default_rng(7)
    qrels = qrels_frame(
        [(f"q{q}", f"d{d}", int(rng.integers(0, 4))) for q in range(14) for d in range(30)]
    )
    run = run_frame(
        [(f"q{q}", f"d{d}", float(rng.random())) for q in range(12) for d in range(0, 40, 2)]
    )
    own = score_run(run, PreparedQrels(qrels), [parse_measure(f"{m}(rel=2)") for m in BINARY])
    level2 = score_run(run, PreparedQrels(qrels, Conventions(relevance_level=2)), BINARY)
    assert len(set(level2.qids)) >= 12 and {"q12", "q13"} <= set(level2.qids)
    for name in BINARY:
        mine, theirs = values(own, f"{name}(rel=2)"), values(level2, name)
        for qid, value in theirs.items():
            assert mine[qid] == pytest.approx(value, abs=1e-12, nan_ok=True), (name, qid)


def test_every_measure_declared_to_gain_takes_a_gain_of_its_own():
    """nDCG's family, native and pytrec_eval's, takes dcg= and gains=: ndcg_rel's own
    exponential gain is what it gives under exponential conventions, and pytrec_eval's whole
    ndcg with gains={1: 0} is leakeval's own ndcg_cut at the runs' depth with them; Rndcg's
    gains are those of qrels whose grade 1 was written 0."""
    rng = np.random.default_rng(3)
    rows = [(f"q{q}", f"d{d}", int(rng.integers(0, 4))) for q in range(8) for d in range(25)]
    qrels = qrels_frame(rows)
    run = run_frame([(f"q{q}", f"d{d}", float(rng.random())) for q in range(8) for d in range(30)])
    own = score_run(
        run,
        PreparedQrels(qrels),
        "ndcg_rel(dcg='exp-log2'),ndcg(gains={1: 0}),ndcg_cut_1000(gains={1: 0}),"
        "Rndcg(gains={1: 0})",
    )
    exponential = score_run(run, PreparedQrels(qrels, Conventions(gain="exponential")), "ndcg_rel")
    rewritten = qrels_frame([(q, d, 0 if g == 1 else g) for q, d, g in rows])
    zeroed = score_run(run, PreparedQrels(rewritten), "Rndcg")
    pairs = [
        (values(own, "ndcg_rel(dcg='exp-log2')"), values(exponential, "ndcg_rel")),
        (values(own, "ndcg(gains={1: 0})"), values(own, "ndcg_cut_1000(gains={1: 0})")),
        (values(own, "Rndcg(gains={1: 0})"), values(zeroed, "Rndcg")),
    ]
    for mine, theirs in pairs:
        assert mine.keys() == theirs.keys() and len(mine) == 8
        assert all(mine[q] == pytest.approx(theirs[q], abs=1e-12) for q in mine)
    assert values(own, "ndcg_rel(dcg='exp-log2')") != values(
        score_run(run, PreparedQrels(qrels), "ndcg_rel"), "ndcg_rel"
    )


@pytest.mark.parametrize(
    ("name", "trec_eval", "ir"),
    [
        ("nDCG@10", "ndcg_cut_10", "nDCG@10"),
        ("NDCG@10", "ndcg_cut_10", "nDCG@10"),
        ("P@1", "P_1", "P@1"),
        ("R@100", "recall_100", "R@100"),
        ("RR", "recip_rank", "RR"),
        ("MRR", "recip_rank", "RR"),
        ("AP", "map", "AP"),
        ("AP@100", "map_cut_100", "AP@100"),
        ("Judged@10", "judged_10", "Judged@10"),
        ("nDCG(dcg='exp-log2')@10", "ndcg_cut_10(dcg='exp-log2')", "nDCG(dcg='exp-log2')@10"),
        ("P(rel=2)@10", "P_10(rel=2)", "P(rel=2)@10"),
        ("RR(rel=2)", "recip_rank(rel=2)", "RR(rel=2)"),
        ("NumRet(rel=1)", "num_rel_ret(rel=1)", "NumRet(rel=1)"),
        ("IPrec@0.1", "iprec_at_recall_0.10", "IPrec@0.1"),
        ("first_rel_rank", "first_rel_rank", "first_rel_rank"),  # ir_measures has no MFR
        ("P_10(rel=2)", "P_10(rel=2)", "P(rel=2)@10"),
    ],
)
def test_ir_measures_names_read_as_trec_eval_names_and_back(name, trec_eval, ir):
    measure = parse_measure(name)
    assert (measure.name, measure.named("ir_measures")) == (trec_eval, ir)
    assert parse_measure(measure.name) == parse_measure(ir) == measure  # each round-trips


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("RR@10", "leakeval computes RR without a cutoff (--depth 10"),
        ("Judged", "needs a cutoff, e.g. Judged@10"),
        ("P(judged_only=True)@10", "'judged_only' is not computed here (P_10 takes: rel)"),
        ("nDCG(rel=2)@10", "whatever the relevance level; one that ignores grades below 2"),
        ("ndcg_cut_10(rel=2)", "its own measure: nDCG(gains={1: 0})@10"),
        ("P(gains={1: 0})@10", "P_10 takes no gains of its own (only nDCG's family gains"),
        ("P_10(gains={1: 0})", "P_10 takes no gains of its own (only nDCG's family gains"),
        ("rbp(dcg='exp-log2')", "rbp takes no dcg of its own (only nDCG's family gains"),
        ("nDCG(dcg='exp-log2', gains={1: 0})@10", "takes no dcg='exp-log2'"),
        ("nDCG(gains={1: -1})@10", "a gain is 0 or more"),
        ("nDCG(gains={1.5: 0})@10", "whole grades to whole gains"),
        ("nDCG(dcg='exp')@10", "dcg is 'log2' or 'exp-log2'"),
        ("P(rel=two)@10", "rel=two is not a number"),
        ("P(rel=0)@10", "rel is a grade of 1 or more, not 0"),
        ("Judged(rel=2)@10", "judged_10 takes no rel of its own (it reads only whether"),
        ("rbp(rel=2)", "rbp takes no rel of its own (its gains are the grades"),
        ("NumQ(rel=2)", "num_q takes no rel of its own"),
        ("P(relative=True)@10", "parameter 'relative' is not computed here (P_10 takes: rel)"),
        ("ERR@10", "unknown measure 'ERR@10'; known: ir_measures' nDCG[@K], P@K"),
    ],
)
def test_names_it_cannot_compute_are_one_clear_error(name, why):
    with pytest.raises(LeakevalError) as err:
        parse_measure(name)
    assert why in str(err.value)
