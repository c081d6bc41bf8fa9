"""The split by answers, on a generated folder: answer-leaked, query-leaked and clean topics
add up to the judged ones on every door, and each comparison is Welch's test on its two
groups' gains, corrected over the model's three comparisons and its sibling models."""

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from leakeval_core import api
from leakeval_core.api.arguments import source_of
from leakeval_core.api.view import View
from leakeval_core.cli import main
from tests.support import answers_qrels

pytestmark = pytest.mark.demo

SPLITS = ["answer-leaked vs clean", "query-leaked vs clean", "answer-leaked vs query-leaked"]


def _kinds(answers_dir) -> pd.Series:
    """Each topic's kind by hand: leaked topics are those with a planted pair; of those, the
    even ids got a training positive among their relevant documents (`answers_experiment`)."""
    topics = api.load_experiment(answers_dir)
    qrels = pd.read_csv(
        answers_dir / "qrels.txt", sep=" ", names=["qid", "it", "d", "g"], dtype=str
    )
    judged = sorted(set(qrels.qid[qrels.g.astype(int) > 0]))
    pairs = pd.read_csv(answers_dir / "pairs.csv", dtype=str)
    leaked = set(pairs.test_qid)
    assert topics.training_qrels is not None
    return pd.Series(
        {
            q: (
                "clean"
                if q not in leaked
                else "answer-leaked"
                if int(q) % 2 == 0
                else "query-leaked"
            )
            for q in judged
        }
    )


def test_the_audit_by_answers_is_welchs_test_on_each_pair_of_groups(answers_dir, tmp_path):
    kinds = _kinds(answers_dir)
    out = tmp_path / "audit.csv"
    assert (
        main(
            ["audit", str(answers_dir), "--split", "answer", "--measure", "P_10", "--out", str(out)]
        )
        == 0
    )
    table = pd.read_csv(out, comment="#")
    assert sorted(set(table.split)) == sorted(SPLITS)
    counts = kinds.value_counts()
    assert counts.sum() == 50
    scores = api.score(
        answers_dir / "qrels.txt", sorted((answers_dir / "runs").glob("*.run")), ["P_10"]
    )
    per_query = {
        name: pd.Series(r.values["P_10"], index=[str(q) for q in r.qids])
        for name, r in scores.runs.items()
    }
    for row in table.itertuples():
        first, second = row.split.split(" vs ")
        assert (row.leaked_topics, row.other_topics) == (counts[first], counts[second])
        gain = (per_query[row.model] - per_query["bm25"]).reindex(kinds.index)
        a, b = gain[kinds == first].to_numpy(), gain[kinds == second].to_numpy()
        welch = stats.ttest_ind(a, b, equal_var=False)
        assert row.difference == pytest.approx(a.mean() - b.mean())
        assert row.p_adjusted == pytest.approx(min(1.0, welch.pvalue * 6))
        assert row.family_size == 6  # two models × three comparisons


def test_every_door_counts_the_same_groups(answers_dir, tmp_path):
    from_folder = api.audit(answers_dir, split="answer", measure="P_10")
    from_files = api.audit(
        answers_dir / "qrels.txt",
        {p.stem: p for p in sorted((answers_dir / "runs").glob("*.run"))},
        baseline="bm25",
        leakage=answers_dir / "pairs.csv",
        train_qrels=answers_dir / "train_qrels.tsv",
        collection="core17",
        split="answer",
        measure="P_10",
    )
    columns = ["split", "leaked_topics", "other_topics", "difference", "p_adjusted"]
    left = from_folder.table.rename(columns={"model": "system"})[["system", *columns]]
    pd.testing.assert_frame_equal(
        left.reset_index(drop=True), from_files.table[["system", *columns]].reset_index(drop=True)
    )
    said = "20 answer-leaked, 11 query-leaked, 19 clean of 50 judged topics"
    assert said in from_folder.leaked["core17"]
    assert said in from_files.leaked["core17"]
    card = tmp_path / "card.md"
    assert (
        main(
            ["card", str(answers_dir), "--split", "answer", "--measure", "P_10", "--out", str(card)]
        )
        == 0
    )
    figures = json.loads(card.with_suffix(".json").read_text())
    row = figures["collections"][0]
    assert (row["answer-leaked"], row["query-leaked"], row["clean"]) == (20, 11, 19)
    assert sum(row[k] for k in ("answer-leaked", "query-leaked", "clean")) == row["topics"]
    assert "20 / 11 / 19" in card.read_text()
    assert "--split answer" in card.read_text()  # its command gives the same card again


def test_without_training_qrels_the_split_by_answers_says_what_it_needs(audit_dir, capsys):
    assert main(["audit", str(audit_dir), "--split", "answer"]) != 0
    assert "needs the training qrels" in capsys.readouterr().err


def test_the_leaderboard_ranks_on_the_clean_topics_both_splits_share(answers_dir):
    """Clean is one set of topics in both splits (no near-duplicate at all): the leaderboard
    by answers ranks as the plain one, and its caption says so and counts the three kinds."""
    plain = api.leaderboard(answers_dir, measure="P_10", resamples=99)
    split = api.leaderboard(answers_dir, measure="P_10", resamples=99, split="answer")
    pd.testing.assert_frame_equal(plain.table, split.table)
    assert "the clean topics of the split by answers too" in split.caption
    assert "20 answer-leaked, 11 query-leaked, 19 clean" in split.caption


def test_inflation_by_answers_is_welchs_test_within_each_pair_of_conditions(demo_dir):
    """The demo's twins with training qrels built from its ground truth: every pair of
    conditions gets the three comparisons, each Welch's test on the gains of its two kinds
    of topic (`LeakageTable.leaks`), corrected over every row of the collection."""
    train = pd.concat(
        [
            pd.read_csv(
                io.StringIO(answers_qrels(demo_dir / "leakage" / "ground_truth.csv", qrels)),
                sep=" ",
                names=["train_qid", "it", "docid", "grade"],
                dtype=str,
            )
            for qrels in sorted((demo_dir / "collections").glob("*/qrels.txt"))
        ]
    ).drop_duplicates(["train_qid", "docid"])
    study = source_of(demo_dir, train_qrels=train)
    view = View(split="answer", measure="P_10")
    result = api.inflation(study, view=view)
    table = result.table[result.table.collection == "core17"]
    assert sorted(set(table.split)) == sorted(SPLITS)
    assert len(table) == 3 * len(table.drop_duplicates(["model", "train_size"]))
    assert (table.family_size == len(table)).all()  # every comparison of the collection
    leaks = study.pairs(view).leaks()
    kinds = leaks[leaks.collection == "core17"].set_index("qid").leak
    assert set(kinds) == {"answer-leaked", "query-leaked"}
    for row in table.iloc[:6].itertuples():
        gains = (
            result.gains[
                (result.gains.collection == "core17")
                & (result.gains.model == row.model)
                & (result.gains.train_size == row.train_size)
            ]
            .set_index("qid")
            .gain
        )
        kind = kinds.reindex(gains.index).fillna("clean")
        first, second = row.split.split(" vs ")
        a, b = gains[kind == first].to_numpy(), gains[kind == second].to_numpy()
        assert (row.leaked_topics, row.other_topics) == (len(a), len(b))
        assert row.difference == pytest.approx(a.mean() - b.mean())
        welch = stats.ttest_ind(a, b, equal_var=False)
        assert row.p == pytest.approx(welch.pvalue)
    assert "answer-leaked: a near-duplicate" in result.caption


def test_the_story_says_which_split_it_tells(answers_dir, capsys):
    assert main(["story", str(answers_dir), "--split", "answer", "--measure", "P_10"]) == 0
    told = capsys.readouterr().out
    assert "on the 20 topics with a near-duplicate" in told  # the answer-leaked ones
    assert "Split by answers: the story's leaked topics are the answer-leaked ones" in told
    assert "20 answer-leaked, 11 query-leaked, 19 clean of 50 judged topics" in told


def test_training_qrels_of_another_corpus_leave_every_leaked_topic_query_leaked(real_audit):
    """Real Robust04 and Core 2018 qrels and the study's human judgments, with training
    positives from MS MARCO's corpus (document ids `D…`): none is judged, the line says so,
    every leaked topic is query-leaked, and query-leaked minus clean is the audit's leaked
    minus other, the same topics and the same test."""
    pairs = pd.read_csv(real_audit / "judged-pairs.csv", dtype=str)
    train = pd.DataFrame({"train_qid": pairs.train_qid, "docid": "D" + pairs.train_qid})
    plain = api.audit(real_audit, measure="ndcg_cut_10")
    split = api.audit(real_audit, measure="ndcg_cut_10", split="answer", train_qrels=train)
    for sentence in split.leaked.values():
        assert "positive documents in the given training qrels is judged" in sentence
        assert "another corpus" in sentence
        leaked = int(sentence.split(" leaked of ")[0])
        judged = int(sentence.split(" leaked of ")[1].split(" ")[0])
        assert f"0 answer-leaked, {leaked} query-leaked, {judged - leaked} clean" in sentence
    keys = ["collection", "model", "baseline"]
    before = plain.table[plain.table.split == "leaked"].set_index(keys)
    after = split.table[split.table.split == "query-leaked vs clean"].set_index(keys)
    columns = ["leaked_topics", "other_topics", "difference", "p"]
    pd.testing.assert_frame_equal(before[columns], after.loc[before.index, columns])
    nothing = split.table[split.table.split != "query-leaked vs clean"]
    assert set(nothing.verdict) == {"cannot tell"}  # no answer-leaked topic to compare


@pytest.mark.parametrize("files", [False, True], ids=["folder", "files"])
def test_a_card_by_answers_prints_the_command_that_makes_it_again(
    audit_dir, answers_dir, tmp_path, monkeypatch, files
):
    """The training qrels given on the command line are on the card's command too."""
    from tests.integration.test_card import command_of

    monkeypatch.chdir(audit_dir.parent)
    train = str(answers_dir / "train_qrels.tsv")
    runs = ["--run", "audit/runs/t5-leaked.run", "--run", "audit/runs/t5-clean.run"]
    given = ["--baseline", "audit/runs/bm25.run", "--pairs", "audit/pairs.csv"]
    inputs = ["--qrels", "audit/qrels.txt", *runs, *given] if files else ["audit"]
    first = tmp_path / "first.md"
    flags = ["--train-qrels", train, "--split", "answer", "--measure", "P_10"]
    assert main(["card", *inputs, *flags, "--out", str(first)]) == 0
    command = command_of(first.read_text())
    assert "--train-qrels" in command
    assert main(command) == 0
    assert Path("first.md").read_text() == first.read_text()
    figures = json.loads(Path("first.json").read_text())["collections"][0]
    assert (figures["answer-leaked"], figures["query-leaked"], figures["clean"]) == (20, 11, 19)


def test_a_beir_train_split_shows_the_shared_documents_text(tmp_path):
    """A BEIR folder with its train split's qrels as the training qrels (SciFact's layout):
    the topic's shared document comes with its text from the corpus."""
    from tests.formats import beir_experiment

    root = beir_experiment(tmp_path / "study")
    (root / "beir" / "qrels" / "train.tsv").write_text(
        "query-id\tcorpus-id\tscore\nt1\td1\t1\nt1\td7\t1\nt2\td8\t1\n"
    )
    (root / "pairs.csv").write_text(
        "test_qid,train_qid,train_text\nq1,t1,query one\nq2,t2,query 2\n"
    )
    toml = (root / "experiment.toml").read_text()
    toml += '[training_queries]\nqrels = "beir/qrels/train.tsv"\n[leakage]\ntable = "pairs.csv"\n'
    (root / "experiment.toml").write_text(toml)
    shown = api.topic_answers(root, View(), "scifact", "q1")
    assert shown.table[["docid", "relevant"]].values.tolist() == [["d1", True], ["d7", False]]
    assert "Text of d1" in shown.table.text.iloc[0]
    assert pd.isna(shown.table.text.iloc[1])  # not relevant: no text fetched
    assert shown.sentence.endswith(
        "1 is a relevant document of the topic (grade ≥ 1): answer-leaked."
    )
    assert api.topic_answers(root, View(), "scifact", "q2").sentence.endswith("query-leaked.")


def test_shared_documents_are_counted_at_the_collections_own_level(answers_dir, tmp_path):
    """A collection that declares relevance level 2 (as TREC DL does) counts a shared
    document only where the topic grades it 2 or more, unless the reader sets a level."""
    import shutil

    from leakeval_core.evaluation.conventions import Conventions

    folder = tmp_path / "dl"
    shutil.copytree(answers_dir, folder, symlinks=True)
    toml = (folder / "experiment.toml").read_text()
    toml = toml.replace('qrels = "qrels.txt"\n', 'qrels = "qrels.txt"\nrelevance_level = 2\n', 1)
    (folder / "experiment.toml").write_text(toml)
    qrels = pd.read_csv(
        folder / "qrels.txt", sep=" ", names=["qid", "it", "docid", "grade"], dtype=str
    )
    grade = qrels.assign(grade=qrels.grade.astype(int)).set_index(["qid", "docid"]).grade

    def shared(view):
        table = source_of(folder).pairs(view).table
        return table[table.shared_relevant > 0]

    at_two = shared(View())
    assert not source_of(folder).leakage_warnings(View())  # counted at the level in force
    assert len(at_two) and all(
        grade[(q, d)] >= 2 for q, d in zip(at_two.test_qid, at_two.shared_docs, strict=True)
    )
    at_one = shared(View(conventions=Conventions(relevance_level=1)))  # left at the default
    assert len(at_one) == len(at_two)  # 1 is leakeval's default: the collection's 2 holds
    at_three = shared(View(conventions=Conventions(relevance_level=3)))
    assert len(at_three) < len(at_two)  # the reader's own level wins
    lower = source_of(answers_dir).pairs(View()).table
    assert (lower.shared_relevant > 0).sum() > len(at_two)  # grade-1 answers counted at 1


def test_a_lower_is_better_measure_is_oriented_before_the_split_by_answers(answers_dir):
    """first_rel_rank (lower is better): each topic's gain is the baseline's rank minus the
    model's, so a positive difference still means the first group gained more; the groups'
    means and Welch's p by hand on the ranks `score` gives."""
    kinds = _kinds(answers_dir)
    result = api.audit(answers_dir, split="answer", measure="first_rel_rank")
    scores = api.score(
        answers_dir / "qrels.txt",
        sorted((answers_dir / "runs").glob("*.run")),
        ["first_rel_rank"],
    )
    rank = {
        name: pd.Series(r.values["first_rel_rank"], index=[str(q) for q in r.qids])
        for name, r in scores.runs.items()
    }
    for row in result.table.itertuples():
        gain = (rank["bm25"] - rank[row.model]).dropna()  # oriented: a lower rank is a gain
        kind = kinds.reindex(gain.index)
        first, second = row.split.split(" vs ")
        a, b = gain[kind == first].to_numpy(), gain[kind == second].to_numpy()
        assert (row.leaked_topics, row.other_topics) == (len(a), len(b))
        assert row.difference == pytest.approx(a.mean() - b.mean())
        assert row.p == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    assert "lower is better" in result.caption
