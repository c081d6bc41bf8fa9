"""An audit of published per-query evaluations is the audit of the runs they came from.

The evaluations are made as a campaign publishes them: pytrec_eval (trec_eval's C code) on
Robust04's real BM25 and BM25+RM3 runs, written as `trec_eval -q` prints them (a run tag,
per-query lines, rounded `all` lines, num_q), the values at full precision.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from leakeval_core.cli import main
from leakeval_core.io import trec
from tests.support import ROOT, published_experiment, realdata

MEASURES = ("ndcg_cut_10", "P_10", "map")


def trec_eval_q(name: str, values: dict[str, dict[str, float]]) -> str:
    lines = [f"runid\tall\t{name}"]
    lines += [f"{m:<20}\t{q}\t{v[m]!r}" for q, v in values.items() for m in MEASURES]
    lines += [
        f"{m:<20}\tall\t{statistics.fmean(v[m] for v in values.values()):.4f}" for m in MEASURES
    ]
    lines.append(f"num_q               \tall\t{len(values)}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """The runs, their evaluations, and the study's judged Robust04 pairs and topics."""
    import pytrec_eval

    qrels = realdata("robust04", "qrels.txt")
    folds = sorted(realdata("robust04", "runs").glob("bm25.top150.fold*.run"))
    if not (ROOT / "examples" / "real-audit" / "judged-pairs.csv").exists():
        pytest.skip("examples/real-audit/judged-pairs.csv is not laid out")
    root = tmp_path_factory.mktemp("published")
    runs = {
        "bm25": "".join(p.read_text() for p in folds),
        "bm25-rm3": realdata("robust04", "runs", "bm25-rm3.top1000.run").read_text(),
    }
    judged: dict[str, dict[str, int]] = {}
    for q, d, g in trec.read_qrels(qrels).itertuples(index=False):
        judged.setdefault(q, {})[d] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut", "P", "map"})
    for name, text in runs.items():
        (root / f"{name}.run").write_text(text)
        ranked: dict[str, dict[str, float]] = {}
        for q, d, s in trec.read_run(root / f"{name}.run").itertuples(index=False):
            ranked.setdefault(q, {})[d] = float(s)
        (root / f"{name}.eval").write_text(trec_eval_q(name, evaluator.evaluate(ranked)))
    for name in ("judged-pairs.csv", "judged-topics.csv"):  # Robust04's and Core 2018's
        (root / name).write_bytes((ROOT / "examples" / "real-audit" / name).read_bytes())
    return root, qrels


def audit(root: Path, *inputs: str, measure: str) -> tuple[str, str]:
    out, figures = root / "audit.csv", root / "audit.json"
    assert main(
        [
            "audit", *inputs, "--pairs", str(root / "judged-pairs.csv"),
            "--covers", str(root / "judged-topics.csv"),
            "--measure", measure, "--out", str(out), "--json", str(figures),
        ]
    ) == 0  # fmt: skip
    return out.read_text(), figures.read_text()


@pytest.mark.parametrize("measure", ["ndcg_cut_10", "P_10", "P@10"])
def test_the_audit_of_published_evaluations_is_the_runs_audit(published, measure, capsys):
    root, qrels = published
    evaluations = audit(
        root,
        "--run", str(root / "bm25-rm3.eval"), "--baseline", str(root / "bm25.eval"),
        "--collection", "robust04",  # the study's pairs are of two collections
        measure=measure,
    )  # fmt: skip
    said = capsys.readouterr().err
    assert "published" not in said  # every `all` line is the mean of its queries
    runs = audit(
        root,
        "--qrels", str(qrels),
        "--run", str(root / "bm25-rm3.run"), "--baseline", str(root / "bm25.run"),
        measure=measure,
    )  # fmt: skip
    assert evaluations == runs  # every digit, every figure of the JSON
    assert "robust04,bm25-rm3,bm25,leaked,85,39," in runs[0]


def test_the_collection_of_evaluations_is_named_where_the_pairs_name_several(published, capsys):
    root, _ = published
    given = ["audit", "--run", str(root / "bm25-rm3.eval"), "--baseline", str(root / "bm25.eval")]
    assert main([*given, "--pairs", str(root / "judged-pairs.csv")]) == 2
    assert capsys.readouterr().err == (
        "leakeval: leakage: the pairs are of collections core18, robust04, none of them "
        "'collection': name the collection (--collection, collection= in Python)\n"
    )


def test_map_as_published_is_trec_eval_s_at_its_own_depth(published, capsys):
    """leakeval scores the runs at depth 100 by default; the published MAP was computed on
    the whole top 1000, and is taken as it is: the two audits differ, as they should."""
    root, qrels = published
    evaluations, _ = audit(
        root,
        "--run", str(root / "bm25-rm3.eval"), "--baseline", str(root / "bm25.eval"),
        "--collection", "robust04",
        measure="map",
    )  # fmt: skip
    runs, _ = audit(
        root,
        "--qrels", str(qrels),
        "--run", str(root / "bm25-rm3.run"), "--baseline", str(root / "bm25.run"),
        measure="map",
    )  # fmt: skip
    assert evaluations != runs
    assert main(["audit", "--run", str(root / "bm25-rm3.eval"), "--baseline",
                 str(root / "bm25.eval"), "--pairs", str(root / "judged-pairs.csv"),
                 "--depth", "1000"]) == 2  # fmt: skip
    assert "bm25-rm3.eval: its values were computed by whoever published them, so depth 1000" in (
        capsys.readouterr().err
    )


@pytest.mark.demo
def test_an_experiment_of_evaluations_with_or_without_qrels_audits_as_its_runs(audit_dir, tmp_path):
    """The audit experiment's runs, its trec_eval -q files beside its qrels, and the same
    files with topics alone: one audit, to every digit."""
    tables = []
    for name, source in [
        ("runs", audit_dir),
        ("with", published_experiment(audit_dir, tmp_path / "with")),
        ("without", published_experiment(audit_dir, tmp_path / "without", qrels=False)),
    ]:
        out = tmp_path / f"{name}.csv"
        assert main(["audit", str(source), "--measure", "P_10", "--out", str(out)]) == 0
        tables.append(out.read_text())
    assert tables[0] == tables[1] == tables[2]
    assert "core17,t5-leaked,bm25,leaked,31,19," in tables[0]


@pytest.mark.demo
def test_a_published_mean_that_is_not_its_queries_is_a_warning_on_every_figure(audit_dir, tmp_path):
    from leakeval_core import api

    folder = published_experiment(audit_dir, tmp_path / "published", qrels=False)
    bm25 = folder / "runs" / "bm25.eval"
    lines = bm25.read_text().splitlines()
    shifted = [
        ln.replace("\tall\t", "\tall\t9") if ln.startswith("P_10\tall") else ln for ln in lines
    ]
    bm25.write_text("\n".join(shifted) + "\n")
    warnings = api.experiment_scores(folder, ["P_10"]).scoring_warnings()
    (said,) = [w for w in warnings if "published" in w]
    assert said.startswith("bm25.eval: its published P@10 (9")
    assert "is not the mean of its 50 queries" in said
    assert said in api.audit(folder, measure="P_10").scoring_warnings


@pytest.mark.demo
def test_a_collections_declared_level_is_how_its_values_were_published_not_a_request(
    audit_dir, tmp_path, capsys
):
    """A collection that declares its own relevance level (TREC DL's official 2) scores its
    runs there; its published values are taken as they are, not refused as a request to
    recompute them. A level the reader asks for still is."""
    folder = published_experiment(audit_dir, tmp_path / "published")
    toml = folder / "experiment.toml"
    toml.write_text(
        toml.read_text().replace(
            'qrels = "qrels.txt"\n', 'qrels = "qrels.txt"\nrelevance_level = 2\n'
        )
    )
    assert main(["audit", str(folder), "--measure", "P_10", "--out", str(tmp_path / "a.csv")]) == 0
    assert "core17,t5-leaked,bm25,leaked,31,19," in (tmp_path / "a.csv").read_text()
    capsys.readouterr()
    assert main(["audit", str(folder), "--measure", "P_10", "--rel", "3"]) == 2
    assert "computed by whoever published them, so relevance level 3" in capsys.readouterr().err
