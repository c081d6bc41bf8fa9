"""An experiment whose collection declares `relevance_level = 2` scores that collection as
`--relevance-level 2` does and the others at 1, and says so on every door: the audit's
caption and CSV, the leaderboard's caption, the Story, the report and the sidebar."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.cli import main
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.experiment.scores import score_experiment
from tests.support import DECLARED, declared_demo

pytestmark = pytest.mark.demo


@pytest.fixture(scope="module")
def declared(demo_dir, tmp_path_factory):
    return declared_demo(demo_dir, tmp_path_factory.mktemp("declared") / "demo")


def test_the_declared_collection_scores_as_the_flag_does_and_the_others_as_before(
    declared, demo_dir, demo_cache
):
    measures = ["P_10", "map", "ndcg_cut_10"]
    ours = score_experiment(load_experiment(declared), measures, cache=demo_cache)
    flag = score_experiment(
        load_experiment(demo_dir), measures, Conventions(relevance_level=2), cache=demo_cache
    )
    plain = score_experiment(load_experiment(demo_dir), measures, cache=demo_cache)
    assert ours.notes == (DECLARED,)
    key = ["collection", "model", "leakage", "train_size", "fold", "qid", "measure"]

    def values(scores, robust04: bool) -> pd.Series:
        table = scores.table[(scores.table.collection == "robust04") == robust04]
        return table.set_index(key).value.sort_index()

    pd.testing.assert_series_equal(values(ours, True), values(flag, True))
    pd.testing.assert_series_equal(values(ours, False), values(plain, False))
    assert not values(ours, True).equals(values(plain, True))  # the level moves P@10 and MAP
    three = score_experiment(
        load_experiment(declared), measures, Conventions(relevance_level=3), cache=demo_cache
    )
    assert three.notes == ("robust04, core17 and core18 scored at relevance level 3.",)


def test_every_door_names_the_level(declared, demo_cache, tmp_path, capsys):
    os.environ["LEAKEVAL_CACHE"] = str(demo_cache.root)
    study = api.Study.open(declared, demo_cache)
    assert DECLARED in api.audit(study).caption
    assert DECLARED in api.leaderboard(study).caption
    assert DECLARED in api.story(study).notes
    assert DECLARED in api.report(study).replace("&#x27;", "'")
    assert main(["audit", str(declared), "--out", str(tmp_path / "audit.csv")]) == 0
    assert DECLARED in capsys.readouterr().out
    lines = (tmp_path / "audit.csv").read_text().splitlines()
    assert lines[0] == f"# {DECLARED}" and not lines[1].startswith("#")
    table = pd.read_csv(tmp_path / "audit.csv", comment="#")
    assert len(table) and "collection" in table.columns


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "--format", "csv"],
        ["inflation", "--format", "csv"],
        ["leaderboard", "--format", "csv"],
    ],
)
def test_every_csv_is_headed_by_the_level(declared, demo_cache, tmp_path, command):
    os.environ["LEAKEVAL_CACHE"] = str(demo_cache.root)
    out = tmp_path / "table.csv"
    assert main([command[0], str(declared), *command[1:], "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == f"# {DECLARED}" and not lines[1].startswith("#")
    assert len(pd.read_csv(out, comment="#"))
