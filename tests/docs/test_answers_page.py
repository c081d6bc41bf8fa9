"""The "Answers that leaked too" page runs as written.

Its `bash` blocks run in order as one script (`set -e`) in an empty folder, its `toml` block
written as the study's experiment.toml before the last one. The pairs file has a
shared_relevant for every pair, the card's counts add up to the judged topics, and the files
audit as the folder does.
"""

from __future__ import annotations

import csv
import json
import subprocess

import pytest

from tests.support import ROOT, commands_env, fenced

PAGE = ROOT / "docs" / "answers.md"
TEXT = PAGE.read_text()


def test_the_page_is_in_the_nav_and_the_index():
    assert "answers.md" in (ROOT / "mkdocs.yml").read_text()
    assert "(answers.md)" in (ROOT / "docs" / "index.md").read_text()


@pytest.mark.demo
def test_the_commands_run_and_count_every_judged_topic(tmp_path):
    env = commands_env(tmp_path / "bin")
    build, leakage, audit, folder = fenced(TEXT, "bash")
    (toml,) = fenced(TEXT, "toml")
    script = "\n".join(
        [
            "set -eu",
            build,
            leakage,
            audit,
            f"cat > study/experiment.toml <<'TOML'\n{toml}TOML",
            folder,
        ]
    )
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        ["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    with open(work / "study" / "pairs.csv") as fh:
        pairs = list(csv.DictReader(fh))
    assert pairs and all(p["shared_relevant"].isdigit() for p in pairs)
    assert any(int(p["shared_relevant"]) > 0 for p in pairs)
    assert "positive documents in train_qrels.tsv are judged in the test qrels" in done.stderr
    card = json.loads((work / "card.json").read_text())["collections"][0]
    kinds = [card[k] for k in ("answer-leaked", "query-leaked", "clean")]
    assert min(kinds) > 0 and sum(kinds) == card["topics"] == 50

    def rows(name: str) -> list[dict]:
        with open(work / name) as fh:
            return list(csv.DictReader(line for line in fh if not line.startswith("#")))

    by_files, by_folder = rows("answers-audit.csv"), rows("folder-audit.csv")
    assert by_files == by_folder
    assert {r["split"] for r in by_files} == {
        "answer-leaked vs clean",
        "query-leaked vs clean",
        "answer-leaked vs query-leaked",
    }
