import numpy as np
import pandas as pd

from leakeval_core.present.leakage_plots import similarity_figure


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
