"""The LaTeX tables compile with pdflatex as they are, and fit the page: Debian's TeX is
installed by .ci/run; where it is absent the tests skip and say so."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from leakeval_core.cli import main

PDFLATEX = shutil.which("pdflatex")
pytestmark = [
    pytest.mark.demo,
    pytest.mark.skipif(
        PDFLATEX is None,
        reason="pdflatex is not installed (apt-get install texlive-latex-base "
        "texlive-latex-recommended)",
    ),
]
DOCUMENT = r"""\documentclass{article}
\usepackage[a4paper,margin=2.5cm]{geometry}
\usepackage{booktabs}
\begin{document}
%s
\end{document}
"""


def compiles(table: str, tmp_path) -> str:
    source = tmp_path / "paper.tex"
    source.write_text(DOCUMENT % table, encoding="ascii")  # ASCII: pdflatex's own
    done = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", source.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert done.returncode == 0, log[-2000:]
    return log


@pytest.mark.parametrize("command", ["compare", "inflation"])
def test_the_latex_tables_compile_and_fit_the_page(
    command, demo_dir, demo_cache, tmp_path, monkeypatch
):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    out = tmp_path / "table.tex"
    assert main([command, str(demo_dir), "--format", "latex", "--out", str(out)]) == 0
    table = out.read_text(encoding="utf-8")
    assert table.isascii()
    log = compiles(table, tmp_path)
    assert "Overfull \\hbox" not in log, "the table is wider than the text"
