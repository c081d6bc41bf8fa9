"""One definition of leaked, every path: an experiment folder, a pairs file `leakeval leakage`
wrote, inline detection in `leakeval audit`, and the API flag the same Robust04 topics in the
real 18k MS MARCO sample, at lexical's own threshold. The study's labels TSV is accepted as
pairs, repeated --pairs are a union, and a broken pairs file is named at its line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from leakeval_core import api
from leakeval_core.api.study import RunSet
from leakeval_core.api.terms import DetectionOptions
from leakeval_core.api.view import View
from leakeval_core.cli import main
from tests.support import realdata, shared, write

pytestmark = pytest.mark.detection

LABELS = ("labels", "spire22-near-duplicates.dev.tsv")


@pytest.fixture(scope="module")
def robust(tmp_path_factory):
    """Robust04's topics, qrels, BM25 (its five folds joined) and BM25+RM3 runs, and the
    MS MARCO sample, laid out as an experiment that detects in the sample."""
    root = tmp_path_factory.mktemp("one-rule")
    folds = sorted(realdata("robust04", "runs").glob("bm25.top150.fold*.run"))
    write(root / "runs" / "bm25.run", "".join(p.read_text() for p in folds))
    rm3 = realdata("robust04", "runs", "bm25-rm3.top1000.run")
    (root / "runs" / "rm3.run").symlink_to(rm3)
    log = realdata("msmarco", "doctrain-queries.sample.csv")
    write(
        root / "experiment.toml",
        f'[collections.robust04]\ntopics = "{realdata("robust04", "topics.txt")}"\n'
        f'qrels = "{realdata("robust04", "qrels.txt")}"\n'
        f'[training_queries]\npath = "{log}"\nsample_of = "msmarco-document/train"\n'
        '[leakage]\nmethod = "lexical"\n[runs]\npattern = "runs/{model}.run"\n'
        '[design]\nsystem = "model"\nbaseline = "bm25"\n',
    )
    return root


def detect_lexically() -> list[str]:
    """The flags that detect Robust04's topics lexically in the real MS MARCO sample."""
    return [
        "--topics",
        str(realdata("robust04", "topics.txt")),
        "--train-queries",
        str(realdata("msmarco", "doctrain-queries.sample.csv")),
        "--method",
        "lexical",
    ]


@pytest.fixture(scope="module")
def pairs_file(robust):
    """The pairs `leakeval leakage --method lexical` writes, with its sidecar."""
    out = robust / "pairs.csv"
    code = main(
        [
            "leakage",
            *detect_lexically(),
            "--sample-of",
            "msmarco-document/train",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    return out


def audit_argv(robust, *leakage: str) -> list[str]:
    """`leakeval audit` of the real RM3 run against BM25 on Robust04, with this leakage."""
    return [
        "audit",
        "--qrels",
        str(realdata("robust04", "qrels.txt")),
        "--run",
        str(robust / "runs" / "rm3.run"),
        "--baseline",
        str(robust / "runs" / "bm25.run"),
        *leakage,
    ]


def audit_cli(robust, tmp_path, *leakage: str) -> dict:
    out = tmp_path / "audit.json"
    assert main([*audit_argv(robust, *leakage), "--json", str(out)]) == 0
    return json.loads(out.read_text())


def leaked_in(result: dict) -> int:
    """Leaked topics of the audit's one row (one model, split by leakage alone)."""
    (row,) = result["audit"]
    return row["leaked_topics"]


def runs(robust) -> tuple[str, dict[str, str]]:
    models = {m: str(robust / "runs" / f"{m}.run") for m in ("bm25", "rm3")}
    return str(realdata("robust04", "qrels.txt")), models


def test_four_paths_flag_the_same_topics(robust, pairs_file, tmp_path):
    view = View()
    study = api.Study.open(robust)
    folder = set(study.leaked(view).qid)
    written = pd.read_csv(pairs_file, dtype={"test_qid": str})
    marked = set(written.test_qid[written.near_duplicate])
    assert len(folder) == 9
    assert folder == marked  # what `leakeval leakage` marked near_duplicate
    assert study.threshold(view) == pytest.approx(0.691)

    qrels, models = runs(robust)
    from_file = RunSet(qrels, models, leakage=str(pairs_file))
    assert set(from_file.leaked(view).qid) == folder
    frame = api.detect_leakage(
        str(realdata("robust04", "topics.txt")),
        str(realdata("msmarco", "doctrain-queries.sample.csv")),
        DetectionOptions(method="lexical"),
    )
    assert set(RunSet(qrels, models, leakage=frame).leaked(view).qid) == folder
    result = api.audit(qrels, models, baseline="bm25", leakage=frame)
    assert result.table.leaked_topics.iloc[0] == 9

    assert leaked_in(audit_cli(robust, tmp_path, "--pairs", str(pairs_file))) == 9
    inline = audit_cli(robust, tmp_path, *detect_lexically())
    assert leaked_in(inline) == 9


def test_every_path_states_the_rule_and_warns_of_the_sample(robust, pairs_file):
    view = View()
    # the count is of the topics the audit scores: 672 has no relevant document, so the
    # folder (which knows the topic) and the files (whose qrels never name it) say 249
    rule = "9 leaked of 249 judged topics: lexical similarity ≥ 0.691"
    study = api.Study.open(robust)
    assert study.leaked_rule(view) == {
        "robust04": rule.replace("topics:", "topics (672 has no relevant document):")
    }
    qrels, models = runs(robust)
    from_file = RunSet(qrels, models, leakage=str(pairs_file))
    assert from_file.collection_name == "robust04"  # named after realdata/robust04/
    assert from_file.leaked_rule(view) == {"robust04": rule}
    (row,) = api.audit(study, baseline="bm25", view=view).table.itertuples()
    assert row.leaked_topics + row.other_topics == 249
    for source in (study, from_file):
        sample, share = source.leakage_warnings(view)
        assert sample == (
            "The training log holds 18,093 queries, 4.9% of msmarco-document/train "
            "(367,013): topics leaked in the full log may be missed."
        )
        assert share.startswith("4% of robust04's topics are flagged, against 69% in Fröbe")
    assert study.leaked_rule(View(threshold=1.0)) == {
        "robust04": "0 leaked of 249 judged topics (672 has no relevant document): no pair "
        "reaches lexical similarity ≥ 1"
    }


def test_the_labels_tsv_passes_as_pairs_and_repeated_pairs_are_a_union(
    robust, pairs_file, tmp_path
):
    labels = str(shared(*LABELS))
    assert leaked_in(audit_cli(robust, tmp_path, "--pairs", labels)) == 85
    both = audit_cli(robust, tmp_path, "--pairs", str(pairs_file), "--pairs", labels)
    assert leaked_in(both) == 90
    qrels, models = runs(robust)
    union = RunSet(qrels, models, leakage=[str(pairs_file), labels])
    assert union.leaked_rule(View()) == {
        "robust04": "90 leaked of 249 judged topics: human-judged pairs or lexical similarity "
        "≥ 0.691"
    }
    # a threshold in the View moves the detected pairs, never a judgment
    strict = union.leaked_rule(View(threshold=1.0))["robust04"]
    assert strict.startswith("85 leaked of 249 judged topics: ")


def test_a_broken_pairs_file_is_named_at_its_line(robust, tmp_path, capsys):
    broken = write(tmp_path / "pairs.csv", "test_qid,similarity\n301,0.9\n302,high\n")
    assert main(audit_argv(robust, "--pairs", str(broken))) == 2
    assert capsys.readouterr().err.strip() == (
        f"leakeval: {broken}:3: similarity 'high' is not a number"
    )
