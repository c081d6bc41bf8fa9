"""The API verbs: their doctests, every input shape, and errors that say what is wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import leakeval_core
from leakeval_core import api
from leakeval_core.errors import LeakevalError
from leakeval_core.io.trec import read_qrels, read_run
from tests.support import MISMATCHED, fresh_python, mismatched_experiment, write

PUBLIC_VERBS = [
    "score",
    "compare",
    "inflation",
    "detect_leakage",
    "story",
    "report",
    "leaderboard",
    "load_experiment",
    "experiment_scores",
    "validate",
    "collection_stats",
]

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
RUN = {"q1": {"d1": 1.0, "d2": 3.0, "d3": 2.0}, "q2": {"d4": 0.5, "d5": 0.9}}


@pytest.mark.parametrize("name", PUBLIC_VERBS)
def test_every_public_verb_has_a_runnable_example(name):
    assert ">>> " in (getattr(api, name).__doc__ or ""), name


def expected_means() -> dict:
    # q1 ranked d2 (0), d3 (2), d1 (1); q2 ranked d5 (unjudged), d4 (1)
    dcg_q1 = 2 / np.log2(3) + 1 / np.log2(4)
    ideal_q1 = 2 + 1 / np.log2(3)
    ndcg = (dcg_q1 / ideal_q1 + (1 / np.log2(3)) / 1) / 2
    return {"ndcg_cut_10": ndcg, "P_1": 0.0}


def as_frame(table: dict, value: str, names=("qid", "docid")) -> pd.DataFrame:
    rows = [(q, d, v) for q, docs in table.items() for d, v in docs.items()]
    return pd.DataFrame(rows, columns=[*names, value])


@pytest.mark.parametrize(
    "qrels, run",
    [
        (QRELS, RUN),
        (as_frame(QRELS, "grade"), as_frame(RUN, "score")),
        (
            as_frame(QRELS, "relevance", ("query_id", "doc_id")),
            as_frame(RUN, "score", ("query_id", "doc_id")),
        ),
        (
            pa.Table.from_pandas(as_frame(QRELS, "grade")),
            pa.Table.from_pandas(as_frame(RUN, "score")),
        ),
    ],
    ids=["dicts", "frames", "other-column-names", "arrow"],
)
def test_score_accepts_every_shape(qrels, run):
    result = api.score(qrels, {"r": run}, ["ndcg_cut_10", "P_1"])
    means = result.means().loc["r"]
    for name, value in expected_means().items():
        assert means[name] == pytest.approx(value, abs=1e-12)
    assert set(result.per_query().columns) == {"run", "qid", "measure", "value"}


def test_score_reads_files_and_names_runs_after_them(tmp_path):
    qrels = write(tmp_path / "qrels.txt", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\n")
    run = write(
        tmp_path / "bm25.run",
        "q1 Q0 d2 1 3 x\nq1 Q0 d3 2 2 x\nq1 Q0 d1 3 1 x\nq2 Q0 d5 1 0.9 x\nq2 Q0 d4 2 0.5 x\n",
    )
    result = api.score(qrels, [run], ["ndcg_cut_10"])
    assert result.means().loc["bm25", "ndcg_cut_10"] == pytest.approx(
        expected_means()["ndcg_cut_10"]
    )
    assert result.diagnostics["bm25"].queries_scored == 2


def test_a_column_mapping_names_unusual_columns():
    run = as_frame(RUN, "weight", ("topic_no", "passage"))
    qrels = as_frame(QRELS, "grade")
    columns = {"topic_no": "qid", "passage": "docid", "weight": "score"}
    result = api.score(qrels, run, "P_1", columns=columns)
    assert result.means().loc["run", "P_1"] == 0.0


@pytest.mark.parametrize(
    "qrels, run, message",
    [
        (QRELS, as_frame(RUN, "weight"), "no score column among 'qid', 'docid', 'weight'"),
        (QRELS, as_frame(RUN, "score").assign(score="high"), "row 1: score 'high' is not a finite"),
        (as_frame(QRELS, "grade").assign(grade=1.5), RUN, "grade 1.5 is not an integer"),
        (QRELS, pd.concat([as_frame(RUN, "score")] * 2), "appears twice for query 'q1'"),
        ({"q1": [1, 2]}, RUN, "query 'q1' maps to list"),
        (QRELS, 42, "expected a file path, a DataFrame"),
        ("/nonexistent/qrels.txt", RUN, "no such file"),
    ],
)
def test_wrong_input_says_what_is_wrong(qrels, run, message):
    with pytest.raises(LeakevalError, match=message):
        api.score(qrels, {"r": run} if not isinstance(run, int) else run, "P_1")


def test_importing_the_package_stays_light():
    code = (
        "import sys, leakeval_core\n"
        "print(','.join(m for m in ('pandas', 'numpy', 'pyarrow', 'streamlit') "
        "if m in sys.modules))"
    )
    assert fresh_python(code) == ""
    assert callable(leakeval_core.score) and "score" in dir(leakeval_core)


def test_a_run_that_is_the_baseline_again_leaves_the_audits_family():
    """A researcher who uploads the baseline's run beside the model's: a zero gain on every
    topic would be one more test in the correction and widen the model's interval. It is left
    out and named; the model's row is the one of the audit without it."""
    qids = [str(q) for q in range(12)]
    qrels = {q: {"d1": 1, "d2": 0, "d3": 1} for q in qids}

    def run(order):
        return {q: {d: float(3 - i) for i, d in enumerate(order(q))} for q in qids}

    base = run(lambda q: ["d2", "d1", "d3"])
    model = run(lambda q: ["d1", "d2", "d3"] if int(q) % 3 else ["d2", "d3", "d1"])
    leaked = qids[:6]
    alone = api.audit(qrels, {"model": model, "bm25": base}, baseline="bm25", leakage=leaked)
    both = api.audit(
        qrels, {"model": model, "copy": base, "bm25": base}, baseline="bm25", leakage=leaked
    )
    assert both.table.system.tolist() == ["model"]
    pd.testing.assert_frame_equal(both.table, alone.table)
    assert both.warnings[0] == (
        "copy (collection) scores as the baseline on every topic: left out of the audit"
    )
    with pytest.raises(LeakevalError, match=r"copy .* on every topic: .*nothing is left to audit"):
        api.audit(qrels, {"copy": base, "bm25": base}, baseline="bm25", leakage=leaked)


def test_scores_of_files_carry_the_scoring_warnings_naming_the_files(tmp_path):
    """The mismatched run's sentence names the run as the scores do and the qrels by their
    file; the well-judged run has none; qrels given as a table are "the qrels"."""
    root = mismatched_experiment(tmp_path / "x")
    qrels, runs = root / "qrels.txt", [root / "runs" / "mine.run", root / "runs" / "bm25.run"]
    judged = MISMATCHED.replace("runs/mine.run", "mine").replace("the c qrels", "qrels.txt")
    zero = "mine: P_1 is 0 on all 12 queries."
    assert api.score(qrels, runs).scoring_warnings == (judged, zero)
    tables = {"mine": read_run(runs[0]), "bm25": read_run(runs[1])}
    given = api.score(read_qrels(qrels), tables).scoring_warnings
    assert given == (judged.replace("qrels.txt", "the qrels"), zero)


def test_every_verb_on_an_experiment_carries_its_scoring_warnings(tmp_path, monkeypatch):
    """compare, audit, story, the card and the report: the one sentence, for the view's
    measure (nDCG@10 is not 0 everywhere: no second sentence), in their JSON too."""
    import html

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    study = api.Study.open(mismatched_experiment(tmp_path / "x"))
    assert api.compare(study, vary="model").scoring_warnings == (MISMATCHED,)
    audited = api.audit(study)
    assert audited.scoring_warnings == (MISMATCHED,)
    assert audited.as_dict()["scoring_warnings"] == [MISMATCHED]
    assert api.story(study).scoring_warnings == (MISMATCHED,)
    assert MISMATCHED in api.card(study).warnings
    assert f"**Warning:** {MISMATCHED}" in api.card(study).markdown.replace("\\", "")
    report = api.report(study)
    first = report.index("Read this first")
    assert report.index(html.escape(MISMATCHED), first) < report.index("<h2", first + 1)
    assert api.story(study, measure="P_1").scoring_warnings == (
        MISMATCHED,
        "runs/mine.run: P_1 is 0 on all 12 queries.",
    )


def test_inflation_and_audit_of_runs_in_memory_carry_the_scoring_warnings(tmp_path):
    root = mismatched_experiment(tmp_path / "x")
    runs = {"mine": root / "runs" / "mine.run", "bm25": root / "runs" / "bm25.run"}
    leaked = [str(q) for q in range(1, 7)]
    said = MISMATCHED.replace("runs/mine.run", "mine").replace("the c qrels", "qrels.txt")
    inflated = api.inflation(root / "qrels.txt", runs, leaked="mine", clean="bm25", leakage=leaked)
    assert inflated.scoring_warnings == (said,)
    assert inflated.as_dict()["scoring_warnings"] == [said]
    audited = api.audit(root / "qrels.txt", runs, baseline="bm25", leakage=leaked)
    assert audited.scoring_warnings == (said,)


def _small_audit_files(tmp_path, leaked: int):
    """Twelve topics, a model that finds the relevant document first on topics 0-5 and a
    baseline that finds it second everywhere; the first `leaked` topics are leaked."""
    qids = [str(q) for q in range(12)]
    qrels = write(tmp_path / "qrels.txt", "".join(f"{q} 0 d 1\n" for q in qids))
    base = write(
        tmp_path / "bm25.run", "".join(f"{q} Q0 x 1 2.0 b\n{q} Q0 d 2 1.0 b\n" for q in qids)
    )
    model = write(
        tmp_path / "mine.run",
        "".join(
            f"{q} Q0 d 1 2.0 m\n{q} Q0 x 2 1.0 m\n"
            if int(q) < 6
            else f"{q} Q0 x 1 2.0 m\n{q} Q0 d 2 1.0 m\n"
            for q in qids
        ),
    )
    pairs = write(tmp_path / "pairs.csv", "test_qid\n" + "".join(f"{q}\n" for q in qids[:leaked]))
    return qrels, model, base, pairs


def test_the_audit_summary_carries_the_family_and_the_topics_needed_as_the_others_do(tmp_path):
    """A slide of an audit says, as one of a comparison or an inflation does, how many
    comparisons its p was corrected over and how many topics each δ would need."""
    qrels, model, base, pairs = _small_audit_files(tmp_path, 6)
    result = api.audit(
        str(qrels),
        {"mine": str(model), "bm25": str(base)},
        baseline="bm25",
        leakage=[str(pairs)],
        measure="P_1",
    )
    summary = result.summary()
    for column in ("family_size", "topics_needed"):
        assert summary[column].tolist() == result.table[column].tolist()
    assert summary.family_size.tolist() == [1]
    assert [e["delta"] for e in summary.topics_needed.iloc[0]] == [0.01, 0.02, 0.05]


def test_the_audit_markdown_dashes_a_row_that_cannot_say(tmp_path, capsys):
    """Three leaked topics are too few to test: the row's topics needed are "–" under a
    header naming the δs, never "<NA>", in a lower-is-better measure's rank units too."""
    from leakeval_core.cli import main

    qrels, model, base, pairs = _small_audit_files(tmp_path, 3)
    argv = ["audit", "--qrels", str(qrels), "--run", str(model), "--baseline", str(base)]
    assert main([*argv, "--pairs", str(pairs), "--measure", "first_rel_rank"]) == 0
    out = capsys.readouterr().out
    assert "cannot tell" in out and "<NA>" not in out
    header = out.splitlines()[0]
    assert "Topics for δ" in header and "topics_needed" not in header


def test_a_first_relevant_rank_audit_sizes_for_ranks():
    """Sized for 0.01 of a rank, a first-relevant-rank row asked for hundreds of thousands of
    topics; its own δs are ranks, so its counts are ones a collection can be compared with."""
    qids = [str(q) for q in range(40)]
    qrels = {q: {"d": 1} for q in qids}
    rng = np.random.default_rng(3)

    def run(shift):
        ranks = rng.integers(1, 8, len(qids)) + shift
        return {
            q: {**{f"x{i}": 100.0 - i for i in range(1, 12)}, "d": 100.5 - r}
            for q, r in zip(qids, ranks, strict=True)
        }

    result = api.audit(
        qrels,
        {"mine": run(0), "bm25": run(1)},
        baseline="bm25",
        leakage=qids[:15],
        measure="first_rel_rank",
    )
    (row,) = result.table.topics_needed
    assert [e["delta"] for e in row] == [1.0, 2.0, 5.0]
    assert all(e["leaked"] < 1_000 for e in row)
