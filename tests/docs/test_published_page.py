"""The "Audit published results" page runs as written.

Its `bash` blocks run in order as one script (`set -e`) in an empty folder, its `toml` block
written as the campaign's experiment.toml before the last one; `leakeval` is this
interpreter's. The two audits it writes, of the files and of the folder, are one audit.
"""

from __future__ import annotations

import csv
import subprocess

import pytest

from tests.support import ROOT, commands_env, fenced

PAGE = ROOT / "docs" / "published.md"
TEXT = PAGE.read_text()


def blocks(language: str) -> list[str]:
    return fenced(TEXT, language)


def test_the_page_is_in_the_nav():
    assert "published.md" in (ROOT / "mkdocs.yml").read_text()


@pytest.mark.demo
def test_the_commands_run_and_the_files_audit_as_the_folder(tmp_path):
    env = commands_env(tmp_path / "bin")
    first, files, folder = blocks("bash")
    (toml,) = blocks("toml")
    script = "\n".join(
        ["set -eu", first, files, f"cat > campaign/experiment.toml <<'TOML'\n{toml}TOML", folder]
    )
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        ["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    published = (work / "campaign" / "runs" / "monot5-leaked.eval").read_text()
    assert published.startswith("ndcg_cut_10\tall\t") and "\nP_10\t307\t" in published
    assert "published" not in done.stderr  # every all line is its queries' mean

    def rows(name: str) -> list[dict]:
        with open(work / name) as fh:
            return list(csv.DictReader(line for line in fh if not line.startswith("#")))

    by_files, by_folder = rows("files-audit.csv"), rows("folder-audit.csv")
    assert by_files == by_folder  # one name for the system column too
    assert [r["system"] for r in by_files] == ["colbert-leaked", "monot5-leaked", "monot5-none"]
