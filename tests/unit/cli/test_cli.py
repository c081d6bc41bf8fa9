import math
import os

import pandas as pd
import pytest

from leakeval_core.cli import main
from leakeval_core.evaluation.measures import DEFAULT_MEASURES
from tests.support import MISMATCHED, fresh_python, mismatched_experiment, realdata, write

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 2\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n2 Q0 c 1 2.0 x\n2 Q0 a 2 1.0 x\n"


def test_score_csv_has_means_and_per_query_rows(tmp_path):
    qrels, run = write(tmp_path / "q", QRELS), write(tmp_path / "sys.run.gz", RUN)
    out = tmp_path / "out.csv"
    assert (
        main(
            [
                "score",
                "--qrels",
                str(qrels),
                "--run",
                str(run),
                "--per-query",
                "--measures",
                "P_1,first_rel_rank",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    table = pd.read_csv(out, dtype={"qid": str})
    assert list(table.columns) == ["run", "qid", "measure", "value"]
    got = {(r.qid, r.measure): r.value for r in table.itertuples()}
    assert got == {
        ("all", "P_1"): 1.0,
        ("all", "first_rel_rank"): 1.0,
        ("1", "P_1"): 1.0,
        ("2", "P_1"): 1.0,
        ("1", "first_rel_rank"): 1.0,
        ("2", "first_rel_rank"): 1.0,
    }
    assert set(table.run) == {"sys"}


def test_first_rel_rank_mean_is_over_defined_queries(tmp_path):
    qrels = write(tmp_path / "q", "1 0 a 1\n2 0 z 1\n3 0 b 1\n")
    run = write(tmp_path / "r.run", "1 Q0 x 1 3 t\n1 Q0 a 2 2 t\n2 Q0 y 1 1 t\n3 Q0 b 1 1 t\n")
    out = tmp_path / "o.csv"
    main(
        [
            "score",
            "--qrels",
            str(qrels),
            "--run",
            str(run),
            "--measures",
            "first_rel_rank",
            "--out",
            str(out),
        ]
    )
    assert pd.read_csv(out).value.tolist() == [1.5]


def test_score_prints_a_readable_table(tmp_path, capsys):
    qrels, run = write(tmp_path / "q", QRELS), write(tmp_path / "sys.run", RUN)
    assert main(["score", "--qrels", str(qrels), "--run", str(run)]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["run", *DEFAULT_MEASURES] and row.split()[:2] == ["sys", "0.9299"]
    assert main(["score", "--qrels", str(qrels), "--run", str(run), "--names", "ir_measures"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == ["run", "nDCG@10", "P@1", "first_rel_rank", "R@100", "Judged@10"]


@pytest.mark.parametrize(
    ("run_text", "message"),
    [
        ("1 Q0 a 1 2.0\n", ":1: expected 6 columns"),
        ("1 Q0 a 1 2.0 x\n1 Q0 a 2 1.0 x\n", ":2: docid 'a' appears twice"),
        ("9 Q0 a 1 1.0 x\n", "is this run for another collection?"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, run_text, message):
    qrels, run = write(tmp_path / "q", QRELS), write(tmp_path / "bad.run", run_text)
    assert main(["score", "--qrels", str(qrels), "--run", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("leakeval: ") and message in err[0]
    assert "Traceback" not in err[0]


def test_internal_error_is_one_line_with_debug_hint(tmp_path, capsys, monkeypatch):
    import leakeval_core.evaluation.scoring as metrics

    def boom(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(metrics, "score_files", boom)
    qrels, run = write(tmp_path / "q", QRELS), write(tmp_path / "r.run", RUN)
    assert main(["score", "--qrels", str(qrels), "--run", str(run)]) == 1
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: kaboom" in err and "--debug" in err
    assert "Traceback" not in err


def test_validate_reports_each_broken_file(tmp_path, capsys):
    write(tmp_path / "t.txt", "1\tq\n")
    write(tmp_path / "q.txt", QRELS)
    write(tmp_path / "runs/a.run", RUN)
    write(tmp_path / "runs/b.run", "1 Q0 a 1 x y\n")
    write(
        tmp_path / "experiment.toml",
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[runs]\npattern = "runs/{model}.run"\n',
    )
    assert main(["validate", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "b.run:1: score 'x' is not a number" in captured.err
    assert "1 problem(s)" in captured.out


def test_console_script_help_runs_without_heavy_imports():
    code = (
        "import sys; from leakeval_core.cli import main; "
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['--help'])\n"
        "    except SystemExit: pass\n"
        "print(','.join(m for m in ('pandas', 'pyarrow', 'pytrec_eval', 'streamlit') "
        "if m in sys.modules))"
    )
    assert fresh_python(code) == ""


def _commands(parser) -> list[str]:
    import argparse

    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_each_command_group_registers_the_commands_it_is_listed_with():
    """A command's parser is built with its own group alone (`COMMAND_GROUPS`), so the list
    must say what each group's module registers, and the whole parser has them all, in
    that order."""
    from leakeval_core import cli

    for commands in cli.COMMAND_GROUPS.values():
        for command in commands:
            assert _commands(cli._parser_of(command)) == list(commands)
    every = [c for commands in cli.COMMAND_GROUPS.values() for c in commands]
    assert _commands(cli._parser()) == every


@pytest.mark.parametrize(
    "argv, built",
    [
        (["score", "--run", "r"], "score"),
        (["--debug", "score"], "score"),
        (["--help", "score"], None),  # the whole CLI's help, as asked
        (["scroe"], None),  # not a command: argparse names the ones there are
        ([], None),
    ],
)
def test_the_parser_is_built_for_the_command_named(argv, built):
    from leakeval_core.cli import _command

    assert _command(argv) == built


def test_score_imports_no_other_command_group():
    """`leakeval score --help` builds the scoring group's parsers only."""
    code = (
        "import sys, contextlib, io; from leakeval_core.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['score', '--help'])\n"
        "    except SystemExit: pass\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules "
        "if m.startswith('leakeval_core.cli.')))"
    )
    assert fresh_python(code) == "['common', 'scoring']"


def _scored(folder, *runs: str) -> str:
    """Code that runs `leakeval score` on `folder`'s q.txt and these runs, for a new
    interpreter (`fresh_python`) to run and then report what the command left behind."""
    given = ", ".join(f"'--run', {str(folder / run)!r}" for run in runs)
    return (
        "from leakeval_core.cli import main\n"
        f"main(['score', '--qrels', {str(folder / 'q.txt')!r}, {given}, "
        f"'--out', {str(folder / 'o.csv')!r}])\n"
    )


def test_score_loads_no_pandas(tmp_path):
    """What `leakeval score` loads is most of its peak memory and start-up: pandas is never
    needed to score files, neither on a first command nor with the qrels kept. Nor is
    numpy.ma (which `np.unique` imports on first use): importing it on a scoring thread
    stalls the others; whether a run's rows are in order, tied or out of order."""
    write(tmp_path / "q.txt", "q1 0 d1 1\nq1 0 d2 0\n")
    write(tmp_path / "r.run", "q1 Q0 d1 1 2.0 r\nq1 Q0 d3 2 1.0 r\nq1 Q0 d2 3 1.0 r\n")
    write(tmp_path / "s.run", "q1 Q0 d2 1 0.5 s\nq1 Q0 d1 2 3.0 s\n")
    code = _scored(tmp_path, "r.run", "s.run") + (
        "import sys\nprint(','.join(m for m in ('pandas', 'numpy.ma') if m in sys.modules))"
    )
    env = os.environ | {"LEAKEVAL_CACHE": str(tmp_path / "cache")}
    for _ in ("first", "kept"):
        assert fresh_python(code, env) == ""
    assert list((tmp_path / "cache").iterdir())  # the second command had the qrels kept


def test_core17_bm25_matches_independent_pytrec_eval(tmp_path):
    import pytrec_eval

    qrels_path, run_path = (
        realdata("core17", "qrels.txt"),
        realdata("core17", "runs", "bm25.top1000.run"),
    )
    out = tmp_path / "o.csv"
    assert (
        main(
            [
                "score",
                "--qrels",
                str(qrels_path),
                "--run",
                str(run_path),
                "--per-query",
                "--depth",
                "1000",
                "--tie-order",
                "docid_desc",
                "--out",
                str(out),
                "--measures",
                "ndcg_cut_10,P_1,recall_100,recip_rank",
            ]
        )
        == 0
    )
    with open(qrels_path) as q, open(run_path) as r:
        reference = pytrec_eval.RelevanceEvaluator(
            pytrec_eval.parse_qrel(q), {"ndcg_cut_10", "P_1", "recall_100", "recip_rank"}
        ).evaluate(pytrec_eval.parse_run(r))
    table = pd.read_csv(out, dtype={"qid": str})
    per_query = table[table.qid != "all"]
    assert len(per_query) == 50 * 4
    for row in per_query.itertuples():
        assert row.value == pytest.approx(reference[row.qid][row.measure], abs=1e-6)


def test_one_leaked_topic_cannot_tell_and_a_planted_inflation_is_inflated(tmp_path, capsys):
    """Files path: 12 topics; the model finds the relevant document first on the topics
    given as leaked (all 6 of them, or one)."""
    import json

    qids = [str(q) for q in range(1, 13)]
    write(tmp_path / "qrels.txt", "".join(f"{q} 0 d{q} 1\n" for q in qids))
    for name, first in (("bm25", set()), ("mine", set(qids[:6]))):
        lines = [
            f"{q} Q0 {doc} {rank} {score} x\n"
            for q in qids
            for rank, (doc, score) in enumerate(
                [(f"d{q}", 2), ("other", 1)] if q in first else [("other", 2), (f"d{q}", 1)],
                start=1,
            )
        ]
        write(tmp_path / f"{name}.run", "".join(lines))
    verdicts = {}
    for leaked in (qids[:6], qids[:1]):
        pairs = tmp_path / f"pairs{len(leaked)}.csv"
        write(pairs, "test_qid,near_duplicate\n" + "".join(f"{q},1\n" for q in leaked))
        out = tmp_path / f"audit{len(leaked)}.json"
        argv = [
            "audit",
            "--qrels",
            str(tmp_path / "qrels.txt"),
            "--run",
            str(tmp_path / "mine.run"),
        ]
        argv += ["--baseline", str(tmp_path / "bm25.run"), "--pairs", str(pairs)]
        assert main([*argv, "--measure", "P_1", "--json", str(out)]) == 0
        row = json.loads(out.read_text())["audit"][0]
        verdicts[len(leaked)] = row["verdict"]
    assert verdicts == {6: "inflated", 1: "cannot tell"}
    assert "1 leaked of 12 judged topics: human-judged pairs" in capsys.readouterr().out


def test_cache_clear(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache" / "run-scores").mkdir(parents=True)
    (tmp_path / "cache" / "run-scores" / "x.parquet").write_bytes(b"x")
    assert main(["cache", "path"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cache")
    assert main(["cache", "clear"]) == 0
    assert "removed 1 cached file(s)" in capsys.readouterr().err
    assert not (tmp_path / "cache").exists()


def test_csv_values_round_trip_unless_digits_are_asked(tmp_path):
    """Every digit by default: a statistic recomputed from the export equals the scorer's."""
    qrels = write(tmp_path / "q", "q1 0 a 1\nq1 0 b 1\nq1 0 c 1\n")
    run = write(tmp_path / "r.run", "q1 Q0 a 1 3 x\nq1 Q0 x 2 2 x\nq1 Q0 b 3 1 x\n")
    out = tmp_path / "s.csv"
    assert (
        main(
            [
                "score",
                "--qrels",
                str(qrels),
                "--run",
                str(run),
                "--measures",
                "ndcg_cut_10",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    value = float(pd.read_csv(out).value.iloc[0])
    expected = (1 + 1 / 2) / (1 + 1 / math.log2(3) + 1 / 2)
    assert abs(value - expected) < 1e-15
    assert abs(float(f"{expected:.6g}") - expected) > 1e-9  # what 6 digits would have lost
    assert (
        main(
            [
                "score",
                "--qrels",
                str(qrels),
                "--run",
                str(run),
                "--measures",
                "ndcg_cut_10",
                "--out",
                str(out),
                "--digits",
                "3",
            ]
        )
        == 0
    )
    assert pd.read_csv(out).value.iloc[0] == round(value, 3)


def test_notes_count_per_run_not_over_runs(tmp_path, capsys):
    """Five runs that each lack the same four queries lack four, not twenty: a total over
    runs reads as more queries than the qrels hold."""
    qrels = write(tmp_path / "q", "".join(f"q{i} 0 d{i} 1\n" for i in range(8)) + "z 0 d 0\n")
    runs = [
        write(
            tmp_path / f"r{k}.run", "".join(f"q{i} Q0 d{i} 1 3 x\n" for i in range(8 - 4 * (k > 0)))
        )
        for k in range(5)
    ]
    args = ["score", "--qrels", str(qrels), "--measures", "P_5"]
    assert main([*args, *(a for r in runs for a in ("--run", str(r)))]) == 0
    err = capsys.readouterr().err
    assert "leakeval: note: 1 query of the qrels with no positive grade, excluded\n" in err
    assert "leakeval: note: 4 of 5 runs lack 4 of the qrels' queries each, scored 0\n" in err


def test_notes_say_what_the_conventions_did(tmp_path, capsys):
    qrels = write(tmp_path / "q", "q1 0 a 1\nq2 0 b 1\n")
    run = write(tmp_path / "r.run", "q1 Q0 a 1 3 x\n")
    args = ["score", "--qrels", str(qrels), "--run", str(run), "--measures", "P_5,recall_1000"]
    assert main([*args, "--missing", "drop"]) == 0
    err = capsys.readouterr().err
    assert f"{run} lacks 1 of the qrels' queries, dropped" in err
    assert "R@1000: only the top 100 documents of each run count" in err
    assert main([*args, "--compat", "trec_eval"]) == 0
    err = capsys.readouterr().err
    assert "only the top" not in err  # depth 1000 under trec_eval's conventions


def test_the_tie_note_names_the_order_and_what_trec_evals_changes(tmp_path, capsys):
    qrels = write(tmp_path / "q", "q1 0 a 0\nq1 0 b 1\n")
    run = write(tmp_path / "r.run", "q1 Q0 a 1 3 x\nq1 Q0 b 2 3 x\n")
    args = ["score", "--qrels", str(qrels), "--run", str(run), "--measures", "P_1"]
    assert main(args) == 0
    assert (
        f"leakeval: note: {run}: 1 tied document pairs, broken by docid ascending; "
        "trec_eval's order (docid descending) changes the values of 1 query"
    ) in capsys.readouterr().err
    assert main([*args, "--compat", "trec_eval"]) == 0
    assert "broken by docid descending (trec_eval's)" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["scores", "compare"])
def test_a_cache_that_cannot_be_written_is_said_once_and_the_command_succeeds(
    tmp_path, monkeypatch, capsys, command
):
    from leakeval_core.experiment import cache

    experiment = tmp_path / "x"
    (experiment / "runs").mkdir(parents=True)
    write(experiment / "t.txt", "1\tsolar panels\n2\twind farms\n3\ttidal power\n")
    write(experiment / "q.txt", "1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n")
    for model, first in (("bm25", "b"), ("t5", "a")):
        lines = f"1 Q0 {first} 1 2 x\n1 Q0 z 2 1 x\n2 Q0 c 1 3 x\n3 Q0 z 1 2 x\n3 Q0 d 2 1 x\n"
        write(experiment / "runs" / f"{model}.run", lines)
    write(
        experiment / "experiment.toml",
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[runs]\npattern = "runs/{model}.run"\n',
    )
    (tmp_path / "cache").write_text("a file, where the cache folder should be")
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    argv = [command, str(experiment), *(["--vary", "model"] if command == "compare" else [])]
    for _ in range(2):  # nothing is kept, so the next command computes again, and says so again
        monkeypatch.setattr(cache, "_DEGRADED", {})  # each a new process: no cache failed yet
        monkeypatch.setattr(cache, "_TAKEN", set())
        assert main([*argv, "--out", str(tmp_path / "out.csv")]) == 0
        err = capsys.readouterr().err
        notice = (
            f"leakeval: cache {tmp_path / 'cache'} is not writable (a file is where its folder "
            "should be); working from memory, nothing new is kept between runs"
        )
        assert err.count(notice) == 1, err
        assert "Traceback" not in err and "internal error" not in err
        assert len(pd.read_csv(tmp_path / "out.csv")) > 0


def test_score_says_how_little_of_a_run_is_judged_and_still_prints_its_table(tmp_path, capsys):
    """The run whose documents are in another id space scores, exit 0, beside a loud line
    with its counts; the well-judged run beside it has none."""
    root = mismatched_experiment(tmp_path / "x")
    argv = ["score", "--qrels", str(root / "qrels.txt")]
    argv += ["--run", str(root / "runs" / "mine.run"), "--run", str(root / "runs" / "bm25.run")]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    said = MISMATCHED.replace("runs/mine.run", "mine").replace("the c qrels", "qrels.txt")
    warnings = [line for line in err.splitlines() if line.startswith("leakeval: warning: ")]
    assert warnings == [
        f"leakeval: warning: {said}",
        "leakeval: warning: mine: P_1 is 0 on all 12 queries.",
    ]
    assert [line.split()[0] for line in out.splitlines()] == ["run", "mine", "bm25"]


@pytest.mark.parametrize(
    "command",
    [
        ["scores"],
        ["compare", "--vary", "model"],
        ["audit"],
        ["story"],
        ["report", "--out", "report.html"],
        ["card", "--out", "card.md"],
    ],
    ids=lambda command: command[0],
)
def test_every_command_on_an_experiment_says_its_scoring_warnings(
    tmp_path, monkeypatch, capsys, command
):
    """On stderr, once, as the API carries it; again on a warm call, whose scores (and, for
    `scores`, whose output) the cache could otherwise hand over without a word."""
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    argv = [command[0], str(mismatched_experiment(tmp_path / "x")), *command[1:]]
    for _ in range(2):
        assert main(argv) == 0
        err = capsys.readouterr().err
        assert err.count(f"leakeval: warning: {MISMATCHED}\n") == 1, err


def test_the_issues_reproduction_at_level_2_and_an_undefined_mean_is_a_dash(tmp_path, capsys):
    """qrels `q1 0 d1 1`, run `q1 Q0 d1 1 1.0 r`: at level 2 pytrec_eval's ndcg_cut_10 is
    1.0 (nDCG gains every positive grade); the query has no first relevant rank, whose
    mean is then "—" with the note that says why, never "nan"."""
    qrels = write(tmp_path / "q", "q1 0 d1 1\n")
    run = write(tmp_path / "r.run", "q1 Q0 d1 1 1.0 r\n")
    for extra in ([], ["--compat", "trec_eval", "--missing", "zero"]):
        args = ["score", "--relevance-level", "2", "--qrels", str(qrels), "--run", str(run)]
        assert main([*args, *extra, "--measures", "ndcg_cut_10,P_10,first_rel_rank"]) == 0
        out, err = capsys.readouterr()
        assert out.splitlines()[1].split() == ["r", "1.0000", "0.0000", "—"]
        assert "nan" not in out
        assert "finds nothing relevant within depth for 1 query, left out of" in err
