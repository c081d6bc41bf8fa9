"""Parsed runs kept in memory: off unless asked, known by content, bounded."""

import pytest

from leakeval_core.evaluation import parsed_runs
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.qrels import PreparedQrels
from leakeval_core.evaluation.scoring import score_files
from leakeval_core.io import trec


@pytest.fixture
def kept():
    """Turns keeping on for one test, and off (emptied) after it."""
    yield parsed_runs.keep
    parsed_runs.keep(0)


def _run(path, scores):
    path.write_text("".join(f"q1 Q0 d{i} {i} {s} t\n" for i, s in enumerate(scores, 1)))
    return path


def test_off_by_default_every_read_parses(tmp_path):
    path = _run(tmp_path / "a.run", [3, 2, 1])
    assert parsed_runs.read_run_table(path) is not parsed_runs.read_run_table(path)
    assert parsed_runs.kept_bytes() == 0


def test_kept_run_is_read_once_and_an_edit_is_read_again(tmp_path, kept):
    kept(10)
    path = _run(tmp_path / "a.run", [3, 2, 1])
    first = parsed_runs.read_run_table(path)
    assert parsed_runs.read_run_table(path) is first
    _run(path, [1, 2, 3])  # same size, same name, maybe the same timestamps: another content
    again = parsed_runs.read_run_table(path)
    assert again is not first
    assert again.equals(trec.read_run_table(path))
    assert again.column("score").to_pylist() == [1.0, 2.0, 3.0]


def test_bound_drops_the_least_recently_used(tmp_path, kept):
    paths = [_run(tmp_path / f"{i}.run", [i, 2, 1]) for i in range(5, 9)]
    size = trec.read_run_table(paths[0]).nbytes
    kept(2.5 * size / 1e6)
    tables = [parsed_runs.read_run_table(p) for p in paths[:2]]
    parsed_runs.read_run_table(paths[0])  # the first is now the most recent
    parsed_runs.read_run_table(paths[2])  # room for two: the second goes
    assert parsed_runs.kept_bytes() <= 2.5 * size
    assert parsed_runs.read_run_table(paths[0]) is tables[0]
    assert parsed_runs.read_run_table(paths[1]) is not tables[1]
    kept(0)
    assert parsed_runs.kept_bytes() == 0


def test_scores_from_kept_runs_are_the_scores_of_the_files(tmp_path, kept):
    """Ranking at another depth reads the kept table; nothing scored changes it."""
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\n")
    paths = [_run(tmp_path / "a.run", [3, 2, 1]), _run(tmp_path / "b.run", [1, 2, 3])]

    def scores(depth):
        prepared = PreparedQrels(trec.read_qrels_table(qrels), Conventions(depth=depth))
        return [r.means() for r in score_files(paths, prepared, "ndcg_cut_10,P_1")]

    fresh = {depth: scores(depth) for depth in (1, 3)}
    kept(10)
    assert [scores(depth) for depth in (1, 3, 1)] == [fresh[1], fresh[3], fresh[1]]
    assert parsed_runs.kept_bytes() > 0
