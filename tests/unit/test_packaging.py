"""What the wheel carries: every package, the app laid out as in a checkout, and ranges for
its dependencies where the checkout has exact versions."""

from __future__ import annotations

import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support import ROOT

SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_the_wheel_lists_every_package_folder():
    """pyproject lists its packages (a mapped one cannot be found): a package folder added
    and not listed would be missing from the wheel."""
    folders = {
        init.parent.relative_to(ROOT).as_posix().replace("/", ".")
        for top in ROOT.glob("leakeval*")
        for init in top.rglob("__init__.py")
    }
    assert set(SETUPTOOLS["packages"]) == folders | {"leakeval_app.app_pages"}


def test_the_wheel_has_the_pages_beside_the_same_entry_file():
    """The wheel installs app_pages/ into leakeval_app/, beside leakeval_app/app.py: the
    checkout's app.py and app_pages/, so `leakeval app` serves what `streamlit run app.py`
    does."""
    assert SETUPTOOLS["package-dir"] == {"leakeval_app.app_pages": "app_pages"}
    assert (ROOT / "leakeval_app" / "app.py").read_bytes() == (ROOT / "app.py").read_bytes()


def requirements(name: str) -> dict[str, Requirement]:
    """A requirements file's requirements by normalized name; comments and options left out."""
    lines = (line.split("#")[0].strip() for line in (ROOT / name).read_text().splitlines())
    found = [Requirement(line) for line in lines if line and not line.startswith("-")]
    return {canonicalize_name(req.name): req for req in found}


def lower_bound(requirement: Requirement) -> str:
    return next(spec.version for spec in requirement.specifier if spec.operator == ">=")


def locked(lock: dict[str, Requirement], key: str) -> str:
    return next(iter(lock[key].specifier)).version


DECLARED = (
    "requirements.txt",
    "requirements-test.txt",
    "requirements-semantic.txt",
    "requirements-dask.txt",
    "requirements-docs.txt",
)
"""The files pyproject reads into the wheel's metadata (the runtime list and the extras)."""


def test_the_package_declares_ranges_and_the_checkout_locks_them():
    """pip install leakeval moves none of a researcher's packages that fit: each runtime
    dependency has a lower bound (the lower-bounds lane tests it) and no pin, and an upper
    bound only with its reason on its line. The checkout installs exact versions, one for
    every package the package names (constraints.txt), each inside its range."""
    runtime = requirements("requirements.txt")
    assert runtime
    for req in runtime.values():
        operators = {spec.operator for spec in req.specifier}
        assert ">=" in operators and "==" not in operators, req
    lock = requirements("constraints.txt")
    assert all([spec.operator for spec in req.specifier] == ["=="] for req in lock.values()), (
        "constraints.txt holds exact versions only"
    )
    for name in DECLARED:
        for key, req in requirements(name).items():
            pinned = locked(lock, key)
            assert req.specifier.contains(pinned, prereleases=True), (name, req, pinned)
    for name in DECLARED:
        for line in (ROOT / name).read_text().splitlines():
            if "<" in line.split("#")[0]:
                assert "#" in line, f"{name}: an upper bound without its reason: {line}"


def test_the_install_page_lists_the_tested_versions():
    """docs/install.md's table of tested versions is the ranges' lower bounds and the lock's
    versions, a row for every runtime dependency: a bound or a lock moved without the page
    would tell a researcher versions CI no longer tests."""
    rows = {}
    for line in (ROOT / "docs" / "install.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 4 and cells[1][:1].isdigit():
            rows[canonicalize_name(cells[0])] = (cells[1], cells[3])
    lock = requirements("constraints.txt")
    expected = {
        key: (lower_bound(req), locked(lock, key))
        for key, req in requirements("requirements.txt").items()
    }
    assert rows == expected
