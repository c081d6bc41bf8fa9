"""The docs site: reference pages generated from the code, figures from bench/results, and a
strict build that fetches nothing.

The generators live in docs/gen/leakeval_docs.py (the mkdocs hook); these tests import it by
path, as mkdocs does.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

DOCS = ROOT / "docs"


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "leakeval_docs", DOCS / "gen" / "leakeval_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def test_every_measure_of_the_registry_is_on_the_measures_page():
    from leakeval_core.evaluation import ir_names, measures

    page = gen.measures_page()
    missing = [f.name for f in measures.FAMILIES.values() if f"`{f.name}" not in page]
    missing += [name for name in ir_names.IR_MEASURES if f"`{name}" not in page]
    missing += [name for name in measures.ALL_TREC if f"`{name}`" not in page]
    assert missing == []


def _sections(page: str) -> dict[str, str]:
    """The CLI page's text under each `## `leakeval ...`` heading, by command path."""
    parts = re.split(r"^#{2,4} `(leakeval[^`]*)`$", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _walk(parser: argparse.ArgumentParser, path: str):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{path} {name}")


def test_every_subcommand_and_flag_is_on_the_cli_page():
    page = gen.cli_page()
    sections = _sections(page)
    missing = []
    for path, parser in _walk(gen.build_parser(), "leakeval"):
        if path not in sections:
            missing.append(path)
            continue
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            for name in action.option_strings or [action.dest]:
                if f"`{name}`" not in sections[path]:
                    missing.append(f"{path} {name}")
            if action.help and action.help is not argparse.SUPPRESS:
                first = action.help.split("%(")[0].split()[:4]
                if " ".join(first) not in " ".join(sections[path].split()):
                    missing.append(f"{path} {action.dest}: help")
    assert missing == []


def test_the_api_page_documents_every_name_of_the_api_where_it_is_defined():
    import importlib

    from leakeval_core import api

    page = gen.api_page()
    names = gen.api_names()
    assert [name for name, _ in names] == list(api.__all__)
    for name, identifier in names:
        assert f"::: {identifier}\n" in page
        module, _, attribute = identifier.rpartition(".")
        while module and attribute:  # a class member: walk down from the module
            try:
                target = importlib.import_module(module)
                break
            except ModuleNotFoundError:
                module, _, outer = module.rpartition(".")
                attribute = f"{outer}.{attribute}"
        obj = target
        for part in attribute.split("."):
            obj = getattr(obj, part)
        assert obj is getattr(api, name), identifier


def test_the_statistics_page_tables_every_declared_procedure():
    from leakeval_core.analysis import procedures

    page = (DOCS / "statistics.md").read_text()
    assert "{{ procedures }}" in page
    shown = gen.expand(page)
    for test in procedures.TESTS.values():
        assert f"| `{test.key}`" in shown
        assert test.paired.name in shown and test.two_sample.name in shown
    for method in procedures.INTERVALS.values():
        assert f"| `{method.key}`" in shown
        assert method.paired.kind in shown and method.two_sample.kind in shown
    many = procedures.MANY_SYSTEMS
    assert f"| {many.name} | {many.resamples:,} |" in shown and many.reference in shown


def test_the_module_layout_lists_every_module_with_its_docstring():
    layout = gen.modules_macro()
    for package in gen.PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.name in ("__init__.py", "__main__.py"):
                continue
            line = next(
                (
                    x
                    for x in layout.splitlines()
                    if f"`{path.name}`:" in x and gen.first_sentence(path.read_text()) in x
                ),
                None,
            )
            assert line is not None, path


def _numbers(data) -> list[float]:
    if isinstance(data, dict):
        return [n for v in data.values() for n in _numbers(v)]
    if isinstance(data, list):
        return [n for v in data for n in _numbers(v)]
    if isinstance(data, int | float) and not isinstance(data, bool):
        return [data]
    return []


def test_the_score_table_is_rendered_from_its_results_file():
    data = json.loads((gen.RESULTS / "score_bench.json").read_text())
    page = gen.expand("{{ bench score_bench }}")
    assert data["date"] in page and str(data["machine"]["cores"]) in page
    for tool in data["results"]["tools"]:
        row = next(line for line in page.splitlines() if line.startswith(f"| {tool['tool']}"))
        assert f"{tool['seconds']:.2f} s" in row and f"{tool['peak_mb']:.0f} MB" in row


@pytest.mark.parametrize("path", sorted(gen.RESULTS.glob("*.json")), ids=lambda p: p.stem)
def test_every_results_file_renders_with_its_date_and_machine(path):
    data = json.loads(path.read_text())
    assert {"bench", "date", "machine", "config", "results"} <= set(data), "bench/record.py"
    page = gen.expand(f"{{{{ bench {path.stem} }}}}")
    assert data["date"] in page
    assert "|" in page  # a table
    # every figure the table shows is one of the file's, as rounded
    shown = re.findall(r"(?<![\w.])[-−+]?\d[\d,]*\.\d+(?![.\d])", page.split("\n", 1)[1])
    figures = _numbers(data["results"])
    for text in shown:
        value = float(text.replace(",", "").replace("−", "-"))
        decimals = len(text.split(".")[1])
        assert any(
            abs(value - f) <= 0.5 * 10**-decimals + 1e-12
            or abs(value - 100 * f) <= 0.5 * 10**-decimals + 1e-12
            or abs(value - 1000 * f) <= 0.5 * 10**-decimals + 1e-12
            for f in figures
        ), (path.name, text)


UNITS = re.compile(r"(?<![\w.])\d[\d,]*(\.\d+)?\s?(ms|s|MB|GB|h|queries/s)(?!\w)")
SETTINGS = ("1 MB", "4 MB", "8 MB")
"""Sizes that are settings the code applies (glibc's mmap threshold, the blocks jemalloc
keeps, the heap top kept), not measured figures."""


def _prose(path: Path):
    """The lines of a page outside code blocks, with its macros removed."""
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "", gen.MACRO.sub("", line))


@pytest.mark.parametrize(
    "path", [*sorted(DOCS.glob("*.md")), ROOT / "README.md"], ids=lambda p: p.name
)
def test_no_measured_figure_is_typed_by_hand(path):
    """Times, sizes and rates in the written pages come from bench/results through
    the macros; a figure with a unit typed into a page (a table row or prose) fails."""
    typed = [
        f"{path.name}:{number}: {match[0]}"
        for number, line in _prose(path)
        for match in UNITS.finditer(line)
        if match[0] not in SETTINGS
    ]
    assert typed == []


def test_macros_fail_loudly_rather_than_leave_a_hole():
    with pytest.raises(gen.DocsError):
        gen.expand("{{ nonsense }}")
    with pytest.raises(gen.DocsError):
        gen.expand("{{ value no_such_bench results/x }}")
    assert "Not measured" in gen.expand("{{ bench no_such_bench }}")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """`make docs`: mkdocs build --strict into a temporary folder, with every proxy pointing
    nowhere so that a fetch would fail."""
    mkdocs = Path(sys.executable).parent / "mkdocs"
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (the docs extra)")
    dead = "http://127.0.0.1:9"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "http_proxy": dead,
        "https_proxy": dead,
        "NO_PROXY": "",
    }
    site = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "-d", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return site


def test_the_site_builds_strict_and_offline(site):
    """The pages exist, mkdocstrings rendered the docstrings, and no page loads a script, a
    style, a font or an image from outside the site."""
    for page in ("index.html", "reference/cli.html", "reference/measures.html"):
        assert (site / page).exists(), page
    fetched = re.compile(
        r"""<(?:script|link|img|iframe|source)\b[^>]*?(?:src|href)=["'](?:https?:)?//"""
    )
    outside = [
        f"{html.relative_to(site)}: {m[0]}"
        for html in site.rglob("*.html")
        for m in fetched.finditer(html.read_text())
    ]
    assert outside == []
    api = (site / "reference" / "api.html").read_text()
    assert "doc-function" in api or "doc-class" in api  # mkdocstrings rendered the docstrings


@pytest.mark.browser
def test_viewing_the_site_fetches_nothing(site, browser):
    """Opened from disk in Chromium, the pages request only files of the site."""
    requested = []
    page = browser.new_page()
    page.on("request", lambda request: requested.append(request.url))
    for name in ("index.html", "performance.html", "reference/api.html"):
        page.goto((site / name).as_uri())
        page.wait_for_load_state("networkidle")
    page.close()
    assert requested and [u for u in requested if not u.startswith(("file:", "data:"))] == []


def test_the_conventions_page_states_the_scoring_warnings_thresholds_as_declared():
    from leakeval_core.evaluation.scoring_warnings import (
        JUDGED_BELOW,
        JUDGED_TOP,
        MISMATCH_BELOW,
        SHARED_BELOW,
    )

    page = (DOCS / "conventions.md").read_text()
    section = page.split("## No silent zero", 1)[1].split("\n## ", 1)[0]
    said = " ".join(section.replace("**", "").split())
    assert (
        f"fewer than {JUDGED_BELOW:.0%} of the documents it ranks in its top {JUDGED_TOP}" in said
    )
    assert f"fewer than {MISMATCH_BELOW:.0%} of its top {JUDGED_TOP} judged" in said
    assert f"fewer than {SHARED_BELOW:.0%} of the distinct documents it ranks" in said


def test_the_contributing_page_names_only_files_and_functions_that_exist():
    """The map of where a number comes from follows the code: each file it names exists
    (under the repository or `leakeval_core/`), each function it names with its file
    ("`file.py`, `name`", "`file.py`'s `name`", "`name` in `file.py`") is defined there, and
    the scoring code it lists is what the caches key on."""
    from leakeval_core.experiment.digests import SCORING_CODE

    def found(name: str) -> Path:
        paths = (ROOT / name, ROOT / "leakeval_core" / name)
        path = next((p for p in paths if p.is_file()), None)
        assert path is not None, name
        return path

    text = (DOCS / "contributing.md").read_text().replace("\n", " ")
    for name in re.findall(r"`([\w/]+\.py)`", text):
        found(name)
    pairs = re.findall(r"`([\w/]+\.py)`(?:,|'s) `(\w+)`", text)
    pairs += [(f, n) for n, f in re.findall(r"`(\w+)` in `([\w/]+\.py)`", text)]
    assert len(pairs) >= 10
    for name, function in pairs:
        source = found(name).read_text()
        assert re.search(rf"^\s*(def|class) {function}\b|^{function} =", source, re.M), (
            name,
            function,
        )
    page = gen.expand(text)
    for path in SCORING_CODE:
        assert path.relative_to(ROOT).as_posix() in page
