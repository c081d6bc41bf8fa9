"""A figure's text from the data is text in Plotly (`present.literal`): no `<a href>`, no
`<span style>`, no entity, wherever it is drawn (ticks, legend, hover, titles, annotations);
the builders' own line breaks, subtitles and hover boxes are kept."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from leakeval_core.evaluation.measures import parse_measure
from leakeval_core.present.condition_plots import condition_figure, scatter_ab_figure
from leakeval_core.present.leakage_plots import leak_share_figure
from leakeval_core.present.literal import literal

LINK = "<a href='http://host/x'>c</a>"
HTML = re.compile(r"<(?!(?:br|/?sup|/?extra)>)")


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list | tuple | np.ndarray):
        return [s for v in value for s in strings(v)]
    return []


def test_literal_escapes_all_html_but_the_builders_tags():
    assert (
        literal(f"{LINK} & <b>x</b>") == "&lt;a href='http://host/x'>c&lt;/a> &amp; &lt;b>x&lt;/b>"
    )
    assert (
        literal("A<br><sup>B</sup> %{x}<extra></extra>") == "A<br><sup>B</sup> %{x}<extra></extra>"
    )


def test_every_string_of_a_figure_is_literal_and_says_what_it_was_given():
    shares = pd.DataFrame(
        {
            "collection": [LINK, "r&d"],
            "share": [0.3, 0.5],
            "leaked": [3, 5],
            "topics": [10, 10],
            "study_share": [0.4, np.nan],
        }
    )
    fig = leak_share_figure(shares, f"similarity ≥ 0.5 {LINK}").to_plotly_json()
    shown = strings(fig)
    assert not [s for s in shown if HTML.search(s)]
    assert "&lt;a href='http://host/x'>c&lt;/a>" in shown and "r&amp;d" in shown
    assert fig["layout"]["title"]["text"].startswith("Topics with a near-duplicate in training<br>")


def test_hover_text_and_legend_entries_are_literal_and_the_points_keep_their_ids():
    n = 4
    pairs = pd.DataFrame(
        {
            "qid": [f"q<{i}" for i in range(n)],
            "a": np.linspace(0, 1, n),
            "b": np.linspace(1, 0, n),
            "leaked": [True, False] * 2,
        }
    ).assign(delta=lambda f: f.a - f.b)
    titles = pd.Series({q: f"{LINK} {q}" for q in pairs.qid})
    fig = scatter_ab_figure(pairs, parse_measure("ndcg_cut_10"), LINK, "B", titles)
    assert not [s for s in strings(fig.to_plotly_json()) if HTML.search(s)]
    assert list(fig.data[0].customdata[:, 2]) == ["q&lt;0", "q&lt;2"]  # html.unescape: the qid

    means = pd.DataFrame(
        {"model": [LINK, "bm25"], "mean": [0.5, 0.4], "ci_low": [0.4, 0.3], "ci_high": [0.6, 0.5]}
    ).assign(n=10)
    fig = condition_figure(means, parse_measure("ndcg_cut_10"), "model", None, None)
    assert not [s for s in strings(fig.to_plotly_json()) if HTML.search(s)]
