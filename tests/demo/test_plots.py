"""Charts of the demo's design: each role keeps its colours."""

import pandas as pd
import pytest

from tests.support import condition_means

pytestmark = pytest.mark.demo


def test_each_role_keeps_its_colours_on_every_chart(demo_experiment):
    """The defect: orange meant leaked, then core18, then monobert."""
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.present.condition_plots import condition_figure, tau_figure
    from leakeval_core.present.style import (
        CLEAN_COLOR,
        COLLECTION_COLORS,
        LEAKED_COLOR,
        SYSTEM_COLORS,
        Palette,
    )

    palette = Palette.of_experiment(demo_experiment)
    design = demo_experiment.design
    leakage = palette.of_factor(design.leakage, demo_experiment.levels(design.leakage))
    assert leakage == {design.leaked: LEAKED_COLOR, design.clean: CLEAN_COLOR}
    collections = palette.of_factor("collection", list(demo_experiment.collections))
    systems = palette.of_factor(design.system, demo_experiment.levels(design.system))
    used = [*collections.values(), *systems.values()]
    assert len(set(used)) == len(used) and not set(used) & {LEAKED_COLOR, CLEAN_COLOR}
    assert set(collections.values()) <= set(COLLECTION_COLORS)
    assert set(systems.values()) <= set(SYSTEM_COLORS)
    # a chart of one collection draws it in the colour it has beside the others
    core18 = collections["core18"]
    taus = pd.DataFrame(
        {
            "collection": ["core18"],
            "x": [2000],
            "tau": [1.0],
            "tau_low": [0.3],
            "tau_high": [1.0],
            "p_same": [0.8],
            "queries": [50],
        }
    )
    assert tau_figure(taus, "x", palette).data[0].marker.color == core18
    models = demo_experiment.levels(design.system)
    fig = condition_figure(
        condition_means([2000, 4000], models).rename(columns={"c": design.system}),
        parse_measure("ndcg_cut_10"),
        "x",
        design.system,
        None,
        palette=palette,
    )
    assert {t.name: t.line.color for t in fig.data if t.name} == {
        f"{design.system} = {m}": systems[m] for m in models
    }
