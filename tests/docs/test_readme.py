"""The README a researcher reads in a minute: short, and its commands run as written.

The Command line and Python sections run on the shipped real example (`examples/real-audit`,
laid out from ../shared/realdata in a temporary folder); the make targets it names exist.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from leakeval_core.cli import main
from tests import support
from tests.support import ROOT

README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_the_readme_is_at_most_200_lines():
    assert len(README.splitlines()) <= 200


def test_every_make_target_it_names_exists():
    makefile = (ROOT / "Makefile").read_text()
    named = set(re.findall(r"\bmake (\w+)", README))
    assert named, "the README names make targets"
    assert sorted(t for t in named if not re.search(rf"^{t}:", makefile, re.M)) == []


def test_it_names_the_docs_and_how_to_cite():
    for needed in ("make docs", "site/index.html", "CITATION.cff", "LICENSE", "../shared"):
        assert needed in README
    assert (ROOT / "CITATION.cff").exists() and (ROOT / "LICENSE").exists()


@pytest.fixture(scope="module")
def real_audit(tmp_path_factory):
    """The README's working folder: the real example laid out, `../shared` where it says."""
    if support.IRDS_HOME is None:
        pytest.skip(f"real data not available: {support.REALDATA}")
    root = tmp_path_factory.mktemp("readme")
    example = root / "examples" / "real-audit"
    shutil.copytree(
        ROOT / "examples" / "real-audit", example, ignore=shutil.ignore_patterns("runs")
    )
    subprocess.run(
        [sys.executable, str(example / "setup.py"), str(support.REALDATA)],
        check=True,
        capture_output=True,
    )
    return root


def commands(block: str) -> list[list[str]]:
    """The block's commands, continuation lines joined and comments dropped."""
    joined = block.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if line.strip()]


@pytest.mark.slow
def test_the_command_line_section_runs_as_written(real_audit, monkeypatch):
    monkeypatch.chdir(real_audit)
    (block,) = blocks(section("Command line"), "bash")
    ran = []
    for argv in commands(block):
        assert argv[0] == "leakeval"
        args = [a.replace("../shared", str(support.SHARED)) for a in argv[1:]]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(args)
        assert status == 0, (argv, err.getvalue())
        ran.append(argv[1])
    assert {"score", "audit", "compare"} <= set(ran)
    for written in ("scores.csv", "audit.json", "audit.csv", "report.html", "pairs.csv"):
        assert (real_audit / written).stat().st_size > 0, written


@pytest.mark.slow
def test_the_python_section_runs_as_written(real_audit, monkeypatch, capsys):
    monkeypatch.chdir(real_audit)
    (code,) = blocks(section("Python"), "python")
    code = code.replace("../shared", str(support.SHARED))
    exec(compile(code, "README.md (Python)", "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out
    assert "no evidence" in printed and "ndcg_cut_10" in printed


def test_the_own_runs_section_shows_the_audit_with_pairs_or_labels():
    text = section("Your own runs")
    assert "leakeval audit" in text and "--pairs" in text and "experiment.toml" in text
    flags = {f for line in blocks(text, "bash") for f in re.findall(r"--[\w-]+", line)}
    audit = subprocess.run(
        [sys.executable, "-m", "leakeval_core.cli", "audit", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert sorted(f for f in flags if f not in audit) == []
