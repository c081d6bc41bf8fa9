"""The served folder's paths as a page shows them (`leakeval_app.served`): from the folder's
own name, an experiment behind a symlink by its name in the folder, the home folder as `~`."""

from __future__ import annotations

from pathlib import Path

import pytest

from leakeval_app.served import experiments, relative_paths
from leakeval_core.errors import LeakevalError


def test_paths_are_written_from_the_served_folder(tmp_path, monkeypatch):
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere" / "study-v2"
    (data / "own").mkdir(parents=True)
    (data / "own" / "experiment.toml").write_text("")
    elsewhere.mkdir(parents=True)
    (elsewhere / "experiment.toml").write_text("")
    (data / "study").symlink_to(elsewhere)
    monkeypatch.setenv("LEAKEVAL_DATA", str(data))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    said = relative_paths(
        f"{data}/own/runs/a.run:3: bad; {elsewhere}/qrels.txt: missing; {data}: empty; "
        f"{tmp_path}/home/.ir_datasets/x; {data}-old/y"
    )
    assert said == (
        "data/own/runs/a.run:3: bad; data/study/qrels.txt: missing; data: empty; "
        f"~/.ir_datasets/x; {data}-old/y"
    )


def test_no_experiment_left_says_what_is_gone(tmp_path):
    with pytest.raises(LeakevalError, match=r"^the folder data/ is gone"):
        experiments(tmp_path / "data")
    (tmp_path / "data").mkdir()
    with pytest.raises(LeakevalError, match=r"^the experiment data/demo is gone"):
        experiments(tmp_path / "data", "demo")
    with pytest.raises(LeakevalError, match=r"^no experiment in data/"):
        experiments(Path(tmp_path / "data"))
