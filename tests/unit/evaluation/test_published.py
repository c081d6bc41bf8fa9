"""Published per-query values taken as a run's scores, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from leakeval_core import api
from leakeval_core.errors import LeakevalError
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import parse_measures
from leakeval_core.evaluation.per_query_files import read_evaluation
from leakeval_core.evaluation.published import (
    mean_check,
    published_queries,
    published_scores,
)
from tests.support import write

A = "P_10\t1\t0.5\nP_10\t2\t0.25\nrecip_rank\t1\t1.0\nrecip_rank\t2\t0.5\n"
B = "P_10\t2\t0.5\nP_10\t3\t0.75\nrecip_rank\t2\t1.0\nrecip_rank\t3\t0.2\n"


@pytest.fixture
def files(tmp_path):
    return write(tmp_path / "a.eval", A), write(tmp_path / "b.eval", B)


def test_the_queries_are_every_querys_of_any_evaluation_in_qid_order(files, tmp_path):
    other = read_evaluation(write(tmp_path / "c.eval", "P_10\t10\t0.1\nP_10\tx\t0.2\n"))
    evaluations = [read_evaluation(f) for f in files] + [other]
    assert published_queries(evaluations).tolist() == ["1", "2", "3", "10", "x"]


@pytest.mark.parametrize(("missing", "a_means"), [("zero", (0.25, 0.5)), ("drop", (0.375, 0.75))])
def test_a_query_an_evaluation_lacks_follows_missing(files, missing, a_means):
    scores = api.score(None, list(files), ["P_10", "recip_rank"], Conventions(missing=missing))
    means = scores.means()
    assert tuple(means.loc["a"]) == pytest.approx(a_means)
    a = scores.runs["a"]
    assert a.diagnostics.missing_from_run == ("3",)
    assert a.diagnostics.queries_scored == (3 if missing == "zero" else 2)
    assert list(a.qids) == (["1", "2", "3"] if missing == "zero" else ["1", "2"])


def test_qrels_choose_the_queries(files, tmp_path):
    qrels = write(tmp_path / "qrels.txt", "1 0 d 1\n2 0 d 1\n4 0 d 1\n5 0 d 0\n")
    scores = api.score(qrels, list(files), ["P_10"])
    assert scores.runs["b"].qids.tolist() == ["1", "2", "4"]
    np.testing.assert_array_equal(scores.runs["b"].values["P_10"], [0.0, 0.5, 0.0])
    assert scores.runs["b"].diagnostics.not_in_qrels == 1  # query 3
    assert scores.runs["b"].diagnostics.no_relevant == 1  # query 5


@pytest.mark.parametrize(
    "conventions",
    [
        Conventions(depth=50),
        Conventions(relevance_level=2),
        Conventions(gain="exponential"),
        Conventions(tie_order="docid_desc"),
        Conventions(condensed=True),
    ],
)
def test_a_setting_that_needs_the_ranking_is_refused(files, conventions):
    with pytest.raises(LeakevalError, match="computed by whoever published them"):
        api.score(None, list(files), ["P_10"], conventions)


def test_a_measure_not_carried_is_named_with_those_that_are(files):
    with pytest.raises(LeakevalError, match=r"a\.eval: holds no map; it carries P_10, recip_rank"):
        api.score(None, list(files), ["map"])


def test_a_ranking_needs_qrels(files, tmp_path):
    run = write(tmp_path / "r.run", "1 Q0 d 1 2.0 r\n")
    with pytest.raises(LeakevalError, match="qrels needed: r is a run"):
        api.score(None, [files[0], run], ["P_10"])


def check(tmp_path, text):
    evaluation = read_evaluation(write(tmp_path / "x.eval", text))
    return mean_check(evaluation, "P_10")


def test_the_published_mean_is_checked(tmp_path):
    lines = "P_10\t1\t0.5\nP_10\t2\t0.2\n"
    agrees = check(tmp_path, lines + "P_10\tall\t0.3500\n")
    assert not agrees.warns and "is leakeval's mean of its 2 queries" in agrees.text
    assert check(tmp_path, lines) is None
    rounded_off = check(tmp_path, lines + "P_10\tall\t0.3502\n")
    assert rounded_off.warns and "nor explained by trec_eval -c" in rounded_off.text
    # trec_eval -c: 4 queries, two of them absent, counted as 0
    c = check(tmp_path, lines + "P_10\tall\t0.1750\nnum_q\tall\t4\n")
    assert c.warns
    assert "is over 4 queries, 2 of them absent from the file and counted as 0" in c.text


def test_a_mean_that_disagrees_is_a_scoring_warning(tmp_path):
    path = write(tmp_path / "x.eval", "P_10\t1\t0.5\nP_10\t2\t0.2\nP_10\tall\t0.9\n")
    scores = api.score(None, [path], ["P_10"])
    (warning,) = scores.scoring_warnings
    assert warning.startswith("x.eval: its published P@10 (0.9) is not the mean of its 2")
    assert (
        published_scores(
            read_evaluation(path),
            np.array(["1", "2"], object),
            parse_measures("P_10"),
            Conventions(),
        )
        .diagnostics.published[0]
        .warns
        is True
    )


def test_frames_of_values_audit_as_their_files(tmp_path):
    """The API takes per-query values as frames (ir_measures' iter_calc rows, a pandas long
    table) where a run goes, and audits them as it audits the same values in files."""
    import pandas as pd

    rng = np.random.default_rng(7)
    qids = [str(q) for q in range(1, 21)]
    frames = {
        name: pd.DataFrame(
            {"query_id": qids, "measure": "nDCG@10", "value": rng.uniform(0, 1, len(qids))}
        )
        for name in ("model", "bm25")
    }
    files = {}
    for name, frame in frames.items():
        pairs = zip(frame.query_id, frame.value, strict=True)
        lines = [f"ndcg_cut_10\t{q}\t{float(v)!r}" for q, v in pairs]
        files[name] = write(tmp_path / f"{name}.eval", "\n".join(lines) + "\n")
    leaked = qids[:8]
    by_frames = api.audit(None, frames, baseline="bm25", leakage=leaked)
    by_files = api.audit(None, files, baseline="bm25", leakage=leaked)
    pd.testing.assert_frame_equal(by_frames.table, by_files.table)
    (row,) = by_frames.table.to_dict("records")
    assert (row["leaked_topics"], row["other_topics"]) == (8, 12)


def test_leakeval_score_takes_evaluations_without_qrels_on_what_they_carry(files, capsys):
    from leakeval_core.cli import main

    assert main(["score", "--run", str(files[0]), "--run", str(files[1])]) == 0
    out, err = capsys.readouterr()
    assert "recip_rank" in out and "P_10" in out and "ndcg" not in out
    assert "leakeval: note: 2 of 2 runs lack 1 of the queries the others hold each, scored 0" in err


def test_a_measure_left_out_is_said_and_an_agreeing_mean_is_a_note(tmp_path, capsys):
    from leakeval_core.cli import main

    path = write(
        tmp_path / "x.eval",
        "P_10\t1\t0.5\nP_10\t2\t0.2\nmy_metric\t1\t3\nP_10\tall\t0.3500\n",
    )
    scores = api.score(None, [path], ["P_10"])
    assert scores.scoring_warnings == (
        "x.eval: measures leakeval does not know, left out: my_metric.",
    )
    assert main(["score", "--run", str(path)]) == 0
    err = capsys.readouterr().err
    assert "leakeval: note: x.eval: its published P@10 (0.3500) is leakeval's mean of its 2" in err
    assert "Warning" in err or "warning" in err


def test_a_lower_is_better_measure_is_taken_and_oriented_as_for_runs(tmp_path):
    """first_rel_rank, published: a query the file lacks has no first relevant rank (left
    out of the mean, counted), and the audit's gain is oriented (a lower rank is a gain)."""
    qids = [str(q) for q in range(1, 13)]
    base = write(tmp_path / "bm25.eval", "".join(f"first_rel_rank\t{q}\t4\n" for q in qids))
    ranks = {q: (1 if int(q) <= 6 else 4) for q in qids[:-1]}  # leaked 1-6 found first
    model = write(
        tmp_path / "model.eval", "".join(f"first_rel_rank\t{q}\t{r}\n" for q, r in ranks.items())
    )
    scores = api.score(None, [model, base], ["first_rel_rank"])
    assert scores.runs["model"].qids[-1] == "12"
    assert np.isnan(scores.runs["model"].values["first_rel_rank"][-1])
    assert scores.runs["model"].diagnostics.first_rel_undefined == 1
    assert scores.means().loc["model", "first_rel_rank"] == pytest.approx(
        26 / 11
    )  # six 1s, five 4s
    audit = api.audit(
        None, {"model": model, "bm25": base}, baseline="bm25", leakage=qids[:6],
        measure="first_rel_rank",
    )  # fmt: skip
    (row,) = audit.table.to_dict("records")
    assert row["gain_leaked"] == pytest.approx(3.0) and row["gain_other"] == pytest.approx(0.0)
