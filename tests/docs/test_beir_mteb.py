"""The BEIR and MTEB page runs as written.

Its `bash` blocks run in order, as one bash script (`set -e`), from a folder beside a copy
of `examples/beir-mteb`, where `../shared` is the real data: the first block lays the example
out and enters it. `leakeval` and `python` are this interpreter's. Then the Python block that
imports `leakeval_core` runs in the example's folder; the MTEB block (it needs mteb and a
model) only shows how the predictions are made. The page's `experiment.toml` is the
example's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import support
from tests.support import ROOT

PAGE = ROOT / "docs" / "beir-mteb.md"
EXAMPLE = ROOT / "examples" / "beir-mteb"
TEXT = PAGE.read_text()


def blocks(language: str) -> list[str]:
    return support.fenced(TEXT, language)


def test_the_page_is_in_the_nav_and_shows_the_example_manifest():
    assert "beir-mteb.md" in (ROOT / "mkdocs.yml").read_text()
    (toml,) = blocks("toml")
    assert toml == (EXAMPLE / "experiment.toml").read_text()
    python = blocks("python")
    assert [b for b in python if "import mteb" in b] and [
        b for b in python if "import leakeval_core" in b
    ], "one block shows mteb saving predictions, one runs leakeval_core"


def test_its_flags_exist():
    """Every `--flag` a bash block gives is one of its command's."""
    from tests.docs.test_site import gen

    commands = {
        name: sub
        for action in gen.build_parser()._actions
        if hasattr(action, "choices") and isinstance(action.choices, dict)
        for name, sub in action.choices.items()
    }
    unknown, given = [], 0
    for block in blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            words = line.split("#")[0].split()
            if words[:1] == ["leakeval"]:
                known = commands[words[1]]._option_string_actions
                flags = [w for w in words if w.startswith("--")]
                given += len(flags)
                unknown += [w for w in flags if w not in known]
    assert given > 10 and unknown == []


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """The page's bash blocks, run: the example's folder afterwards."""
    if support.IRDS_HOME is None or not (support.REALDATA / "robust04" / "runs").exists():
        pytest.skip(f"real data not available: {support.REALDATA}")
    root = tmp_path_factory.mktemp("beir-mteb")
    work = root / "work"
    shutil.copytree(EXAMPLE, work / "examples" / "beir-mteb", ignore=_generated)
    (root / "shared").symlink_to(support.SHARED, target_is_directory=True)
    env = support.commands_env(root / "bin")
    script = "set -eu\n" + "\n".join(blocks("bash"))
    done = subprocess.run(
        ["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return work / "examples" / "beir-mteb", done


def _generated(folder: str, names: list[str]) -> list[str]:
    """What setup.py and the page's commands write: never copied from a reader's checkout."""
    keep = {"setup.py", "experiment.toml"}
    return [n for n in names if n not in keep] if Path(folder) == EXAMPLE else []


@pytest.mark.slow
def test_the_commands_run_and_write_the_cards(ran):
    folder, done = ran
    for written in ("pairs.csv", "pairs.csv.json", "audit.json", "card.md", "card.json"):
        assert (folder / written).stat().st_size > 0, written
    assert "Robust04_predictions " in done.stdout and "\nbm25 " in done.stdout  # scored
    card = json.loads((folder / "card.json").read_text())
    assert card["audit"] and card["audit"][0]["verdict"] in {
        "no evidence",
        "cannot tell",
    }, "BM25+RM3 never saw MS MARCO: the negative control finds nothing"
    (log,) = card["logs"]
    assert log["sample_of"] == "msmarco-document/train" and 0 < log["coverage"] < 1
    assert "lower bound" in (folder / "card.md").read_text()
    study = json.loads((folder / "card-experiment.json").read_text())
    assert [row["model"] for row in study["audit"]] == ["bm25-rm3"]
    assert study["collections"][0]["collection"] == "Robust04"


@pytest.mark.slow
def test_the_python_block_runs(ran, monkeypatch, capsys):
    folder, _ = ran
    monkeypatch.chdir(folder)
    (code,) = [b for b in blocks("python") if "import leakeval_core" in b]
    exec(compile(code, f"{PAGE.name} (Python)", "exec"), {"__name__": "beir_mteb"})
    printed = capsys.readouterr().out
    assert "ndcg_cut_10" in printed and "## Contamination card: bm25-rm3 on Robust04" in printed
