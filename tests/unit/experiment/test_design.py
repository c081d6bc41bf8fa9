"""[design] roles: declared, inferred from names and levels, and checked."""

import pytest

from leakeval_core.errors import LeakevalError, ParseError
from leakeval_core.experiment.design import Design, infer_design
from leakeval_core.experiment.manifest import load_experiment
from tests.support import write

DEMO_LEVELS = {
    "model": ["colbert", "monobert", "monot5"],
    "leakage": ["leaked", "none"],
    "train_size": [2000, 4000, 8000, 16000, 32000],
    "fold": [1, 2, 3, 4, 5],
}


def test_demo_names_are_inferred():
    design = infer_design({}, DEMO_LEVELS)
    assert (design.leakage, design.leaked, design.clean) == ("leakage", "leaked", "none")
    assert (design.size, design.system, design.fold) == ("train_size", "model", "fold")
    assert design.inferred == {"leakage", "size", "system", "fold"}


def test_other_names_are_inferred_from_names_and_levels():
    levels = {
        "system": ["bert", "t5"],
        "contamination": ["clean", "contaminated"],
        "n_train": [1000, 2000],
        "split": [1, 2],
    }
    design = infer_design({}, levels)
    assert design == Design("contamination", "contaminated", "clean", "n_train", "system", "split")


def test_a_leakage_factor_is_found_by_its_levels_and_an_unnamed_size_by_its_numbers():
    levels = {"arm": ["yes", "no"], "budget": [10, 20, 40], "ranker": ["a", "b"]}
    design = infer_design({}, levels)
    assert (design.leakage, design.leaked, design.clean) == ("arm", "yes", "no")
    assert design.size == "budget" and design.system == "ranker" and design.fold is None


def test_declared_roles_win_and_a_two_level_factor_needs_one_named_level():
    levels = {"cond": ["x", "y"], "who": ["a", "b"]}
    design = infer_design({"leakage": "cond", "leaked": "x", "system": "who"}, levels)
    assert (design.leakage, design.leaked, design.clean) == ("cond", "x", "y")
    assert "leakage" not in design.inferred and design.system == "who"


def test_declared_levels_keep_the_factors_type():
    design = infer_design({"leakage": "n", "leaked": "1", "clean": "0"}, {"n": [0, 1]})
    assert (design.leaked, design.clean) == (1, 0)


@pytest.mark.parametrize(
    "declared, message",
    [
        ({"leakage": "nope"}, "not a factor of the runs pattern"),
        ({"leakage": "model", "leaked": "zzz"}, "'zzz' is not a level of model"),
        ({"leakage": "model"}, "name its two levels"),
        ({"leakage": "leakage", "leaked": "none", "clean": "none"}, "the same level"),
        ({"sizes": "x"}, "unknown key 'sizes'"),
    ],
)
def test_wrong_declarations_say_what_is_wrong(declared, message):
    with pytest.raises(LeakevalError, match=message.replace("[", r"\[")):
        infer_design(declared, DEMO_LEVELS)


def test_levels_without_a_leakage_factor_are_an_error_but_the_factor_may_be_inferred():
    with pytest.raises(LeakevalError, match=r"leaked is set but \[design\] leakage is not"):
        infer_design({"leaked": "x"}, {"model": ["a", "b"]})
    design = infer_design({"leaked": "none", "clean": "leaked"}, DEMO_LEVELS)
    assert (design.leakage, design.leaked, design.clean) == ("leakage", "none", "leaked")


def test_no_leakage_factor_is_no_role_and_features_say_how_to_set_it():
    design = infer_design({}, {"model": ["bm25"], "fold": [1, 2]})
    assert design.leakage is None and design.system == "model"
    with pytest.raises(LeakevalError, match=r"Inflation needs a factor with a leaked and a clean"):
        design.require("Inflation", "leakage")
    assert "set `[design] leakage = …`" in design.why_not("Inflation", "leakage")


def test_manifest_design_section_is_read_and_checked(tmp_path):
    write(tmp_path / "t.txt", "1\tsolar panels\n")
    write(tmp_path / "q.txt", "1 0 a 1\n")
    for arm in ("with", "without"):
        write(tmp_path / "runs" / f"{arm}.run", "1 Q0 a 1 2 x\n")
    manifest = (
        '[collections.c]\ntopics = "t.txt"\nqrels = "q.txt"\n[runs]\npattern = "runs/{arm}.run"\n'
    )
    write(tmp_path / "experiment.toml", manifest + '[design]\nleakage = "arm"\nleaked = "with"\n')
    design = load_experiment(tmp_path).design
    assert (design.leakage, design.leaked, design.clean) == ("arm", "with", "without")
    assert load_experiment(tmp_path).condition_factors == ("collection", "arm")
    write(tmp_path / "experiment.toml", manifest + '[design]\nsize = "arm2"\n')
    with pytest.raises(ParseError, match=r"experiment.toml: \[design\] size = 'arm2'"):
        load_experiment(tmp_path)


def test_a_paired_view_opens_on_leaked_against_clean_or_a_model_against_its_baseline():
    twins = Design(leakage="leakage", leaked="leaked", clean="none", system="model")
    levels = {"model": ["bert", "t5"], "leakage": ["leaked", "none"], "size": [1, 2]}
    contrast = twins.contrast(levels)
    assert contrast == "leakage"
    assert twins.sides("leakage", levels["leakage"], contrast) == ("leaked", "none")
    assert twins.sides("model", levels["model"], contrast) == ("bert", "bert")

    audit = Design(system="model", baseline="bm25")
    systems = ["bm25", "bm25-rm3", "t5"]
    contrast = audit.contrast({"model": systems, "size": [1, 2]})
    assert contrast == "model"
    assert audit.sides("model", systems, contrast) == ("bm25-rm3", "bm25")
    assert audit.sides("size", [1, 2], contrast) == (1, 1)

    plain = Design()
    contrast = plain.contrast({"one": ["x"], "two": ["a", "b"]})
    assert contrast == "two" and plain.sides("two", ["a", "b"], contrast) == ("a", "b")
    assert plain.sides("one", ["x"], contrast) == ("x", "x")


def test_baseline_may_be_a_list_of_the_system_levels():
    levels = {"model": ["a", "bm25", "rm3"]}
    design = infer_design({"system": "model", "baseline": ["bm25", "rm3"]}, levels)
    assert design.baselines == ("bm25", "rm3") and design.baseline == "bm25"
    assert design.sides("model", levels["model"], "model") == ("a", "bm25")
    assert "baselines: model bm25, rm3" in design.describe()
    one = infer_design({"system": "model", "baseline": "bm25"}, levels)
    assert one.baselines == ("bm25",) and one == Design(system="model", baseline="bm25")
    with pytest.raises(LeakevalError, match="'rm4' is not a level of model: a, bm25, rm3"):
        infer_design({"system": "model", "baseline": ["bm25", "rm4"]}, levels)
    with pytest.raises(LeakevalError, match="name each baseline level once"):
        infer_design({"system": "model", "baseline": ["bm25", "bm25"]}, levels)
