"""Architecture rules that a reviewer would otherwise have to remember."""

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "leakeval_core"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_streamlit():
    offenders = [p.name for p in CORE.glob("*.py") if "streamlit" in imported_modules(p)]
    assert offenders == []


def test_core_never_unpickles_or_evals():
    for path in CORE.glob("*.py"):
        source = path.read_text()
        assert "pickle" not in imported_modules(path), path
        tree = ast.parse(source)
        calls = {
            n.func.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        assert not calls & {"eval", "exec"}, path
