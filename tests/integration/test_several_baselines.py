"""Several baselines, one family (terrier-org/pyterrier#597): every model is audited, and
compared, against each baseline, never one baseline against another, and the correction
runs over all those rows of a collection at once. Every figure is held against a hand
computation from the ranks the runs are built with: reciprocal rank is 1 / the rank of the
one relevant document, Welch's and the paired t-test come from scipy, and Bonferroni is
min(1, m · p) with m = 3 models × 2 baselines = 6."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leakeval_core import api
from leakeval_core.cli import main
from leakeval_core.errors import LeakevalError
from tests.app.apptest import open_tab, widget
from tests.support import ROOT, write

TOPICS = 20
LEAKED = [str(q) for q in range(1, 11)]  # topics 1-10 leaked, 11-20 the others
BASELINES = ["bm25", "rm3"]
MODELS = ["A", "B", "C"]
MEASURE = "recip_rank"


def _ranks() -> dict[str, dict[str, int]]:
    """Each system's rank (1 to 4) of each topic's relevant document: A gains on the leaked
    topics most, C not at all."""
    rng = np.random.default_rng(11)
    ranks = {}
    for name, lift in (("bm25", 0), ("rm3", 0), ("A", 3), ("B", 1), ("C", 0)):
        drawn = rng.integers(1, 5, TOPICS)
        lifted = [
            max(1, r - lift) if q <= 10 else r for q, r in zip(range(1, 21), drawn, strict=True)
        ]
        ranks[name] = {str(q): int(r) for q, r in zip(range(1, 21), lifted, strict=True)}
    return ranks


RANKS = _ranks()


def _run(ranks: dict[str, int], name: str) -> str:
    lines = []
    for qid, rank in ranks.items():
        docs = [f"n{qid}-{i}" for i in range(3)]
        docs.insert(rank - 1, f"d{qid}")
        lines += [f"{qid} Q0 {doc} {i + 1} {10 - i} {name}\n" for i, doc in enumerate(docs)]
    return "".join(lines)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The runs as files, and as an experiment whose `[design] baseline` is a list."""
    root = tmp_path_factory.mktemp("data") / "baselines"  # the app's only experiment
    write(root / "topics.txt", "".join(f"{q}\ttopic {q}\n" for q in range(1, 21)))
    write(root / "qrels.txt", "".join(f"{q} 0 d{q} 1\n" for q in range(1, 21)))
    for name, ranks in RANKS.items():
        write(root / "runs" / f"{name}.run", _run(ranks, name))
    write(
        root / "pairs.csv",
        "collection,test_qid,train_qid,similarity\n"
        + "".join(f"robust,{q},t{q},0.95\n" for q in LEAKED),
    )
    write(
        root / "experiment.toml",
        '[collections.robust]\ntopics = "topics.txt"\nqrels = "qrels.txt"\n'
        '[leakage]\ntable = "pairs.csv"\n'
        '[design]\nsystem = "model"\nbaseline = ["bm25", "rm3"]\n'
        '[runs]\npattern = "runs/{model}.run"\n',
    )
    return root


def _by_hand() -> pd.DataFrame:
    """Per (model, baseline): Welch's p on the per-topic gains, leaked vs other."""
    rows = []
    for base in BASELINES:
        for model in MODELS:
            gain = pd.Series({q: 1 / RANKS[model][q] - 1 / RANKS[base][q] for q in RANKS[model]})
            on, off = gain[gain.index.isin(LEAKED)], gain[~gain.index.isin(LEAKED)]
            p = stats.ttest_ind(on, off, equal_var=False).pvalue
            rows.append(
                {"model": model, "baseline": base, "difference": on.mean() - off.mean(), "p": p}
            )
    return pd.DataFrame(rows)


def _files_audit(folder, baseline=BASELINES):
    names = [*MODELS, *([baseline] if isinstance(baseline, str) else baseline)]
    runs = {name: str(folder / "runs" / f"{name}.run") for name in names}
    return api.audit(
        str(folder / "qrels.txt"), runs, baseline=baseline, leakage=LEAKED, measure=MEASURE
    )


def test_the_family_is_every_model_against_every_baseline(folder):
    result = _files_audit(folder)
    rows = result.table
    hand = _by_hand()
    assert list(zip(rows.system, rows.baseline, strict=True)) == list(
        zip(hand.model, hand.baseline, strict=True)
    )  # baseline by baseline; never a baseline audited, against itself or the other
    assert set(rows.system) & set(BASELINES) == set()
    assert rows.family_size.tolist() == [6] * 6
    assert rows.difference.tolist() == pytest.approx(hand.difference.tolist(), abs=1e-12)
    assert rows.p.tolist() == pytest.approx(hand.p.tolist(), rel=1e-9)
    assert rows.p_adjusted.tolist() == pytest.approx(np.minimum(1, 6 * hand.p).tolist(), rel=1e-9)
    assert rows.confidence.tolist() == pytest.approx([1 - 0.05 / 6] * 6)
    assert (hand.p < 0.05 / 6).any() and (hand.p > 0.05 / 6).any()  # the family decides
    assert rows.verdict.tolist() == ["inflated" if p < 0.05 / 6 else "no evidence" for p in hand.p]
    # A against bm25 (p = 0.017) passes in bm25's family of 3, not in the family of 6
    alone = _files_audit(folder, "bm25").table.set_index("system")
    assert alone.p["A"] == pytest.approx(hand.p[0]) and alone.verdict["A"] == "inflated"
    assert rows.verdict[0] == "no evidence" and 3 * hand.p[0] < 0.05 < 6 * hand.p[0]
    assert "Bonferroni over 6 comparisons: 3 models × 2 baselines" in result.caption
    assert result.baselines == ("bm25", "rm3")
    assert "baseline" in result.summary().columns


def test_one_baseline_is_as_it_was(folder):
    one = _files_audit(folder, "bm25")
    listed = _files_audit(folder, ["bm25"])
    pd.testing.assert_frame_equal(one.table, listed.table)
    assert one.caption == listed.caption
    assert one.table.family_size.tolist() == [3] * 3
    assert "comparisons:" not in one.caption and "over bm25 on leaked" in one.caption
    assert "baseline" not in one.summary().columns
    assert list(one.looks()) == [
        "system=" + m
        for m in one.table.sort_values("difference", ascending=False, kind="stable").system
    ]
    record = one.as_dict()
    assert record["baseline"] == "bm25" and record["baselines"] == ["bm25"]
    assert "baseline" not in _files_audit(folder).as_dict()  # several: only the list


def test_the_rows_are_the_same_on_every_door(folder, tmp_path, capsys, monkeypatch):
    """The API on files and on the experiment, the CLI's JSON on both, and the report."""
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    files = _files_audit(folder).table
    experiment = api.audit(folder, measure=MEASURE)
    rows = experiment.table
    assert rows.model.tolist() == files.system.tolist()
    columns = ["baseline", "difference", "p", "p_adjusted", "family_size", "verdict"]
    for column in columns:
        assert rows[column].tolist() == files[column].tolist(), column

    out = tmp_path / "files.json"
    args = ["audit", "--qrels", str(folder / "qrels.txt"), "--measure", MEASURE]
    args += [arg for m in MODELS for arg in ("--run", str(folder / "runs" / f"{m}.run"))]
    args += [arg for b in BASELINES for arg in ("--baseline", str(folder / "runs" / f"{b}.run"))]
    assert main([*args, "--pairs", str(folder / "pairs.csv"), "--json", str(out)]) == 0
    written = pd.DataFrame(json.loads(out.read_text())["audit"])
    for column in columns:
        assert written[column].tolist() == files[column].tolist(), column

    out = tmp_path / "experiment.json"
    assert main(["audit", str(folder), "--measure", MEASURE, "--json", str(out)]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text()) == json.loads(json.dumps(experiment.as_dict()))

    html = api.report(folder, measure=MEASURE)
    section = html[html.index("<h2>Leakage audit</h2>") :]
    assert "Bonferroni over 6 comparisons: 3 models × 2 baselines" in section
    table = section[: section.index("</table>")]
    header = table.split("<th>")[1:]
    assert any(h.startswith("baseline</th>") for h in header)


def test_the_design_names_a_list_of_baselines_and_refuses_an_unknown_one(folder, tmp_path):
    design = api.Study.open(folder).design
    assert design.baselines == ("bm25", "rm3") and design.baseline == "bm25"
    bad = tmp_path / "bad"
    for path in folder.rglob("*"):
        if path.is_file():
            write(bad / path.relative_to(folder), path.read_text())
    toml = bad / "experiment.toml"
    toml.write_text(toml.read_text().replace('"rm3"]', '"rm4"]'))
    with pytest.raises(LeakevalError, match=r"experiment\.toml.*'rm4' is not a level of model"):
        api.Study.open(bad)


def test_compare_against_several_baselines_is_one_family(folder):
    runs = {name: str(folder / "runs" / f"{name}.run") for name in [*MODELS, *BASELINES]}
    result = api.compare(str(folder / "qrels.txt"), runs, baseline=BASELINES, measure=MEASURE)
    rows = result.table
    assert list(zip(rows.a, rows.b, strict=True)) == [(m, b) for b in BASELINES for m in MODELS]
    hand = [
        stats.ttest_rel(
            [1 / RANKS[m][q] for q in RANKS[m]], [1 / RANKS[b][q] for q in RANKS[m]]
        ).pvalue
        for b in BASELINES
        for m in MODELS
    ]
    assert rows.p.tolist() == pytest.approx(hand, rel=1e-9)
    assert rows.family_size.tolist() == [6] * 6
    assert rows.p_adjusted.tolist() == pytest.approx(np.minimum(1, 6 * np.array(hand)), rel=1e-9)
    assert "Bonferroni over 6 comparisons: 3 models × 2 baselines" in result.caption
    out = folder.parent / "compare.csv"
    args = ["compare", str(folder), "--vary", "model", "--measure", MEASURE, "--out", str(out)]
    assert main([*args, "--baseline", "bm25", "--baseline", "rm3"]) == 0
    written = pd.read_csv(out, comment="#")
    assert written.p_adjusted.tolist() == pytest.approx(rows.p_adjusted.tolist(), rel=1e-5)
    assert list(zip(written.a, written.b, strict=True)) == list(zip(rows.a, rows.b, strict=True))
    # as JSON: every row with its adjusted p and the topics its paired design needs per δ
    as_json = folder.parent / "compare.json"
    both = ["--baseline", "bm25", "--baseline", "rm3", "--format", "json", "--out", str(as_json)]
    assert main([*args[:-2], *both]) == 0
    told = json.loads(as_json.read_text())
    assert [r["p_adjusted"] for r in told["comparisons"]] == pytest.approx(
        rows.p_adjusted.tolist(), rel=1e-12
    )
    assert [r["topics_needed"] for r in told["comparisons"]] == rows.topics_needed.tolist()
    assert {tuple(e) for r in told["comparisons"] for e in r["topics_needed"]} == {
        ("delta", "topics")
    }
    assert "Bonferroni over 6 comparisons: 3 models × 2 baselines" in told["caption"]
    one = api.compare(str(folder / "qrels.txt"), runs, baseline="bm25", measure=MEASURE)
    assert one.table.family_size.tolist() == [4] * 4  # rm3 is one more level against bm25
    assert "comparisons:" not in one.caption


def test_the_card_states_the_family_the_audit_caption_states(folder, tmp_path, monkeypatch):
    """The card says m as the audit's caption does, however many of the family's rows it
    shows: one model's card was corrected over all 6 comparisons; against bm25 alone, rm3
    is a fourth model."""
    import leakeval_core.present.card as card_words

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    family = "Bonferroni over 6 comparisons: 3 models × 2 baselines"
    assert family in api.audit(folder, measure=MEASURE).caption
    assert family in api.card(folder, measure=MEASURE).markdown
    one_model = api.card(folder, measure=MEASURE, model="C")
    assert len(one_model.verdicts) == 2 and family in one_model.markdown
    assert one_model.as_dict()["family"].startswith(family)
    one_baseline = api.card(folder, measure=MEASURE, baseline="bm25")
    assert one_baseline.verdicts.family_size.tolist() == [4] * 4
    assert "Bonferroni over 4 comparisons: 4 models, within each" in one_baseline.markdown
    # the power it states is the one the rows were sized at
    monkeypatch.setattr(card_words, "POWER", 0.9)
    assert "with 90% power" in api.card(folder, measure=MEASURE).markdown


def test_the_story_names_the_baseline_of_its_row(folder, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    told = api.story(folder, measure=MEASURE)
    assert told.pair == {"collection": "robust", "model": "A", "baseline": "bm25"}
    assert "(baseline bm25)" in told.answer and told.facts.b == "bm25"
    assert (
        "Bonferroni over the 6 comparisons of robust's models with its 2 baselines" in told.evidence
    )
    assert len(told.answers) == 6
    other = api.story(folder, measure=MEASURE, pair={**told.pair, "baseline": "rm3"})
    rows = api.audit(folder, measure=MEASURE).table
    row = rows[(rows.model == "A") & (rows.baseline == "rm3")].iloc[0]
    assert other.facts.b == "rm3" and other.facts.p_adjusted == row.p_adjusted
    with pytest.raises(LeakevalError, match="not one the design audits against"):
        api.story(folder, measure=MEASURE, pair={**told.pair, "baseline": "B"})
    assert main(["story", str(folder), "--measure", MEASURE, "--level", "baseline", "rm3"]) == 0
    lines = capsys.readouterr().out
    assert "- A against rm3: " in lines and "- C against bm25: " in lines


def test_the_audit_page_and_the_story_name_each_rows_baseline(folder, tmp_path, monkeypatch):
    """The app with two baselines: the table has a baseline column, the closer look is of
    one model against one baseline and its charts say which; the Story picks a baseline."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LEAKEVAL_DATA", str(folder.parent))
    monkeypatch.chdir(ROOT)
    rows = api.audit(folder).table  # the app's default measure
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.switch_page("app_pages/audit.py").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = at.table[0].value
    assert list(zip(shown.model, shown.baseline, strict=True)) == list(
        zip(rows.model, rows.baseline, strict=True)
    )
    open_tab(at, "audit_tab", "Closer look")
    look = widget(at.selectbox, "audit_model")
    assert set(look.options) == {f"model={m}, baseline={b}" for m in MODELS for b in BASELINES}
    look.set_value("model=C, baseline=rm3").run()
    assert not at.exception, [e.value for e in at.exception]
    titles = [
        json.loads(c.proto.spec)["layout"]["yaxis"]["title"]["text"] for c in at.get("plotly_chart")
    ]
    assert any(t.startswith(f"{api.View().parsed_measure.label} gain over rm3") for t in titles)

    at.switch_page("app_pages/story.py").run()
    assert not at.exception, [e.value for e in at.exception]
    picker = widget(at.selectbox, "story_baseline")
    assert picker.options == BASELINES and picker.value == "bm25"
    assert "Every model against each baseline" in " ".join(m.value for m in at.markdown)
    assert list(at.table[0].value.baseline) == rows.baseline.tolist()
    picker.set_value("rm3").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "(baseline rm3)" in at.subheader[0].value
