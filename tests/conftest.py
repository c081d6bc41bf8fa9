"""Shared fixtures: the demo experiment is generated and scored once per test session."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata"


def _irds_home() -> Path | None:
    """Lay the real topics and qrels out where ir_datasets looks, before it is imported.

    ir_datasets fixes its dataset paths at import, so this must happen before any test runs.
    """
    script = REALDATA / "irds-home.sh"
    if not script.exists():
        return None
    home = Path(tempfile.mkdtemp(prefix="leakeval-irds-"))
    subprocess.run(["bash", str(script), str(REALDATA), str(home)], check=True)
    return home


IRDS_HOME = _irds_home()
if IRDS_HOME is not None:
    os.environ["IR_DATASETS_HOME"] = str(IRDS_HOME)

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz", max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def realdata(*parts: str) -> Path:
    """A file under ../shared/realdata; the test is skipped when it is absent."""
    path = REALDATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    return path


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory) -> Path:
    from leakeval_core.demo.generator import generate_demo

    return generate_demo(tmp_path_factory.mktemp("demo") / "demo")


@pytest.fixture(scope="session")
def demo_cache(tmp_path_factory):
    from leakeval_core.experiment.cache import Cache

    return Cache(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def demo_experiment(demo_dir):
    from leakeval_core.experiment.manifest import load_experiment

    return load_experiment(demo_dir)


@pytest.fixture(scope="session")
def demo_scores(demo_experiment, demo_cache):
    from leakeval_core.experiment.scores import score_experiment

    return score_experiment(demo_experiment, cache=demo_cache)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
