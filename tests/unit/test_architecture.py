"""Architecture rules that a reviewer would otherwise have to remember."""

import ast
from pathlib import Path

import pytest

from tests.support import ROOT

CORE = ROOT / "leakeval_core"
MODULES = sorted(p for p in CORE.rglob("*.py"))

LAYERS = {
    "errors": 0,
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
