"""Detection measured against people: the labelled-pairs format, the figures, the fit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from leakeval_core.cli import main
from leakeval_core.errors import ParseError
from leakeval_core.leakage.detection_options import THRESHOLDS, available_methods, encoder_of
from leakeval_core.leakage.detection_quality import (
    at_threshold,
    evaluate_detection,
    labelled_scores,
    recall_threshold,
)
from leakeval_core.leakage.labels import read_labels
from tests.support import needs_encoder, shared, write

pytestmark = pytest.mark.detection  # `make check` leaves these out


HEADER = (
    "topic\ttitle\tdescription\tnarrative\tvariant\ttrain_qid\ttrain_text\t"
    "title_relation\tvariant_relation\tnear_duplicate\n"
)


def dev_labels():
    return read_labels(shared("labels", "spire22-near-duplicates.dev.tsv"))


def test_recall_threshold_keeps_the_asked_share():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.1])
    positive = np.array([1, 1, 1, 1, 0, 0], bool)
    assert recall_threshold(scores, positive, 0.75) == 0.7  # 0.9, 0.8, 0.7: 3 of 4
    assert recall_threshold(scores, positive, 1.0) == 0.6


@pytest.mark.parametrize(
    "row, line, message",
    [
        ("301\tt\td\tn\tv\t9\tq\tsimilar\t\t1\n", 2, "title_relation 'similar' is not one of"),
        ("301\tt\td\tn\tv\t9\tq\tidentical\t\t2\n", 2, "near_duplicate '2' is not 0 or 1"),
        ("301\tt\td\tn\tv\t9\tq\tdifferent\t\t1\n", 2, "contradicts title_relation"),
        ("999\tt\td\tn\tv\t9\tq\tidentical\t\t1\n", 2, "topic '999' is not in the topics file"),
    ],
)
def test_bad_labels_name_the_line(tmp_path, row, line, message):
    path = write(tmp_path / "labels.tsv", HEADER + row)
    topics = pd.DataFrame({"qid": ["301"]})
    with pytest.raises(ParseError, match=message) as error:
        read_labels(path, topics)
    assert error.value.line == line and error.value.path == str(path)


def test_missing_columns_are_a_clear_error(tmp_path):
    path = write(tmp_path / "labels.tsv", "topic\ttrain_text\n301\tq\n")
    with pytest.raises(ParseError, match=r"labels\.tsv:1: labels lack column\(s\) title"):
        read_labels(path)


def test_lexical_figures_by_hand(tmp_path):
    """Three topics, a tiny labelled set: the figures agree with sklearn on the similarities
    the evaluation reports, and the threshold keeps 90% of the near-duplicates."""
    rows = [
        "1\tsolar panels\t\t\t\t11\tsolar panels\tidentical\t\t1\n",
        "1\tsolar panels\t\t\t\t12\tsolar panel cost\tspecialization\t\t1\n",
        "1\tsolar panels\t\t\t\t13\tsolar system\tdifferent\t\t0\n",
        "2\twind farms\t\t\t\t21\twind farm\tidentical\t\t1\n",
        "2\twind farms\t\t\t\t22\tcheap farms\tdifferent\t\t0\n",
        "3\tbear attacks\t\t\t\t31\tbear attacks alaska\tspecialization\t\t1\n",
    ]
    labels = read_labels(write(tmp_path / "l.tsv", HEADER + "".join(rows)))
    q = evaluate_detection(labels, "lexical", folds=3)
    y, s = q.scored.near_duplicate.to_numpy(), q.scored.similarity.to_numpy()
    assert q.roc_auc == pytest.approx(roc_auc_score(y, s))
    assert q.pr_auc == pytest.approx(average_precision_score(y, s))
    assert s[0] == pytest.approx(1.0) and q.scored.category.iloc[0] == "identical"
    assert q.threshold == recall_threshold(s, y == 1, 0.9)
    assert (s[y == 1] >= q.threshold).mean() >= 0.9
    assert q.category_agreement == 1.0  # identical, specialization x2, identical
    assert at_threshold(q, 0.0)["recall"] == 1.0


def test_real_labels_each_method_and_shipped_thresholds():
    needs_encoder()
    labels = dev_labels()
    assert len(labels.table) == 411 and labels.table.near_duplicate.sum() == 372
    results = {m: evaluate_detection(labels, m) for m in available_methods()}
    for method, q in results.items():
        assert q.threshold == pytest.approx(THRESHOLDS[method], abs=5e-4), method
        assert q.category_agreement >= 0.80, method
    # each hybrid beats its encoder's cosine; its figures are out of fold (grouped by topic)
    assert results["hybrid"].cross_validated
    assert results["hybrid"].roc_auc > results["semantic"].roc_auc > results["lexical"].roc_auc
    assert results["hybrid"].rejected_at_90 > results["semantic"].rejected_at_90
    # grouped CV of the shipped signals, chosen on these labels, so optimistic: the docs
    # quotes the nested figure (bench/detection_bench.py --nested); this guards the machinery
    if "hybrid-mpnet" in results:
        best = results["hybrid-mpnet"]
        assert best.roc_auc >= 0.85
        assert best.roc_auc >= results["semantic"].roc_auc + 0.03
        assert best.rejected_at_90 >= 0.50
        assert best.roc_auc > results["hybrid"].roc_auc > results["semantic-mpnet"].roc_auc


@pytest.mark.parametrize("method", ["hybrid", "hybrid-mpnet"])
def test_fit_on_four_folds_score_the_fifth(method):
    """The issue's weaker form of the quality bar: a model fitted on four folds of topics
    scores the fifth, and the pooled held-out AUC is at least 0.80. The shipped model is the
    fit on every pair."""
    needs_encoder(encoder_of(method))
    from sklearn.model_selection import GroupKFold

    from leakeval_core.leakage import hybrid
    from leakeval_core.leakage.similarity import match

    side, pairs, lexical = labelled_scores(dev_labels())
    features = hybrid.pair_features(match(side.table, pairs, method, lexical), side.topics, pairs)
    y = pairs.near_duplicate.to_numpy()
    held_out = np.zeros(len(y))
    for train, test in GroupKFold(5).split(features, y, pairs.test_qid):
        held_out[test] = hybrid.score(
            features.iloc[test], hybrid.fit(features.iloc[train], y[train])
        )
    assert roc_auc_score(y, held_out) >= 0.80
    refit, shipped = hybrid.fit(features, y), hybrid.MODELS[encoder_of(method)]
    for name in ("mean", "scale", "weights"):
        assert getattr(refit, name) == pytest.approx(getattr(shipped, name), abs=1e-4)
    assert refit.intercept == pytest.approx(shipped.intercept, abs=1e-4)


def test_leakage_eval_command(tmp_path, capsys):
    labels = shared("labels", "spire22-near-duplicates.dev.tsv")
    out = tmp_path / "q.json"
    assert (
        main(["leakage-eval", "--labels", str(labels), "--method", "lexical", "--json", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "411 pairs over 99 topics" in printed and "lexical" in printed
    (figures,) = json.loads(out.read_text())
    assert figures["method"] == "lexical" and figures["pairs"] == 411
    assert set(figures) >= {
        "roc_auc",
        "pr_auc",
        "rejected_at_90",
        "rejected_at_95",
        "precision",
        "recall",
        "f1",
        "threshold",
        "confusion",
    }
    assert sum(sum(row.values()) for row in figures["confusion"].values()) == 411


def test_leakage_eval_bad_labels_is_one_line(tmp_path, capsys):
    path = write(tmp_path / "l.tsv", HEADER + "1\tt\t\t\t\t9\tq\tsame\t\t1\n")
    assert main(["leakage-eval", "--labels", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"leakeval: {path}:2: title_relation 'same' is not one of identical, "
        "reformulation, specialization, generalization, different"
    ]


@pytest.mark.parametrize(
    "query, matched, title, expected",
    [
        ("what is cyanide", "cyanide", "commercial cyanide uses", 1.0),
        ("cyanide define", "cyanide", "commercial cyanide uses", 1.0),
        ("meaning of price fixing", "price fixing", "price fixing", 1.0),
        # asks for the topic's aspect, not what the subject is
        ("what has the hubble telescope discovered", "hubble", "hubble achievements", 0.0),
        ("cyanide uses", "cyanide", "commercial cyanide uses", 0.0),
        # the topic itself asks for a definition: no shift
        ("what is a prion", "what is a prion", "prion definition", 0.0),
        ("what is a prion", "prions", "what are prions", 0.0),
    ],
)
def test_asks_definition_marks_a_shift_to_what_something_is(query, matched, title, expected):
    from leakeval_core.leakage.hybrid import asks_definition

    assert asks_definition(pd.Series([query]), pd.Series([matched]), pd.Series([title])) == [
        expected
    ]
