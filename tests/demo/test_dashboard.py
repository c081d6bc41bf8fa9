"""`leakeval app` on the generated demo, without starting a server."""

from __future__ import annotations

import pytest

from leakeval_core.cli import main

pytestmark = pytest.mark.demo


def test_a_folder_of_experiments_is_served_on_localhost(demo_dir, served, capsys):
    assert main(["app", str(demo_dir.parent), "--port", "8765", "--present"]) == 0
    ((command, env),) = served
    assert command[1:3] == ["-m", "leakeval_app.serve"]
    assert "--server.address=127.0.0.1" in command and "--server.port=8765" in command
    assert "--browser.gatherUsageStats=false" in command
    assert env["LEAKEVAL_DATA"] == str(demo_dir.parent.resolve())
    assert "http://127.0.0.1:8765/?present=1" in capsys.readouterr().err


@pytest.mark.slow
def test_without_a_path_the_demo_is_generated_once_in_the_users_data_folder(
    tmp_path, served, monkeypatch
):
    monkeypatch.delenv("LEAKEVAL_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["app"]) == 0
    demo = tmp_path / "xdg" / "leakeval" / "demo"
    assert (demo / "experiment.toml").is_file()
    made = (demo / "experiment.toml").stat().st_mtime_ns
    assert main(["app"]) == 0  # the second start finds it
    assert (demo / "experiment.toml").stat().st_mtime_ns == made
    assert [env["LEAKEVAL_DATA"] for _, env in served] == [str(demo.parent)] * 2
