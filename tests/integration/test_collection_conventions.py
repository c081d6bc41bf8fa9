"""An experiment whose collection declares `relevance_level = 2` scores that collection as
`--relevance-level 2` does and the others at 1, and says so on every door: the audit's
caption and CSV, the leaderboard's caption, the Story, the report and the sidebar."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.cli import main
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.experiment.scores import score_experiment

pytestmark = pytest.mark.demo

SAID = (
    "robust04 scored at relevance level 2 (declared in experiment.toml; a setting of yours "
    "overrides it)."
)


@pytest.fixture(scope="module")
def declared(demo_dir, tmp_path_factory):
    """The demo, its files linked, with robust04 declaring relevance level 2."""
    out = tmp_path_factory.mktemp("declared") / "demo"
    shutil.copytree(demo_dir, out, copy_function=os.symlink)
    manifest = out / "experiment.toml"
    text = manifest.read_text().replace(
        'qrels = "collections/robust04/qrels.txt"\n',
        'qrels = "collections/robust04/qrels.txt"\nrelevance_level = 2\n',
    )
    manifest.unlink()
    manifest.write_text(text)
    return out


def test_the_declared_collection_scores_as_the_flag_does_and_the_others_as_before(
    declared, demo_dir, demo_cache
):
    measures = ["P_10", "map", "ndcg_cut_10"]
    ours = score_experiment(load_experiment(declared), measures, cache=demo_cache)
    flag = score_experiment(
        load_experiment(demo_dir), measures, Conventions(relevance_level=2), cache=demo_cache
    )
    plain = score_experiment(load_experiment(demo_dir), measures, cache=demo_cache)
    assert ours.notes == (SAID,)
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
    assert three.notes == tuple(  # the reader's level wins, and is named
        f"{name} scored at relevance level 3." for name in ("robust04", "core17", "core18")
    )


def test_every_door_names_the_level(declared, demo_cache, tmp_path, capsys):
    os.environ["LEAKEVAL_CACHE"] = str(demo_cache.root)
    study = api.Study.open(declared, demo_cache)
    assert SAID in api.audit(study).caption
    assert SAID in api.leaderboard(study).caption
    assert SAID in api.story(study).warnings
    assert SAID in api.report(study).replace("&#x27;", "'")
    assert main(["audit", str(declared), "--out", str(tmp_path / "audit.csv")]) == 0
    assert SAID in capsys.readouterr().out
    lines = (tmp_path / "audit.csv").read_text().splitlines()
    assert lines[0] == f"# {SAID}" and not lines[1].startswith("#")
    table = pd.read_csv(tmp_path / "audit.csv", comment="#")
    assert len(table) and "collection" in table.columns
