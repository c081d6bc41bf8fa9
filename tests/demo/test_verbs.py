"""The API verbs' doctests, run on the generated demo."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest

import leakeval_core
from leakeval_core.api import audits, comparison, experiments, leakage, meeting, scoring
from tests.support import ROOT

pytestmark = pytest.mark.demo


VERB_MODULES = [scoring, audits, comparison, leakage, meeting, experiments]


@pytest.mark.slow
@pytest.mark.parametrize("module", [*VERB_MODULES, leakeval_core], ids=lambda m: m.__name__)
def test_docstring_examples_run(module, demo_dir, demo_cache, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    failures, tried = doctest.testmod(
        module, extraglobs={"demo_path": demo_dir}, optionflags=doctest.ELLIPSIS
    )
    assert tried > 0 and failures == 0


@pytest.mark.slow
def test_the_example_script_runs(demo_dir, demo_cache):
    env = {"LEAKEVAL_CACHE": str(demo_cache.root), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python_api.py"), str(demo_dir)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "leaked-vs-clean comparisons are significant" in done.stdout
    assert "gain_leaked" in done.stdout and "Leaked training" in done.stdout


def test_a_study_keeps_the_recently_used_results_of_many_settings(demo_experiment):
    """A served app's readers try many settings: the study rebuilds the least recently used
    result rather than keep every one."""
    from leakeval_core.api.study import KEPT, Study

    study = Study(demo_experiment)
    builds = []

    def remember(n: int) -> int:
        return study.remember(("test", n), lambda _: builds.append(n) or n)

    for n in range(KEPT["result"]):
        remember(n)
    assert remember(0) == 0 and builds.count(0) == 1  # kept, and now the most recent
    remember(KEPT["result"])  # one more: the least recently used (1) goes
    assert remember(0) == 0 and builds.count(0) == 1
    assert remember(1) == 1 and builds.count(1) == 2  # built again
