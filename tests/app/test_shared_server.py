"""One server, several readers: a cold computation holds no one else, and outlives its reader.

A reader opens `?depth=20` on the demo with an empty cache, so every run is scored again. The
server is started with a `sitecustomize` that holds that scoring at a gate after its first
step until the test opens it: what overlaps is then fixed by state, not raced against a
clock, and a test that would hang on a shared lock fails instead of passing by luck.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.app.test_browser import HEADING, start_app, stop_app, wait_until_idle
from tests.chromium import CHROMIUM
from tests.support import ROOT

pytestmark = [
    pytest.mark.browser,
    pytest.mark.demo,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed"),
]

GATE = '''
"""Test seam: hold the demo's scoring at depth 20 after its first run, until released."""
import os
import time
from pathlib import Path

import leakeval_core.experiment.scores as scores

gate = Path(os.environ["LEAKEVAL_TEST_GATE"])
real = scores.score_experiment


def held(experiment, measures, conventions, cache=None, progress=None):
    if conventions.depth != 20:
        return real(experiment, measures, conventions, cache, progress)
    with open(gate / "builds", "a") as log:
        log.write("build\\n")

    def step(done, total, what):
        if progress is not None:
            progress(done, total, what)
        while done == 1 and not (gate / "release").exists():
            time.sleep(0.02)  # waits for the test's file, never for a duration

    return real(experiment, measures, conventions, cache, step)


scores.score_experiment = held
'''


@pytest.fixture
def gated_app(demo_dir, tmp_path, monkeypatch):
    root = tmp_path / "data"
    shutil.copytree(demo_dir, root / "demo")
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "sitecustomize.py").write_text(GATE)
    monkeypatch.setenv("LEAKEVAL_TEST_GATE", str(gate))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(gate), str(ROOT)]))
    proc, url = start_app(root, tmp_path / "cache")
    yield url, gate, proc
    (gate / "release").touch()
    stop_app(proc)


def wait_for_file(path: Path, server: subprocess.Popen) -> None:
    """The gate's log, written by the server when the held build starts; a server that
    exits first fails the wait."""
    while not path.exists():
        assert server.poll() is None, f"the server exited before {path.name} appeared"
        time.sleep(0.05)


def builds(gate: Path) -> int:
    return (gate / "builds").read_text().count("build")


def script_running(page) -> bool:
    return page.evaluate(
        """() => document.querySelector('[data-testid="stApp"]')
                   ?.dataset.testScriptState === 'running'"""
    )


def test_a_cold_rescoring_holds_no_other_reader_and_survives_its_reader_leaving(gated_app, browser):
    url, gate, server = gated_app
    other = browser.new_page(viewport={"width": 1280, "height": 720})
    other.goto(url)
    wait_until_idle(other)
    other.locator("h2", has_text=HEADING["Story"]).first.wait_for()

    cold = browser.new_page(viewport={"width": 1280, "height": 720})
    cold.goto(f"{url}/?depth=20", wait_until="commit")
    wait_for_file(gate / "builds", server)  # the rescoring has started, and is held
    cold.get_by_text("Scoring run 1 of").first.wait_for()

    # another reader's page switches are answered while it is held
    for name in ("Dataset browser", "Story"):
        other.get_by_role("link", name=name).first.click()
        other.locator("h2", has_text=HEADING.get(name, name)).first.wait_for()
        wait_until_idle(other)
    assert script_running(cold)  # still held: nothing above waited for it

    # the cold reader clicks away mid-way: the page they open needs the same scores, and
    # joins the build where it is; so does a third reader asking for the same setting
    cold.get_by_role("link", name="Dataset browser").first.click()
    cold.wait_for_url("**/datasets**")
    joiner = browser.new_page(viewport={"width": 1280, "height": 720})
    joiner.goto(f"{url}/?depth=20", wait_until="commit")
    joiner.get_by_text("Scoring run 1 of").first.wait_for()  # joined, at the build's step
    assert builds(gate) == 1

    (gate / "release").touch()
    for page, name in ((cold, "Dataset browser"), (joiner, "Story")):
        page.locator("h2", has_text=HEADING.get(name, name)).first.wait_for(timeout=300_000)
        wait_until_idle(page)
    assert builds(gate) == 1  # neither the reader who left nor the joiner started it again
    for page in (other, cold, joiner):
        page.close()
