"""`le.leaderboard` and `leakeval leaderboard`: one set of groups through every door.

Each system's per-topic scores come from `le.score` (an independent path to the same
numbers), and the pairs' p from a loop over permutations written in the tests; the CLI's
JSON is the API's, its LaTeX and CSV carry the same letters, and the audit's leaderboard
shows the groups `le.leaderboard` gives for the same systems."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import leakeval_core as le
from leakeval_core.analysis.tukey import CHANGES
from leakeval_core.api.results import records
from leakeval_core.cli import main
from leakeval_core.errors import LeakevalError
from tests.unit.analysis.test_tukey import loop_hsd, within_monte_carlo

TOPICS = 40
SHIFTS = {"best": 0, "good": 1, "fair": 3, "poor": 5}
"""How many places lower each system ranks the relevant document, on top of the topic's
own difficulty."""
LEAKED = [str(q) for q in range(0, TOPICS, 3)]


def _runs():
    """Per system, a run placing topic q's one relevant document at a rank drawn per topic
    and system: reciprocal rank and first relevant rank then differ by system."""
    rng = np.random.default_rng(45)
    difficulty = rng.integers(0, 3, TOPICS)
    qrels = {str(q): {"rel": 1} for q in range(TOPICS)}
    runs = {}
    for name, shift in SHIFTS.items():
        run = {}
        for q in range(TOPICS):
            rank = 1 + difficulty[q] + shift + int(rng.integers(0, 3))
            docs = {f"d{i}": 100.0 - i for i in range(1, 15)}
            docs["rel"] = 100.0 - rank + 0.5  # between the documents ranked rank-1 and rank
            run[str(q)] = docs
        runs[name] = run
    return qrels, runs


def _write(tmp_path, qrels, runs):
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    files = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()
            )
        )
        files.append(str(path))
    pairs = tmp_path / "leaked.csv"
    pairs.write_text("test_qid\n" + "".join(f"{q}\n" for q in LEAKED))
    return str(qrels_file), files, str(pairs)


@pytest.fixture(scope="module")
def data():
    return _runs()


@pytest.fixture(scope="module")
def board(data):
    qrels, runs = data
    return le.leaderboard(qrels, runs, leakage=LEAKED, measure="recip_rank", resamples=3_000)


def test_pairwise_p_agrees_with_an_independent_hsd_on_the_same_scores(data, board):
    qrels, runs = data
    scores = le.score(qrels, runs, "recip_rank").table.pivot(
        index="qid", columns="run", values="value"
    )
    for topics, rows in (("all", scores), ("clean", scores.drop(index=LEAKED))):
        names = list(rows.columns)
        slow = loop_hsd(rows.to_numpy(), 3_000, seed=11)
        pairs = board.pairs[board.pairs.topics == topics]
        assert (pairs.n_topics == len(rows)).all()
        for pair in pairs.itertuples():
            i, j = names.index(pair.a), names.index(pair.b)
            assert within_monte_carlo(pair.p, slow[i, j], 3_000, draws=2), (topics, pair)
            expected = rows[pair.a].mean() - rows[pair.b].mean()
            assert pair.difference == pytest.approx(expected)
    assert board.pairs.different.any() and not board.pairs.different.all()


def test_rank_intervals_count_the_significantly_better_and_worse(board):
    for topics, rows in board.systems.groupby("topics"):
        different = board.pairs[(board.pairs.topics == topics) & board.pairs.different]
        for system in rows.itertuples():
            above = (different.b == system.system).sum()
            below = (different.a == system.system).sum()
            assert (system.rank_low, system.rank_high) == (1 + above, len(rows) - below)


def test_a_lower_is_better_measure_ranks_the_lowest_rank_first(data):
    qrels, runs = data
    ranked = le.leaderboard(
        qrels, runs, leakage=LEAKED, measure="first_rel_rank", resamples=999
    ).systems
    first = ranked[ranked.topics == "all"]
    assert first.system.tolist() == list(SHIFTS)  # lowest mean rank first
    assert first["mean"].is_monotonic_increasing
    assert first.group.iloc[0].startswith("a") and first.rank_low.iloc[0] == 1


def test_the_json_schema_of_the_cli_is_the_apis(tmp_path, data):
    qrels, runs = data
    argv, api = _command_and_result(tmp_path, qrels, runs)
    out = tmp_path / "board.json"
    assert main([*argv, "--json", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written == json.loads(json.dumps(api.as_dict()))
    (collection,) = written["collections"]
    assert [s["topics"] for s in collection["topic_sets"]] == ["all", "clean"]
    all_topics, clean = collection["topic_sets"]
    assert (all_topics["n_topics"], clean["n_topics"]) == (TOPICS, TOPICS - len(LEAKED))
    assert set(all_topics["systems"][0]) >= {"system", "mean", "group", "rank_low", "rank_high"}
    assert set(all_topics["pairs"][0]) >= {"a", "b", "difference", "p"}
    assert len(all_topics["pairs"]) == len(SHIFTS) * (len(SHIFTS) - 1) // 2
    assert "Tukey HSD" in written["statistics"]


def test_latex_and_csv_carry_the_apis_groups(tmp_path, data, capsys):
    qrels, runs = data
    argv, api = _command_and_result(tmp_path, qrels, runs)
    expected = api.table.set_index("system")
    assert main([*argv, "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert r"\toprule" in latex and r"\bottomrule" in latex
    for system, row in expected.iterrows():
        (line,) = [line for line in latex.splitlines() if line.startswith(f"{system} &")]
        shown = re.findall(r"\$\^\{\\mathrm\{(\w+)\}\}\$", line)
        assert shown == [row.group, row.clean_group], line
    csv = tmp_path / "board.csv"
    assert main([*argv, "--format", "csv", "--out", str(csv)]) == 0
    rows = pd.read_csv(csv, keep_default_na=False)
    got = rows.set_index(["topics", "system"]).group.to_dict()
    assert got == {
        **{("all", s): g for s, g in expected.group.items()},
        **{("clean", s): g for s, g in expected.clean_group.items()},
    }


def test_the_audit_shows_the_leaderboards_groups(data):
    qrels, runs = data
    audit = le.audit(qrels, runs, baseline="poor", leakage=LEAKED, measure="recip_rank")
    board = le.leaderboard(qrels, runs, leakage=LEAKED, measure="recip_rank")
    columns = ["system", "group", "rank_low", "rank_high", "clean_group", "clean_rank_low"]
    pd.testing.assert_frame_equal(
        audit.leaderboard[columns].reset_index(drop=True),
        board.table[columns].reset_index(drop=True),
    )
    pd.testing.assert_frame_equal(audit.board.pairs, board.pairs)
    assert audit.as_dict()["leaderboard_pairs"] == json.loads(json.dumps(records(board.pairs)))


def test_changes_name_the_pairs_that_move_between_topic_sets(board):
    changes = board.changes
    assert len(changes) == len(SHIFTS) * (len(SHIFTS) - 1) // 2
    assert set(changes.change) <= set(CHANGES)
    moved = changes.set_index(["a", "b"])
    for pair in board.pairs[board.pairs.topics == "all"].itertuples():
        assert moved.loc[(pair.a, pair.b), "all"] == ("different" if pair.different else "tied")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda q, r: le.leaderboard(q, {"best": r["best"]}, leakage=LEAKED), "two or more"),
        (lambda q, r: le.leaderboard(q, r), "needs the leaked topics"),
        (lambda q, r: le.leaderboard(q, r, leakage=LEAKED, resamples=0), "1 or more"),
    ],
)
def test_bad_input_is_one_clear_error(data, call, message):
    qrels, runs = data
    with pytest.raises(LeakevalError, match=message):
        call(qrels, runs)


def test_the_cli_says_what_it_needs(tmp_path, data, capsys):
    qrels, runs = data
    qrels_file, files, pairs = _write(tmp_path, qrels, runs)
    assert main(["leaderboard", "--qrels", qrels_file, "--run", files[0], "--pairs", pairs]) == 2
    assert "two or more --run" in capsys.readouterr().err


def _command_and_result(tmp_path, qrels, runs):
    """`leakeval leaderboard`'s arguments for the runs written as files, and the API's
    answer on the same files."""
    qrels_file, files, pairs = _write(tmp_path, qrels, runs)
    argv = ["leaderboard", "--qrels", qrels_file, *[f for r in files for f in ("--run", r)]]
    argv += ["--pairs", pairs, "--measure", "recip_rank", "--resamples", "999"]
    api = le.leaderboard(
        qrels_file,
        dict(zip(SHIFTS, files, strict=True)),
        leakage=[pairs],
        measure="recip_rank",
        resamples=999,
    )
    return argv, api


@pytest.mark.parametrize(
    "flag",
    [
        ["--test", "randomization"],
        ["--correction", "holm"],
        ["--interval", "bootstrap"],
        ["--delta", "0.02"],
        ["--names", "ir_measures"],
    ],
)
def test_a_flag_the_leaderboard_would_ignore_is_refused(tmp_path, data, capsys, flag):
    """The leaderboard's figures come from the HSD test alone: a test, correction,
    interval or δ given would change nothing, so it is an error, not a silent no-op."""
    qrels, runs = data
    argv, _ = _command_and_result(tmp_path, qrels, runs)
    with pytest.raises(SystemExit) as exited:
        main([*argv, *flag])
    assert exited.value.code == 2
    assert f"unrecognized arguments: {flag[0]}" in capsys.readouterr().err


def test_the_leaderboards_own_settings_change_its_figures(tmp_path, data):
    """--alpha and --seed are read: the JSON states the level, and another seed draws
    other permutations (other p)."""
    qrels, runs = data
    argv, api = _command_and_result(tmp_path, qrels, runs)
    out = tmp_path / "board.json"
    assert main([*argv, "--alpha", "0.01", "--seed", "7", "--json", str(out)]) == 0
    written = json.loads(out.read_text())
    assert "α = 0.01" in written["statistics"]
    p = [pair["p"] for pair in written["collections"][0]["topic_sets"][0]["pairs"]]
    assert p != api.pairs[api.pairs.topics == "all"].p.tolist()


def test_covers_keeps_the_judged_topics_as_the_audit_does(tmp_path, data):
    """Pairs judged for the first half of the topics say nothing of the second: with
    --covers, neither topic set counts an unjudged topic (as clean or at all), so the
    leaderboard is the one of the judged topics alone, and the audit counts the same."""
    qrels, runs = data
    argv, _ = _command_and_result(tmp_path, qrels, runs)
    judged = [str(q) for q in range(TOPICS // 2)]
    covers = tmp_path / "covers.csv"
    covers.write_text("qid\n" + "".join(f"{q}\n" for q in judged))
    out = tmp_path / "board.json"
    assert main([*argv, "--covers", str(covers), "--json", str(out)]) == 0
    sets = json.loads(out.read_text())["collections"][0]["topic_sets"]
    leaked_judged = len(set(LEAKED) & set(judged))
    assert [s["n_topics"] for s in sets] == [len(judged), len(judged) - leaked_judged]

    def kept(frame):
        return {q: docs for q, docs in frame.items() if q in judged}

    alone = le.leaderboard(
        kept(qrels),
        {name: kept(run) for name, run in runs.items()},
        leakage=LEAKED,
        measure="recip_rank",
        resamples=999,
    )
    covered = le.leaderboard(
        qrels, runs, leakage=LEAKED, covers=judged, measure="recip_rank", resamples=999
    )
    pd.testing.assert_frame_equal(covered.table, alone.table)
    audited = le.audit(
        qrels, runs, baseline="poor", leakage=LEAKED, covers=judged, measure="recip_rank"
    ).table
    assert (audited.leaked_topics + audited.other_topics == len(judged)).all()
