# %% [markdown]
# # leakeval from a notebook
#
# Runs as a script (`python examples/python_api.py [DEMO_DIR]`; CI runs it) or cell by cell
# in any editor that reads `# %%` cells (VS Code, Jupytext, Spyder). Without DEMO_DIR it
# generates the simulated demo in a temporary folder. Every number below comes through the
# verbs the dashboard and the `leakeval` command call.

# %%
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pandas as pd

import leakeval_core as le
from leakeval_app.screen import Screen
from leakeval_core.demo.generator import generate_demo


def main(demo: Path) -> None:
    # %% [markdown]
    # ## 1. Score runs you hold in memory: any column names, any shape

    # %%
    qrels = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", "q3", "q3"],
            "doc_id": ["a", "b", "c", "d", "e"],
            "relevance": [2, 0, 1, 1, 0],
        }
    )
    runs = {
        "bm25": pd.DataFrame(
            {
                "query_id": ["q1", "q1", "q2", "q2", "q3", "q3"],
                "doc_id": ["b", "a", "x", "c", "e", "d"],
                "score": [3.0, 2.0, 2.0, 1.0, 2.0, 1.0],
            }
        ),
        "reranked": {  # pytrec_eval's shape
            "q1": {"a": 9.0, "b": 1.0},
            "q2": {"c": 2.0, "x": 1.0},
            "q3": {"d": 2.0, "e": 1.0},
        },
    }
    scores = le.score(qrels, runs, ["ndcg_cut_10", "P_1", "first_rel_rank"])
    print(scores.means().round(4).to_string(), end="\n\n")

    # %% [markdown]
    # ## 2. Compare two runs without an experiment folder
    # The same paired test, correction and interval as the dashboard's Significance tab.

    # %%
    versus = le.compare(qrels, runs, measure="P_1", baseline="bm25")
    print(versus.summary().round(4).to_string(), end="\n")
    print(versus.caption, end="\n\n")

    # %% [markdown]
    # ## 3. An experiment: leaked vs clean training, one correction family per collection

    # %%
    study = le.Study.open(demo)  # loads once; every verb below reuses its scores
    rows = le.compare(study, measure="ndcg_cut_10").table
    significant = rows[rows.significant]
    print(
        f"{len(significant)} of {len(rows)} leaked-vs-clean comparisons are significant "
        f"({le.Statistics().describe()}, m = {rows.family_size.iloc[0]} per collection)"
    )

    # %% [markdown]
    # ## 4. Where the gain lands: topics with a near-duplicate vs the others
    # A `View` holds every setting that changes a number; the CLI's flags and the app's link
    # (a `Screen`: the View and the page it opens on) encode the same value.

    # %%
    view = le.View(measure="ndcg_cut_10", threshold=0.5)
    inflated = le.inflation(study, view=view)
    by_size = inflated.table.groupby("train_size")[["gain_leaked", "gain_other"]].mean()
    print(by_size.round(4).to_string())
    link = Screen(view, page="conditions").to_url("http://127.0.0.1:8501")
    print(f"dashboard link for these settings: {link}")

    # %% [markdown]
    # ## 5. The story a meeting sees, and the report to send afterwards

    # %%
    story = le.story(study, view=view)
    print(story.headline)
    html = le.report(study, view=view)
    print(f"report: {len(html) / 1e6:.1f} MB of self-contained HTML")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(generate_demo(Path(tmp) / "demo"))
