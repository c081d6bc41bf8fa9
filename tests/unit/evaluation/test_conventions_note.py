"""The depth note: what the depth cuts, said once for the CLI and the app."""

from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import parse_measures


def test_depth_note_names_what_the_depth_cuts():
    measures = parse_measures("ndcg_cut_10,recall_1000,map,iprec_at_recall_0.50")
    note = Conventions(depth=100).depth_note(measures)
    assert note.startswith("R@1000, AP: only the top 100 documents of each run count")
    assert Conventions.trec_eval().depth_note(measures) is None
    assert Conventions(depth=100).depth_note(parse_measures("ndcg_cut_10,P_5")) is None
    assert Conventions(depth=1000).depth_note(parse_measures("map")) is None
    only_cutoffs = Conventions(depth=100).depth_note(measures, whole_ranking=False)
    assert only_cutoffs.startswith("R@1000: only the top 100")
