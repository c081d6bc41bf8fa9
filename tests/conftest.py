"""Shared fixtures: the demo experiment is generated and scored once per test session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import support  # first: lays out the ir_datasets home before any import

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(  # `make check`, the fast lane: `make test` keeps the ci profile
    "check", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz", max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

LONG = ("browser", "detection", "slow")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that use the demo say so, and none is a unit test; then modules holding long
    tests first. `make test` hands each module whole to one of two workers, in this order:
    started last, a long module would run alone while the other worker idles."""
    require_demo_marks(items)
    long_modules = {
        item.module.__name__
        for item in items
        if any(item.get_closest_marker(name) for name in LONG)
    }
    items.sort(key=lambda item: item.module.__name__ not in long_modules)


def require_demo_marks(items: list[pytest.Item]) -> None:
    """A test built on the generated demo is marked `demo` and lives outside tests/unit, so
    `make check` (tests/unit) never generates it."""
    unit = support.ROOT / "tests" / "unit"
    unmarked = [
        item.nodeid
        for item in items
        if "demo_dir" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("demo")
    ]
    in_unit = [
        item.nodeid
        for item in items
        if item.get_closest_marker("demo") and item.path.is_relative_to(unit)
    ]
    if unmarked or in_unit:
        raise pytest.UsageError(
            "tests that use the demo are marked `demo` and live outside tests/unit: "
            + ", ".join([*unmarked, *in_unit][:10])
        )


@pytest.fixture(autouse=True)
def _cache_notices_stay_with_their_test():
    """A cache a test degrades is said by that test's command, never by a later test's: the
    notices are kept per process (`cache.take_notices`), and a worker runs many tests."""
    yield
    cache = sys.modules.get("leakeval_core.experiment.cache")
    if cache is not None:
        cache.take_notices()


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory) -> Path:
    from leakeval_core.demo.generator import generate_demo

    # the demo names its detection method and ships its detected pairs (precomputed/), so
    # the tests that read its leakage do not detect: tests/unit/demo/test_precomputed.py does
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


@pytest.fixture(scope="session")
def real_example(tmp_path_factory):
    if support.IRDS_HOME is None:
        pytest.skip("real data not available")
    root = tmp_path_factory.mktemp("data")
    example = root / "real-bm25"
    example.mkdir()
    for name in ("experiment.toml", "link-runs.sh"):
        (example / name).write_bytes((support.ROOT / "examples" / "real-bm25" / name).read_bytes())
    subprocess.run(
        ["bash", str(example / "link-runs.sh"), str(support.REALDATA)],
        check=True,
        capture_output=True,
    )
    return example


@pytest.fixture(scope="session")
def renamed_dir(demo_dir, tmp_path_factory) -> Path:
    """The demo's Core17 runs under other factor names, roles declared in [design]."""
    return support.renamed_experiment(demo_dir, tmp_path_factory.mktemp("renamed") / "renamed")


@pytest.fixture(scope="session")
def single_factor_dir(demo_dir, tmp_path_factory) -> Path:
    return support.single_factor_experiment(demo_dir, tmp_path_factory.mktemp("one") / "one")


@pytest.fixture(scope="session")
def audit_dir(demo_dir, tmp_path_factory) -> Path:
    return support.audit_experiment(demo_dir, tmp_path_factory.mktemp("audit") / "audit")


@pytest.fixture(scope="session")
def answers_dir(audit_dir, tmp_path_factory) -> Path:
    return support.answers_experiment(audit_dir, tmp_path_factory.mktemp("answers") / "answers")


@pytest.fixture(scope="session")
def real_audit(tmp_path_factory):
    """examples/real-audit laid out with the real runs, in a data root of its own."""
    if support.IRDS_HOME is None:
        pytest.skip("real data not available")
    example = tmp_path_factory.mktemp("audit-data") / "real-audit"
    example.mkdir()
    source = support.ROOT / "examples" / "real-audit"
    for name in ("experiment.toml", "setup.py"):
        (example / name).write_bytes((source / name).read_bytes())
    subprocess.run(
        [sys.executable, str(example / "setup.py"), str(support.REALDATA)],
        check=True,
        capture_output=True,
    )
    return example


@pytest.fixture
def hashes_kept_at_once(monkeypatch):
    """Keep a file's hash however recently it changed (`io.digest.SETTLED_NS`), as for a
    file hashed long after its last change: then only its identity (its ctime) can tell an
    edit that kept its size and mtime, which is what a test of that must hold."""
    from leakeval_core.io import digest

    monkeypatch.setattr(digest, "SETTLED_NS", -(10**12))
    monkeypatch.setattr(digest, "_KNOWN", {})


@pytest.fixture
def served(monkeypatch):
    """The commands `leakeval app` would run, and their environments, instead of running
    them."""
    from leakeval_core.cli import dashboard

    calls = []
    monkeypatch.setattr(dashboard, "serve", lambda command, env: calls.append((command, env)) or 0)
    return calls


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test of the session (the app's and the docs'):
    Playwright's sync API runs one instance per thread, so a second one started while this
    lives would fail."""
    from playwright.sync_api import sync_playwright

    from tests.chromium import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
