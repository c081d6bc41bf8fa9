"""Architecture rules that a reviewer would otherwise have to remember."""

import ast
from pathlib import Path

import pytest

from tests.support import ROOT

CORE = ROOT / "leakeval_core"
MODULES = sorted(p for p in CORE.rglob("*.py"))

LAYERS = {
    "errors": 0,
    "lazy": 0,
    "io": 1,
    "evaluation": 2,
    "experiment": 3,
    "analysis": 4,
    "leakage": 4,
    "present": 5,
    "demo": 5,
    "api": 6,
    "cli": 7,
}
"""Imports run one way: a layer may import only lower layers (and itself)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_imports(path: Path) -> set[str]:
    """Every leakeval_core module a file imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("leakeval_core"):
                found.add(node.module)
                found.update(
                    f"{node.module}.{a.name}"
                    for a in node.names
                    if (
                        CORE
                        / node.module.removeprefix("leakeval_core").strip(".").replace(".", "/")
                        / f"{a.name}.py"
                    ).exists()
                )
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("leakeval_core"))
    return found


def imported_top_levels(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_core_module_has_a_layer():
    assert [module_name(p) for p in MODULES if layer(module_name(p)) is None] == ["leakeval_core"]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_imports_run_one_way(path):
    """A module imports only from its own layer's package or lower layers; packages on one
    layer (analysis, leakage) do not import each other."""
    mine = module_name(path)
    if layer(mine) is None:
        return  # the package root re-exports the public API lazily
    own = mine.split(".")[1]
    for other in core_imports(path):
        package = other.split(".")[1] if "." in other else None
        if package == own or package is None:
            continue
        assert layer(other) < layer(mine), f"{mine} imports {other} (a layer at or above it)"


def test_no_import_cycles():
    graph = {module_name(p): {m for m in core_imports(p)} for p in MODULES}
    graph = {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycle = [*trail[trail.index(dep) :], dep] if dep in trail else [node, dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, [*trail, dep])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_core_never_imports_streamlit():
    offenders = [p.name for p in MODULES if "streamlit" in imported_top_levels(p)]
    assert offenders == []


def test_core_never_unpickles_or_evals():
    for path in MODULES:
        assert "pickle" not in imported_top_levels(path), path
        calls = {
            n.func.id
            for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        assert not calls & {"eval", "exec"}, path


def test_no_test_imports_conftest():
    tests = ROOT / "tests"
    offenders = [
        p.relative_to(tests).as_posix()
        for p in tests.rglob("*.py")
        if "conftest" in imported_top_levels(p)
    ]
    assert offenders == []


DOORS = sorted(
    [
        ROOT / "app.py",
        *(ROOT / "app_pages").glob("*.py"),
        *(ROOT / "leakeval_app").rglob("*.py"),
        *(CORE / "cli").glob("*.py"),
    ]
)


@pytest.mark.parametrize("path", DOORS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_doors_reach_analysis_and_leakage_only_through_the_api(path):
    """The app and the CLI format what the API verbs return: a number they show has one
    path, so it cannot differ between them."""
    reached = {
        module
        for module in core_imports(path)
        if module.split(".")[1:2] in (["analysis"], ["leakage"])
    }
    assert reached == set(), f"{path.name} imports {sorted(reached)} around the API"


def importers_of(module: str, name: str) -> list[str]:
    """Files (core, app and tests aside) that import `name` from `module`."""
    found = []
    for path in sorted({*DOORS, *MODULES}):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == module
                and any(alias.name == name for alias in node.names)
            ):
                found.append(path.relative_to(ROOT).as_posix())
                break
    return found


def test_the_inflation_steps_exist_once():
    """Finding the leaked topics (pairs, threshold, the message when there are none) and
    splitting a gain by them is `api.inflation`'s alone: the app, the CLI, the Story and
    the report all call it."""
    assert importers_of("leakeval_core.analysis.inflation", "inflation") == [
        "leakeval_core/api/leakage.py"
    ]
    assert importers_of("leakeval_core.leakage.table", "leaked_qids") == [
        "leakeval_core/api/study.py"
    ]


APP = ROOT / "leakeval_app"
FIT = ROOT / "leakeval_fit"
PAGES = ROOT / "app_pages"
RUNTIME = sorted(
    [
        ROOT / "app.py",
        *MODULES,
        *APP.rglob("*.py"),
        *PAGES.glob("*.py"),
    ]
)
"""What a user's process runs: the core, the dashboard and its pages."""


@pytest.mark.parametrize("path", RUNTIME, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_runtime_never_imports_fitting_code(path):
    """Choosing and fitting detectors from labels (nested CV) is research code in
    `leakeval_fit`, for bench/ and the tests: the core, the app and the CLI run without it."""
    assert "leakeval_fit" not in imported_top_levels(path)


def test_the_doors_leave_no_fitting_module_loaded():
    """The CLI, every API name and the dashboard's modules import no fitting code, even
    lazily: a fresh interpreter resolves them all and finds no `leakeval_fit` module."""
    script = """
import importlib, pkgutil, sys
import leakeval_app, leakeval_core.cli
from leakeval_core import api
from leakeval_core.api import doors
for name in api.__all__:
    getattr(api, name)
for name in doors.__all__:
    getattr(doors, name)
for package in (leakeval_core.cli, leakeval_app):
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        if info.name.rsplit(".", 1)[1] not in ("__main__", "entry", "app_pages"):
            importlib.import_module(info.name)
print(sorted(m for m in sys.modules if m.split(".")[0] == "leakeval_fit"))
"""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "[]"


SHARED_NAMES = {
    "audit": (
        "the leakage audit: a model's per-topic gain over a baseline, leaked vs other topics",
        {"analysis", "cli", "pages"},
    ),
    "card": (
        "the contamination card: leakage and audit figures for a model card or a PR",
        {"present", "cli"},
    ),
    "leakage": (
        "which test topics have a near-duplicate in the training log",
        {"api", "cli", "pages"},
    ),
    "scoring": ("scoring runs against qrels, per query", {"evaluation", "api", "cli"}),
    "story": ("the Story: the leakage effect in one screen", {"present", "pages"}),
}
"""The only module names used twice: one idea each, mirrored across layers (the statistics,
the verb, the command, the page; a page's name is its URL)."""


def place(path: Path) -> str:
    """A module's layer: the core's subpackage, `pages`, `app` or `fit`."""
    parts = path.relative_to(ROOT).parts
    if parts[0] == "app_pages":
        return "pages"
    if parts[0] == "leakeval_core":
        return parts[1] if len(parts) > 2 else "core"
    return {"leakeval_app": "app", "leakeval_fit": "fit"}[parts[0]]


def test_one_module_name_one_idea():
    """Module names are unique across the core, the app, its pages and the fitting package,
    but for the layer mirrors named in SHARED_NAMES."""
    places: dict[str, set[str]] = {}
    for path in [*MODULES, *APP.rglob("*.py"), *FIT.rglob("*.py"), *PAGES.glob("*.py")]:
        if path.stem not in ("__init__", "__main__"):
            where = place(path)
            assert where not in places.get(path.stem, set()), f"two {path.stem}.py in {where}"
            places.setdefault(path.stem, set()).add(where)
    shared = {name: where for name, where in places.items() if len(where) > 1}
    assert shared == {name: where for name, (_, where) in SHARED_NAMES.items()}


def attributes_of(path: Path, module: str) -> set[str]:
    """Names a file reads from `module` (`module.name`, or `from ... import name`)."""
    tree = ast.parse(path.read_text())
    alias = module.rsplit(".", 1)[-1]
    found = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == alias
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == module:
            found.update(a.name for a in node.names)
    return found


def test_the_public_api_is_what_a_notebook_needs():
    """`leakeval_core.api.__all__` holds the verbs, the nouns and the terms; the views the
    pages cut from the same numbers are in `api.doors`, which only the doors use. Every name
    a door takes from either exists there, and every name in `doors` has a door using it."""
    from leakeval_core import api
    from leakeval_core.api import doors

    assert set(api.__all__).isdisjoint(doors.__all__)
    submodules = {p.stem for p in (CORE / "api").glob("*.py")}
    used = set()
    for path in sorted({*DOORS, *PAGES.glob("*.py")}):
        public = attributes_of(path, "leakeval_core.api") - submodules
        assert public <= set(api.__all__), f"{path.name} takes {public - set(api.__all__)}"
        helpers = attributes_of(path, "leakeval_core.api.doors")
        assert helpers <= set(doors.__all__), f"{path.name} takes {helpers - set(doors.__all__)}"
        used |= helpers
    assert set(doors.__all__) == used
    for path in MODULES:
        if place(path) not in ("api", "cli"):
            assert "leakeval_core.api.doors" not in core_imports(path), path


def _direction_reads(path: Path) -> list[int]:
    """Lines where code decides by a measure's direction: a comparison with the literals
    "higher" / "lower", or any read of `better` (an attribute or a name) but the value a
    record prints under the key "better" (the JSON's)."""
    tree = ast.parse(path.read_text())
    printed = {
        id(value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for key, value in zip(node.keys, node.values, strict=True)
        if isinstance(key, ast.Constant) and key.value == "better"
    }
    lines = []
    for node in ast.walk(tree):
        read = (isinstance(node, ast.Attribute) and node.attr == "better") or (
            isinstance(node, ast.Name) and node.id == "better"
        )
        said = isinstance(node, ast.Compare) and any(
            isinstance(part, ast.Constant) and part.value in ("higher", "lower")
            for part in ast.walk(node)
        )
        if (read and id(node) not in printed) or said:
            lines.append(node.lineno)
    return lines


DIRECTION_OWNERS = (CORE / "evaluation" / "direction.py", CORE / "evaluation" / "measures.py")
"""Where a direction is declared (`MeasureFamily.better`) and applied (`Direction`)."""


@pytest.mark.parametrize("path", RUNTIME, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_direction_is_applied_in_one_place(path):
    """Only `evaluation/direction.py` turns a raw difference into a gain and says which
    way is better; everything after works on gains (DESIGN: a direction is applied once).
    Elsewhere `better` is only printed, as a record's "better"."""
    if path in DIRECTION_OWNERS:
        return
    assert _direction_reads(path) == [], path.relative_to(ROOT).as_posix()
