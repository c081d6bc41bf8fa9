"""The demo's precomputed tables are what leakeval computes: its scores are the scorer's, and
the pairs shipped for each method are what detection finds in the generated demo."""

from __future__ import annotations

import pandas as pd
import pytest

from leakeval_core.demo.precomputed import SHIPPED_METHODS, shipped_pairs
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import DASHBOARD_MEASURES
from leakeval_core.experiment.cache import PRECOMPUTED, Cache
from leakeval_core.experiment.scores import score_experiment
from leakeval_core.leakage.detection_options import DetectionOptions, encoder_installed, encoder_of
from leakeval_core.leakage.table import detect_leakage, leakage_key

pytestmark = pytest.mark.demo


def no_shelf(tmp_path) -> Cache:
    """A cache with an empty shelf: everything is computed anew."""
    return Cache(tmp_path / "cache", shelf=tmp_path / "empty")


def test_the_demo_names_the_method_it_ships(demo_experiment):
    assert demo_experiment.detection_method == SHIPPED_METHODS[0]


@pytest.mark.detection
@pytest.mark.parametrize("method", SHIPPED_METHODS)
def test_the_shipped_pairs_are_what_detection_finds(demo_experiment, tmp_path, method):
    encoder = encoder_of(method)
    if encoder is not None and not encoder_installed(encoder):
        pytest.skip(f"the {encoder} encoder is not installed")
    options = DetectionOptions(method=method)
    fresh = detect_leakage(demo_experiment, no_shelf(tmp_path), options=options).table
    shipped = shipped_pairs(method)
    assert shipped is not None
    keys = ["collection", "test_qid", "field", "train_qid"]
    fresh, shipped = (t.sort_values(keys).reset_index(drop=True) for t in (fresh, shipped))
    pd.testing.assert_frame_equal(
        fresh.drop(columns="similarity"), shipped.drop(columns="similarity"), check_dtype=False
    )
    assert fresh.similarity.to_numpy() == pytest.approx(shipped.similarity.to_numpy(), abs=1e-6)
    # and the demo holds them under the key detection looks them up by
    held = Cache(demo_experiment.root / PRECOMPUTED).get(
        "leakage", leakage_key(demo_experiment, options)
    )
    assert held is not None and len(held[0]) == len(shipped)


def test_the_precomputed_scores_are_the_scorers(demo_experiment, tmp_path):
    fresh = score_experiment(demo_experiment, DASHBOARD_MEASURES, Conventions(), no_shelf(tmp_path))
    shelved = score_experiment(
        demo_experiment,
        DASHBOARD_MEASURES,
        Conventions(),
        Cache(tmp_path / "other", shelf=demo_experiment.root / PRECOMPUTED),
    )
    assert not (tmp_path / "other").exists()  # read from the shelf, nothing written
    pd.testing.assert_frame_equal(
        fresh.table, shelved.table, check_dtype=False, check_categorical=False
    )


def test_without_the_encoder_the_demo_keeps_its_method_and_its_leaked_topics(
    demo_experiment, tmp_path, monkeypatch
):
    """An installation without the semantic extra shows the demo with the method it names,
    from the pairs it ships, so every machine flags the same topics; measuring the method
    against labels, which needs the encoder, says what to install instead of failing."""
    from leakeval_core import api
    from leakeval_core.api import doors
    from leakeval_core.errors import LeakevalError
    from leakeval_core.leakage import detection_options as options
    from leakeval_core.leakage.table import experiment_method, experiment_methods

    monkeypatch.setattr(options, "available_methods", lambda: ("lexical",))
    cache = Cache(tmp_path / "cache")
    assert experiment_methods(demo_experiment, cache) == ("lexical", *SHIPPED_METHODS[:1])
    assert experiment_method(demo_experiment, cache) == SHIPPED_METHODS[0]
    study = api.Study(demo_experiment, cache)
    assert study.methods() == ("lexical", SHIPPED_METHODS[0])
    pairs = study.leakage()
    assert pairs.method == SHIPPED_METHODS[0] and len(pairs.table) == len(
        shipped_pairs(SHIPPED_METHODS[0])
    )
    assert not (tmp_path / "cache").exists()  # read from what the demo ships, nothing detected
    with pytest.raises(LeakevalError, match="embeds them with its encoder, which is not"):
        doors.detection_quality(study, api.View())
    # elsewhere (no shipped pairs) the named method is not at hand: the best installed one is
    no_pairs = Cache(tmp_path / "cache", shelf=tmp_path / "empty")
    assert experiment_method(demo_experiment, no_pairs) == "lexical"
