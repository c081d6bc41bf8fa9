import pytest

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.experiment.manifest import find_experiments, load_experiment
from tests.support import write

RUN = "1 Q0 a 1 1.0 x\n"
COLL = '[collections.c1]\ntopics = "t.txt"\nqrels = "q.txt"\n'


def make(tmp_path, manifest, runs=("runs/c1/bm25/fold1.run",)):
    write(tmp_path / "t.txt", "1\tfoo\n")
    write(tmp_path / "q.txt", "1 0 a 1\n")
    for r in runs:
        write(tmp_path / r, RUN)
    write(tmp_path / "experiment.toml", manifest)
    return tmp_path


def test_pattern_fields_become_factors(tmp_path):
    root = make(
        tmp_path,
        COLL + '[runs]\npattern = "runs/{collection}/{model}/fold{fold}.run"\n',
        [
            "runs/c1/bm25/fold1.run",
            "runs/c1/bm25/fold2.run",
            "runs/c1/t5/fold1.run",
            "runs/c1/t5/notes.txt",
        ],
    )
    exp = load_experiment(root)
    assert exp.factors == ("collection", "model", "fold")
    assert exp.conditions[["model", "fold"]].values.tolist() == [
        ["bm25", 1],
        ["bm25", 2],
        ["t5", 1],
    ]
    assert exp.conditions.fold.dtype == "int64"
    assert exp.levels("model") == ["bm25", "t5"]


def test_single_collection_needs_no_collection_field(tmp_path):
    root = make(tmp_path, COLL + '[runs]\npattern = "runs/c1/{model}/fold1.run"\n')
    assert load_experiment(root).conditions.collection.tolist() == ["c1"]


@pytest.mark.parametrize(
    ("manifest", "why"),
    [
        (COLL + 'colour = "red"\n', "unknown key 'colour'"),
        (COLL + '[runs]\npattern = "runs/{collection/x.run"\n', "unbalanced brace"),
        (COLL + '[runs]\npattern = "../{model}.run"\n', "inside the experiment"),
        (COLL + '[runs]\npattern = "nothing/{model}.run"\n', "matches no file"),
        (COLL + '[runs]\npattern = "runs/{collection}/{m}/{m}.run"\n', "repeats a field"),
        (
            COLL.replace("t.txt", "missing.txt") + '[runs]\npattern = "runs/c1/{m}/fold1.run"\n',
            "no such file",
        ),
        (
            '[collections.c2]\ntopics = "t.txt"\nqrels = "q.txt"\n'
            + COLL
            + '[runs]\npattern = "runs/c1/{model}/fold1.run"\n',
            "exactly one collection",
        ),
        (
            '[collections.c9]\ntopics = "t.txt"\nqrels = "q.txt"\n'
            '[runs]\npattern = "runs/{collection}/{model}/fold1.run"\n',
            "not declared",
        ),
        (
            COLL + '[runs]\npattern = "runs/{collection}/{model}/fold1.run"\nextra = 1\n',
            "unknown key 'extra' in [runs]",
        ),
        ('name = "x"\n[runs]\npattern = "a"\n', "no [collections.NAME]"),
        ("name = \n", "invalid TOML"),
    ],
)
def test_manifest_errors_name_the_manifest(tmp_path, manifest, why):
    root = make(tmp_path, manifest)
    with pytest.raises(ParseError) as err:
        load_experiment(root)
    assert why in str(err.value)
    assert err.value.path.endswith("experiment.toml")


def test_missing_manifest(tmp_path):
    with pytest.raises(LeakevalError, match="no such experiment manifest"):
        load_experiment(tmp_path)


def test_experiments_symlinked_into_the_data_root_are_served_deeper_ones_not(tmp_path):
    outside = tmp_path / "outside"
    make(outside, COLL + '[runs]\npattern = "runs/c1/{model}/fold1.run"\n')
    make(tmp_path / "far" / "deeper", COLL + '[runs]\npattern = "runs/c1/{model}/fold1.run"\n')
    root = tmp_path / "data"
    make(root / "inside", COLL + '[runs]\npattern = "runs/c1/{model}/fold1.run"\n')
    (root / "linked").symlink_to(outside)  # placed in the root by its owner: served
    (root / "far").symlink_to(tmp_path / "far")  # an experiment two levels down: not
    assert [p.name for p in find_experiments(root)] == ["inside", "linked"]
    assert load_experiment(find_experiments(root)[1]).name == "linked"


def test_leakage_method_is_read_and_checked(tmp_path, monkeypatch, capsys):
    from leakeval_core.cli import main
    from leakeval_core.leakage import detection_options as options
    from leakeval_core.leakage.table import experiment_method

    runs = '[runs]\npattern = "runs/c1/{model}/fold1.run"\n'
    root = make(tmp_path, COLL + runs + '[leakage]\nmethod = "semantic-mpnet"\n')
    experiment = load_experiment(root)
    assert experiment.detection_method == "semantic-mpnet"
    monkeypatch.setattr(options, "available_methods", lambda: ("lexical", "semantic-mpnet"))
    assert experiment_method(experiment) == "semantic-mpnet"
    assert options.method_for(None) == "lexical"  # the most accurate of those installed
    monkeypatch.setattr(options, "available_methods", lambda: ("lexical", "semantic", "hybrid"))
    assert experiment_method(experiment) == "hybrid"  # named but not installed here
    write(root / "experiment.toml", COLL + runs + '[leakage]\nmethod = "fuzzy"\n')
    with pytest.raises(ParseError, match=r"leakage\.method 'fuzzy' is not one of") as err:
        experiment_method(load_experiment(root))
    assert err.value.line == 7
    assert main(["validate", str(root)]) == 2
    assert "experiment.toml:7: leakage.method 'fuzzy' is not one of" in capsys.readouterr().err


def test_find_experiments(tmp_path):
    make(tmp_path / "b", COLL + '[runs]\npattern = "runs/c1/{model}/fold1.run"\n')
    make(tmp_path / "a", COLL + '[runs]\npattern = "runs/c1/{model}/fold1.run"\n')
    (tmp_path / "empty").mkdir()
    assert [p.name for p in find_experiments(tmp_path)] == ["a", "b"]
    assert find_experiments(tmp_path / "nope") == []
