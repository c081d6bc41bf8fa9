"""The audit's charts and tables as a reader sees them: axis titles that fit, counts that read
across, headers in words, and never "nan" or "-0.00"."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from leakeval_core.evaluation.measures import parse_measures
from leakeval_core.present.audit_plots import (
    audit_figure,
    category_gain_figure,
    dose_figure,
    sensitivity_figure,
)
from leakeval_core.present.display import agreement_figures, fixed, leaderboard_table
from leakeval_core.present.style import CHAR_WIDTH, LINE_HEIGHT, plot_height, slide_fig

MEASURE = parse_measures("ndcg_cut_10")[0]
UNDEFINED = re.compile(r"\bnan\b|[-−]0\.0+\b", re.IGNORECASE)


def categories() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "category": ["identical", "reformulation", "specialization", "no near-duplicate"],
            "gain": [0.08, 0.02, -0.01, 0.01],
            "ci_low": [0.01, -0.05, -0.09, -0.02],
            "ci_high": [0.15, 0.09, 0.07, 0.04],
            "topics": [54, 20, 1, 111],
        }
    )


def dose() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "bin": [0, 1, 2, 3],
            "similarity_low": [0.0, 0.31, 0.61, 0.80],
            "similarity_high": [0.3, 0.61, 0.80, 0.82],
            "gain": [0.02, 0.14, 0.19, 0.24],
            "ci_low": [0.0, 0.09, 0.16, 0.06],
            "ci_high": [0.05, 0.19, 0.23, 0.42],
            "topics": [96, 39, 107, 8],
        }
    )


def per_model(difference: float = 0.05) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["colbert", "monot5"],
            "difference": [difference, difference / 2],
            "ci_low": [difference - 0.03, -0.01],
            "ci_high": [difference + 0.03, 0.06],
            "p_adjusted": [0.01, 0.4],
            "leaked_topics": [54, 54] if np.isfinite(difference) else [0, 0],
            "other_topics": [196, 196],
            "significant": [True, False],
            "verdict": ["inflated", "no evidence"],
            "mde": [0.04, 0.05],
        }
    )


def sensitivity() -> pd.DataFrame:
    thresholds = np.linspace(0.05, 0.8, 16)
    return pd.DataFrame(
        {
            "threshold": thresholds,
            "difference": 0.15,
            "ci_low": 0.1,
            "ci_high": 0.2,
            "leaked_topics": 100,
            "p": 0.01,
        }
    )


FIGURES = {
    "per model": lambda: audit_figure(per_model(), MEASURE, ["model"], "bm25"),
    "dose": lambda: dose_figure(dose(), MEASURE, "bm25"),
    "categories": lambda: category_gain_figure(categories(), MEASURE, "bm25"),
    "sensitivity": lambda: sensitivity_figure(sensitivity(), MEASURE, 0.4),
}
MODES = {
    "screen": lambda fig: fig,
    "1280 slide": lambda fig: slide_fig(fig, 430, 1.0),
    "1920 slide": lambda fig: slide_fig(fig, 430, 1.5),
}


def lines(text: str | None) -> list[str]:
    return [] if not text else text.split("<br>")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FIGURES)
def test_every_audit_chart_has_axis_titles_with_room_to_show(name, mode):
    """At 1280×720 the Story's chart lost its x title and its y title ran into the chart's
    title: every axis has a title, a y title is no taller than its axis, and the bottom
    margin holds the x tick labels and the x title's lines."""
    fig = MODES[mode](FIGURES[name]())
    layout = fig.layout
    font = layout.font.size
    x_title, y_title = layout.xaxis.title, layout.yaxis.title
    assert x_title.text, "no x-axis title"
    assert name == "per model" or y_title.text, "no y-axis title"
    assert layout.xaxis.automargin and layout.yaxis.automargin
    # the y title, in its lines, fits the height of the plot
    size = y_title.font.size or font
    longest = max((len(line) for line in lines(y_title.text)), default=0)
    assert longest * CHAR_WIDTH * size <= plot_height(fig)
    # below the plot: tick labels (one or two lines) and the x title
    tick = layout.xaxis.tickfont.size or font
    title = x_title.font.size or font
    tick_lines = max(len(lines(str(t))) for t in _x_ticks(fig)) if _x_ticks(fig) else 1
    needed = LINE_HEIGHT * (tick_lines * tick + len(lines(x_title.text)) * title)
    assert layout.margin.b >= needed
    # above it: the chart's title
    assert layout.margin.t >= LINE_HEIGHT * (layout.title.font.size or font)


def _x_ticks(fig) -> list:
    trace = fig.data[0]
    if getattr(trace, "orientation", None) == "h":
        return []
    x = trace.x
    return [] if x is None or len(x) == 0 or not isinstance(x[0], str) else list(x)


def test_topic_counts_read_across_never_over_the_bars():
    """ "54 topics" was written vertically inside a bar, over its error bar: the counts are
    in the axis labels, which read horizontally."""
    bars = category_gain_figure(categories(), MEASURE, "bm25").data[0]
    assert bars.orientation == "h" and bars.text is None
    assert "identical (54 topics)" in bars.y and "specialization (1 topic)" in bars.y
    assert list(bars.y)[-1].startswith("identical")  # drawn from the top, in order

    fig = dose_figure(dose(), MEASURE, "bm25")
    assert fig.data[0].text is None and fig.layout.xaxis.tickangle == 0
    assert list(fig.data[0].x) == [
        "no candidate<br>96 topics",
        "0.31–0.61<br>39 topics",
        "0.61–0.80<br>107 topics",
        "0.80–0.82<br>8 topics",
    ]


def test_an_audit_with_no_leaked_topic_says_so_on_its_chart():
    fig = audit_figure(per_model(float("nan")), MEASURE, ["model"], "bm25")
    assert [a.text for a in fig.layout.annotations if "nothing" in (a.text or "")]


def test_the_leaderboard_reads_in_words_and_fits():
    board = pd.DataFrame(
        {
            "system": ["colbert", "monot5", "monobert"],
            "topics": 250,
            "mean": [0.7230, 0.7092, 0.7083],
            "ci_low": [0.6917, 0.6766, -0.00004],
            "ci_high": [0.7544, 0.7418, 0.7414],
            "clean_topics": 111,
            "clean_mean": [0.6556, 0.7027, np.nan],
            "clean_ci_low": [0.5991, 0.6506, np.nan],
            "clean_ci_high": [0.7121, 0.7549, np.nan],
            "rank": [1, 2, 3],
            "clean_rank": pd.array([2, 1, None], dtype="Int64"),
            "rank_change": pd.array([-1, 1, None], dtype="Int64"),
            "group": ["a", "ab", "b"],
            "rank_low": [1, 1, 2],
            "rank_high": [2, 3, 3],
            "clean_group": ["b", "a", None],
            "clean_rank_low": [2, 1, None],
            "clean_rank_high": [2, 1, None],
            "collection": "robust04",
            "train_size": [2000, 2000, 4000],
        }
    )
    table, note = leaderboard_table(board, ["collection", "train_size"])
    assert list(table.columns) == [
        "train_size",  # varies; the collection does not
        "System",
        "Mean (all topics)",
        "95% CI",
        "Mean (clean topics)",
        "95% CI (clean)",
        "Ranks (all → clean)",
        "Rank change",
    ]
    assert not [c for c in table.columns if "_" in c and c != "train_size"]
    assert table["95% CI"].tolist() == ["[0.692, 0.754]", "[0.677, 0.742]", "[0.000, 0.741]"]
    assert table["95% CI (clean)"].iloc[2] == "–"
    assert table["Ranks (all → clean)"].tolist() == ["1–2 → 2", "1–3 → 1", "2–3 → –"]
    assert table["Rank change"].tolist() == ["-1", "+1", "–"]
    assert table["Mean (all topics)"].tolist() == ["0.723 (a)", "0.709 (ab)", "0.708 (b)"]
    assert table["Mean (clean topics)"].tolist()[:2] == ["0.656 (b)", "0.703 (a)"]
    assert table["Mean (clean topics)"].iloc[2] == "–"
    assert "250" in note and "111" in note
    shown = " ".join(table.astype(str).to_numpy().ravel()) + " " + note
    assert not UNDEFINED.search(shown)
    # a 1280-pixel window leaves the table about 820 px beside the sidebar, which held 135
    # characters of the widest cell of each column (plus padding) without cutting the last
    widest = sum(max(len(c), *(len(str(v)) for v in table[c])) + 3 for c in table.columns)
    assert widest <= 140


def test_precision_over_no_flagged_topic_is_a_sentence_not_nan():
    shown = agreement_figures(
        {"flagged": 0, "known": 229, "precision": float("nan"), "recall": 0.0}, 1.0
    )
    assert shown["precision"] == "undefined" and shown["recall"] == "0.00"
    assert shown["note"] == (
        "No topic is flagged at threshold 1.00, so precision is undefined; recall 0%."
    )
    shown = agreement_figures({"flagged": 40, "known": 50, "precision": 0.9, "recall": 0.72}, 0.5)
    assert shown == {"precision": "0.90", "recall": "0.72", "note": ""}


@pytest.mark.parametrize(
    ("value", "text"),
    [(-0.0004, "0.000"), (-0.0, "0.000"), (float("nan"), "–"), (None, "–"), (0.1234, "0.123")],
)
def test_a_figure_is_never_nan_or_minus_zero(value, text):
    assert fixed(value) == text


def test_the_per_model_chart_colours_a_model_by_its_verdict_not_by_significance_alone():
    """A significant difference the other way is not inflation: it is not drawn orange."""
    from leakeval_core.present.style import CLEAN_COLOR, INK, LEAKED_COLOR

    rows = pd.concat([per_model(), per_model(-0.05)], ignore_index=True)
    rows["model"] = ["a", "b", "c", "d"]
    rows["verdict"] = ["inflated", "no evidence", "reversed", "cannot tell"]
    colours = list(audit_figure(rows, MEASURE, ["model"], "bm25").data[0].marker.color)
    assert colours == [LEAKED_COLOR, INK, CLEAN_COLOR, INK]


def test_the_leaderboard_table_lists_systems_best_first_as_its_chart_and_report_do():
    """The page listed the systems in name order (colbert, monobert, monot5) beside a chart
    and a report that list them best first (colbert, monot5, monobert): every leaderboard
    reads in one order, for a lower-is-better measure too, and no row's group letters go
    missing from the chart, even on a slide's larger type."""
    from leakeval_core import api
    from leakeval_core.present.leaderboard_plots import rank_interval_figure
    from leakeval_core.present.tables import leaderboard_frame

    qrels = {str(q): {"d": 1} for q in range(12)}

    def run(above: int) -> dict:  # `above` documents ranked above the relevant one
        ranked = {f"x{i}": 10.0 - i for i in range(above)}
        return {str(q): {**ranked, "d": 10.0 - above} for q in range(12)}

    runs = {"a_worst": run(3), "b_best": run(0), "c_middle": run(1)}
    # reciprocal rank: higher is better; first relevant rank: lower is better
    for measure in ("recip_rank", "first_rel_rank"):
        board = api.leaderboard(qrels, runs, leakage=["0"], measure=measure, resamples=99)
        table, _ = leaderboard_table(board.table, board.keys)
        figure = rank_interval_figure(board.systems, board.measure)
        order = ["b_best", "c_middle", "a_worst"]
        assert table.System.tolist() == order, measure
        assert list(figure.layout.yaxis.ticktext) == order
        assert leaderboard_frame(board.table, board.keys).system.tolist() == order
        letters = [t for t in figure.data if t.mode == "markers+text"]
        assert letters and all(t.cliponaxis is False for t in letters)
