"""A collection's own conventions, declared once: in experiment.toml, or for an ir_datasets
collection whose official procedure differs, from leakeval's one table."""

from __future__ import annotations

import pytest

from leakeval_core.errors import ParseError
from leakeval_core.evaluation.conventions import Conventions, official_conventions
from leakeval_core.experiment.manifest import load_experiment
from leakeval_core.experiment.scores import conventions_notes
from tests.support import write


def folder(tmp_path, declared: str = "", dataset: str | None = None):
    """An experiment of one local collection `c` (declaring `declared`), and one of an
    ir_datasets id where given."""
    write(tmp_path / "topics.txt", "1\ttopic one\n")
    write(tmp_path / "qrels.txt", "1 0 d1 2\n")
    irds = f'[collections.dl]\nir_datasets = "{dataset}"\n' if dataset else ""
    for name in ("c", "dl") if dataset else ("c",):
        write(tmp_path / "runs" / name / "bm25.run", "1 Q0 d1 1 1.0 r\n")
    write(
        tmp_path / "experiment.toml",
        f'name = "x"\n[collections.c]\ntopics = "topics.txt"\nqrels = "qrels.txt"\n{declared}\n'
        f'{irds}[runs]\npattern = "runs/{{collection}}/{{model}}.run"\n',
    )
    return load_experiment(tmp_path)


def test_a_collection_declares_its_level_and_a_setting_of_the_readers_wins(tmp_path):
    spec = folder(tmp_path, "relevance_level = 2\ngain = 'exponential'").collections["c"]
    assert spec.conventions == (("relevance_level", 2), ("gain", "exponential"))
    assert Conventions().declared(spec.conventions) == Conventions(
        relevance_level=2, gain="exponential"
    )
    assert Conventions(relevance_level=3).declared(spec.conventions).relevance_level == 3
    experiment = load_experiment(tmp_path)
    assert conventions_notes(experiment, Conventions()) == (
        "c scored at relevance level 2, exponential gain (declared in experiment.toml; a "
        "setting of yours overrides it).",
    )
    assert conventions_notes(experiment, Conventions(relevance_level=3)) == (
        "c scored at relevance level 3, exponential gain (declared in experiment.toml; a "
        "setting of yours overrides it).",
    )
    assert conventions_notes(experiment, Conventions(gain="exponential")) == (
        "c scored at relevance level 2 (declared in experiment.toml; a setting of yours "
        "overrides it).",
    )


def test_a_level_other_than_one_is_named_even_when_the_reader_chose_it(tmp_path):
    experiment = folder(tmp_path)
    assert conventions_notes(experiment, Conventions()) == ()
    assert conventions_notes(experiment, Conventions(relevance_level=2)) == (
        "c scored at relevance level 2.",
    )


@pytest.mark.parametrize(
    ("declared", "said"),
    [
        ("relevance_level = 0", "relevance_level must be at least 1, got 0"),
        ("relevance_level = '2'", "collections.c.relevance_level must be a whole number, got '2'"),
        ("depth = 2.5", "collections.c.depth must be a whole number, got 2.5"),
        ("gain = 'log'", "gain must be 'linear' or 'exponential', got 'log'"),
        ("tie_order = 'random'", "tie_order must be docid_asc or docid_desc, got 'random'"),
        ("missing = 'drop'", "unknown key 'missing' in [collections]"),
    ],
)
def test_a_bad_declaration_is_one_error_naming_the_file(tmp_path, declared, said):
    with pytest.raises(ParseError) as raised:
        folder(tmp_path, declared)
    assert "experiment.toml" in str(raised.value) and said in str(raised.value)


@pytest.mark.parametrize(
    ("dataset", "level"),
    [
        ("msmarco-passage/trec-dl-2019/judged", 2),
        ("msmarco-passage/trec-dl-2020", 2),
        ("msmarco-passage/trec-dl-hard", 2),
        ("msmarco-passage-v2/trec-dl-2021/judged", 2),
        ("msmarco-document/trec-dl-2019", None),
        ("beir/scifact/test", None),
    ],
)
def test_trec_dl_passage_collections_take_level_two_from_one_table(dataset, level):
    values, source = official_conventions(dataset)
    assert dict(values).get("relevance_level") == level
    assert ("trec_eval -l 2" in source) == (level == 2)


def test_an_ir_datasets_collection_gets_its_official_level_and_says_where_from(tmp_path):
    experiment = folder(tmp_path, dataset="msmarco-passage/trec-dl-2019/judged")
    spec = experiment.collections["dl"]
    assert spec.conventions == (("relevance_level", 2),)
    assert conventions_notes(experiment, Conventions()) == (
        "dl scored at relevance level 2 (TREC DL passage ranking's official procedure "
        "(trec_eval -l 2 for binary measures); a setting of yours overrides it).",
    )
    declared = folder(tmp_path, dataset="msmarco-passage/trec-dl-2019")
    assert declared.collections["c"].conventions == ()


def test_collections_scored_alike_share_one_sentence_and_the_sidebar_hears_only_declarations(
    tmp_path,
):
    experiment = folder(tmp_path, dataset="msmarco-passage/trec-dl-2019")
    assert conventions_notes(experiment, Conventions(relevance_level=3)) == (
        "c and dl scored at relevance level 3.",
    )
    assert conventions_notes(experiment, Conventions(relevance_level=3), chosen=False) == ()
    assert conventions_notes(experiment, Conventions(), chosen=False) == (
        "dl scored at relevance level 2 (TREC DL passage ranking's official procedure "
        "(trec_eval -l 2 for binary measures); a setting of yours overrides it).",
    )


def test_condensed_lists_lead_the_notes_where_the_reader_chose_them(tmp_path):
    experiment = folder(tmp_path)
    condensed = Conventions(condensed=True)
    assert conventions_notes(experiment, condensed) == (
        "Scored on condensed lists: unjudged documents removed before the cutoff.",
    )
    assert conventions_notes(experiment, condensed, chosen=False) == ()
