import numpy as np
import pandas as pd

from leakeval_core.present.leakage_plots import similarity_figure
from tests.support import condition_means


def test_similarity_histogram_counts_every_pair_once():
    sims = pd.Series([0.0, 0.31, 0.31, 0.5, 0.79, 0.8, 1.0, 1.0])
    fig = similarity_figure(pd.DataFrame({"similarity": sims}), threshold=0.8)
    bars = fig.data[0]
    assert sum(bars.y) == len(sims)
    edges = np.linspace(0, 1, 41)
    assert bars.y[-1] == 2  # identical pairs (1.0) land in the last, closed bin
    assert bars.y[int(0.31 // 0.025)] == 2
    assert np.allclose(bars.x, (edges[:-1] + edges[1:]) / 2)
    assert fig.layout.xaxis.title.text.startswith("similarity")


def test_a_grade_has_one_colour_in_every_chart():
    from leakeval_core.present.collection_plots import grade_figure, per_topic_figure
    from leakeval_core.present.style import CLEAN_COLOR, LEAKED_COLOR, grade_color

    topics = pd.DataFrame(
        {"qid": ["1", "2"], "grade 0": [5, 3], "grade 1": [2, 1], "grade 2": [1, 0]}
    )

    def colours(columns: list[str]) -> dict[str, str]:
        fig = per_topic_figure(topics, columns, "t", "y")
        return {trace.name: trace.marker.color for trace in fig.data}

    judged, relevant = colours(["grade 0", "grade 1", "grade 2"]), colours(["grade 1", "grade 2"])
    assert judged["grade 1"] == relevant["grade 1"] == grade_color(1)
    assert judged["grade 2"] == relevant["grade 2"] == grade_color(2)
    bars = grade_figure(pd.DataFrame({"grade": [0, 1, 2], "judgments": [9, 3, 1]})).data[0]
    assert list(bars.marker.color) == [grade_color(0), grade_color(1), grade_color(2)]
    grades = {grade_color(g) for g in (None, -1, 0, 1, 2, 3)}
    assert not grades & {LEAKED_COLOR, CLEAN_COLOR}  # orange and blue mean leaked and clean


def test_ranked_lists_figure_joins_each_document_in_both_tops():
    from leakeval_core.present.query_plots import ranked_lists_figure
    from leakeval_core.present.style import grade_color

    a = pd.DataFrame({"docid": ["d1", "d2", "d3"], "rank": [1, 2, 3], "grade": [2, np.nan, 0]})
    b = pd.DataFrame({"docid": ["d3", "d1", "d9"], "rank": [1, 2, 3], "grade": [0, 2, 1]})
    fig = ranked_lists_figure(a, b, "leaked", "none", depth=3)
    lines = [t for t in fig.data if t.mode == "lines"]
    joined = sorted((tuple(t.y)) for t in lines)
    assert joined == [(1, 2), (3, 1)]  # d1 moved down one, d3 up two; d2 and d9 are alone
    side_a = next(t for t in fig.data if t.mode == "markers+text" and t.x[0] == 0)
    assert list(side_a.marker.color) == [grade_color(2), grade_color(None), grade_color(0)]
    assert list(side_a.text) == ["d1", "d2", "d3"]
    assert fig.layout.yaxis.range == (3.5, 0.5)  # rank 1 at the top


def test_query_along_by_hand():
    from leakeval_core.analysis.compare import query_along
    from leakeval_core.analysis.folds import PerQuery

    rows = [
        (lv, size, qid, value)
        for lv, size, qid, value in [
            ("leaked", 2000, "1", 0.9),
            ("none", 2000, "1", 0.5),
            ("leaked", 4000, "1", 0.7),
            ("none", 4000, "1", 0.6),
            ("leaked", 2000, "2", 0.1),
            ("none", 2000, "2", 0.1),
        ]
    ]
    table = pd.DataFrame(rows, columns=["leakage", "train_size", "qid", "value"])
    per_query = PerQuery(table, ("leakage", "train_size"), "none", pd.DataFrame())
    along = query_along(
        per_query, {"leakage": "leaked", "train_size": 2000}, {"leakage": "none"}, "1", "train_size"
    )
    assert along.train_size.tolist() == [2000, 4000]
    assert np.allclose(along["A − B"], [0.4, 0.1])


def test_names_along_x_are_points_not_a_trend():
    """The defect: models and collections joined by lines, as if they were a trend."""
    from leakeval_core.evaluation.measures import parse_measure
    from leakeval_core.present.condition_plots import condition_figure

    measure = parse_measure("ndcg_cut_10")
    named = condition_figure(
        condition_means(["bm25", "colbert"], ["a", "b"]), measure, "x", "c", None
    )
    assert {t.mode for t in named.data} == {"markers"}
    assert all(t.error_y.array is not None for t in named.data)  # the interval as error bars
    sized = condition_figure(condition_means([2000, 4000], ["a", "b"]), measure, "x", "c", None)
    assert "lines+markers" in {t.mode for t in sized.data}
    assert any(t.fill == "toself" for t in sized.data)  # the band


def test_charts_follow_a_dark_page():
    from leakeval_core.present.leakage_plots import similarity_figure
    from leakeval_core.present.style import TEXT, themed

    fig = similarity_figure(pd.DataFrame({"similarity": [0.2, 0.9]}), 0.8)
    assert fig.layout.paper_bgcolor == fig.layout.plot_bgcolor == "rgba(0, 0, 0, 0)"
    assert fig.layout.font.color == TEXT["light"]
    dark = themed(fig, "dark")
    assert dark.layout.font.color == TEXT["dark"] and dark.layout.title.font.color == TEXT["dark"]
    assert dark.layout.xaxis.tickfont.color != TEXT["light"]


def test_leak_shares_label_zero_bars_and_say_whose_the_marks_are():
    """The defects: a zero-height bar lost its label ("0% vs 70%" read as a missing bar),
    and the study's marks did not say what they compare with."""
    from leakeval_core.present.leakage_plots import leak_share_figure

    shares = pd.DataFrame(
        {
            "collection": ["core17", "robust04"],
            "topics": [50, 250],
            "leaked": [0, 75],
            "share": [0.0, 0.3],
            "study_share": [37 / 50, 172 / 250],
        }
    )
    bars, marks = leak_share_figure(shares, "lexical similarity ≥ 0.8").data
    assert list(bars.text) == ["0% (0/50)", "30% (75/250)"]
    # the 0% above its bar; a taller bar's count at its foot, clear of the study's mark
    assert list(bars.textposition) == ["outside", "inside"] and bars.cliponaxis is False
    assert bars.insidetextanchor == "start"
    assert list(marks.text) == ["study: 74%", "study: 69%"]
    assert "MS MARCO + ORCAS" in marks.name and "Fröbe" in marks.name


def test_an_audit_of_one_model_leaves_its_row_room_to_draw():
    """The real example audits one model: its chart must not be margins only."""
    from leakeval_core.evaluation.measures import parse_measures
    from leakeval_core.present.audit_plots import audit_figure

    def plot_height(models: int) -> float:
        rows = pd.DataFrame(
            {
                "model": [f"m{i}" for i in range(models)],
                "difference": 0.01,
                "ci_low": -0.01,
                "ci_high": 0.03,
                "p_adjusted": 0.5,
                "leaked_topics": 80,
                "other_topics": 40,
                "significant": False,
                "verdict": "no evidence",
                "mde": 0.05,
            }
        )
        layout = audit_figure(rows, parse_measures("ndcg_cut_10")[0], ["model"], "bm25").layout
        return layout.height - layout.margin.t - layout.margin.b

    assert plot_height(1) >= 100
    assert plot_height(15) >= 15 * 30  # a readable row per model
