"""The caches key on the scoring code itself: a change to how a measure is computed gives
new keys for cached scores and prepared qrels, with no version constant to raise by hand,
and the same code gives the same keys."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from leakeval_core import api
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.experiment import digests
from leakeval_core.experiment.cache import Cache
from leakeval_core.experiment.digests import code_digest, scoring_code_digest
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.experiment.qrels_cache import KIND
from leakeval_core.experiment.scores import scores_key
from tests.support import write

EVALUATION = Path(digests.__file__).resolve().parents[1] / "evaluation"
MEASURE = "ndcg_cut_10"


@pytest.fixture
def code(tmp_path, monkeypatch) -> Path:
    """A copy of the evaluation package, made the scoring code the caches key on."""
    copy = tmp_path / "code" / "evaluation"
    shutil.copytree(EVALUATION, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(digests, "SCORING_CODE", (copy,))
    scoring_code_digest.cache_clear()
    yield copy
    scoring_code_digest.cache_clear()


def edit_a_measure(code: Path) -> str:
    """Change how nDCG discounts a rank (the computation, not a comment); returns the
    original text of the module."""
    native = code / "native.py"
    before = native.read_text()
    assert before.count("np.log2(") >= 1
    native.write_text(before.replace("np.log2(", "np.log10(", 1))
    scoring_code_digest.cache_clear()
    return before


def test_the_digest_is_the_code_not_where_it_lies(code):
    assert code_digest(code) == code_digest(EVALUATION)
    (code / "native.py").write_text((code / "native.py").read_text() + "\n")
    assert code_digest(code) != code_digest(EVALUATION)


def test_a_changed_computation_is_a_new_key_for_cached_scores(code, tmp_path):
    write(tmp_path / "t.txt", "1\tquery one\n")
    write(tmp_path / "q.txt", "1 0 d1 1\n")
    write(tmp_path / "runs/m/fold1.run", "1 Q0 d1 1 2.0 m\n")
    write(
        tmp_path / "experiment.toml",
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n'
        '[runs]\npattern = "runs/{model}/fold{fold}.run"\n',
    )
    experiment = load_experiment(tmp_path)
    before = scores_key(experiment, [MEASURE], Conventions())
    assert scores_key(experiment, [MEASURE], Conventions()) == before
    original = edit_a_measure(code)
    assert scores_key(experiment, [MEASURE], Conventions()) != before
    (code / "native.py").write_text(original)
    scoring_code_digest.cache_clear()
    assert scores_key(experiment, [MEASURE], Conventions()) == before


def test_a_changed_computation_prepares_the_qrels_again(code, tmp_path, monkeypatch):
    """Qrels kept by the old code are not read by the new; back to the old code, its entry
    is read again."""
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    write(tmp_path / "q.txt", "q1 0 d1 1\nq1 0 d2 0\n")
    write(tmp_path / "r.run", "q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\n")

    def entries() -> int:
        api.score(str(tmp_path / "q.txt"), {"r": str(tmp_path / "r.run")}, [MEASURE])
        return len(list((Cache().root / KIND).iterdir()))

    assert entries() == 1
    original = edit_a_measure(code)
    assert entries() == 2
    (code / "native.py").write_text(original)
    scoring_code_digest.cache_clear()
    assert entries() == 2
