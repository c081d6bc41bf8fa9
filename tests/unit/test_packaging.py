"""What the wheel carries: every package, and the app laid out as in a checkout."""

from __future__ import annotations

import tomllib

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
