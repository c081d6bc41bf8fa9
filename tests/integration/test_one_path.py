"""One number, every door: the API, the CLI, the app (AppTest) and the report show the same
values, cell by cell. Each door is compared with the API, so a door changed alone fails its
comparison; the API itself is held to trec_eval's expected output and to scipy elsewhere."""

from __future__ import annotations

import csv
import html
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from leakeval_core import api
from leakeval_core.api.doors import story_factors, story_numbers
from leakeval_core.cli import main
from leakeval_core.present.display import CHANGES_TITLE
from tests.app.apptest import open_tab, widget
from tests.support import ROOT, shared, write

pytestmark = pytest.mark.demo

APP_MEASURES = [
    "ndcg_cut_10",
    "P_1",
    "first_rel_rank",
    "recip_rank",
    "map",
    "recall_100",
    "judged_10",
]


def report_table(html: str, heading: str) -> pd.DataFrame:
    """The first table under `heading` in a report, as the text its cells show."""
    section = html[html.index(f"<h2>{heading}</h2>") :]
    table = section[: section.index("</table>")]
    header = re.findall(r"<th>(.*?)</th>", table)
    rows = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", table)[1:]]
    return pd.DataFrame(rows, columns=header)


def shown(value: float) -> str:
    """A number as tables print it (`present.tables`): 4 decimals."""
    return f"{value:.4f}"


def shown_p(value: float) -> str:
    return f"{value:.2e}" if value < 1e-3 else f"{value:.4f}"


# ------------------------------------------------------------------ means, all_trec


@pytest.fixture(scope="module")
def suite_experiment(tmp_path_factory):
    """trec_eval's test qrels and run as a one-run experiment the app can open."""
    folder = shared("peer", "trec_eval-test")
    qrels = (folder / "qrels.test").read_text()
    qids = sorted({line.split()[0] for line in qrels.splitlines() if line.strip()})
    root = tmp_path_factory.mktemp("suite") / "suite"
    write(root / "topics.tsv", "".join(f"{q}\ttopic {q}\n" for q in qids))
    write(root / "qrels.txt", qrels)
    write(root / "runs" / "results.run", (folder / "results.test").read_text())
    write(
        root / "experiment.toml",
        'name = "trec_eval suite"\n[collections.suite]\ntopics = "topics.tsv"\n'
        'qrels = "qrels.txt"\n[runs]\npattern = "runs/{model}.run"\n',
    )
    return root


TREC_EVAL = "depth=1000&ties=docid_desc&missing=drop&unjudged=zero"
"""trec_eval 10's conventions, as a link writes them."""


def assert_answers_shown(on_screen: pd.DataFrame, rows: pd.DataFrame) -> None:
    """A page's leaked-minus-other table (text) shows these rows' figures, each rounded to
    the decimals it shows (3, or more for a value below 0.001), their adjusted p and their
    verdicts, in their order."""
    for header, column in (
        ("Gain, leaked", "gain_leaked"),
        ("Gain, other", "gain_other"),
        ("Leaked − other", "difference"),
        ("mde", "mde"),
    ):
        texts = on_screen[header].tolist()
        decimals = [len(t.partition(".")[2]) for t in texts]
        rounded = [round(v, d) for v, d in zip(rows[column], decimals, strict=True)]
        assert [float(t) for t in texts] == pytest.approx(rounded, abs=1e-9), column
    assert on_screen["Adjusted p"].tolist() == [f"{p:.2g}" for p in rows.p_adjusted]
    assert on_screen.Verdict.tolist() == rows.verdict.tolist()


def test_means_of_every_all_trec_measure_agree_between_the_api_the_cli_and_trec_eval(
    tmp_path, capsys
):
    from leakeval_core.evaluation.conventions import Conventions
    from tests.integration.test_trec_eval_suite import expected

    folder = shared("peer", "trec_eval-test")
    qrels, run = folder / "qrels.test", folder / "results.test"
    truth = expected("out.test")
    measures = [m for m in truth if m not in ("runid", "relstring")]
    through_api = api.score(qrels, [run], measures, Conventions.trec_eval()).means().iloc[0]
    out = tmp_path / "means.csv"
    args = ["score", "--compat", "trec_eval", "--qrels", str(qrels), "--run", str(run)]
    assert main([*args, "--measures", ",".join(measures), "--out", str(out)]) == 0
    with open(out) as fh:
        through_cli = {r["measure"]: float(r["value"]) for r in csv.DictReader(fh)}
    capsys.readouterr()
    assert set(through_cli) == set(measures) == set(through_api.index)
    for measure in measures:
        assert through_cli[measure] == through_api[measure], measure  # to the last digit
        written = truth[measure]["all"]
        assert abs(through_api[measure] - float(written)) <= 0.5e-4 + 1e-9, measure


def test_the_apps_means_are_the_apis(suite_experiment, tmp_path, monkeypatch):
    from leakeval_app.screen import Screen

    monkeypatch.setenv("LEAKEVAL_DATA", str(suite_experiment.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    screen, notices = Screen.from_url(f"/conditions?{TREC_EVAL}")
    assert notices == ()
    expected = api.score(
        suite_experiment / "qrels.txt",
        [suite_experiment / "runs" / "results.run"],
        APP_MEASURES,
        screen.view.conventions,
    ).means()
    for measure in APP_MEASURES:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        for key, value in screen.to_params().items():
            at.query_params[key] = value
        at.query_params["measure"] = measure
        at.switch_page("app_pages/conditions.py").run()
        assert not at.exception, [e.value for e in at.exception]
        table = at.dataframe[0].value
        assert table["mean"].iloc[0] == pytest.approx(expected.loc["results", measure], abs=1e-12)


def test_ndcg_at_relevance_level_2_is_one_number_on_every_door(tmp_path, monkeypatch, capsys):
    """TREC DL's level 2 on graded qrels: q2 is judged at grade 1 at most, so it has no
    relevant document for the binary measures but keeps its graded gain in nDCG@10; q3 has
    no positive grade and is left out. The API, the CLI and the app show one mean, the
    hand-computed one."""
    import math

    from leakeval_app.screen import Screen
    from leakeval_core.evaluation.conventions import Conventions

    root = tmp_path / "data" / "dl"
    write(root / "topics.tsv", "q1\tfirst\nq2\tsecond\nq3\tthird\n")
    write(root / "qrels.txt", "q1 0 a 2\nq1 0 b 1\nq2 0 c 1\nq2 0 d 0\nq3 0 e 0\n")
    run = "q1 Q0 b 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 d 1 3 r\nq2 Q0 c 2 2 r\nq3 Q0 e 1 1 r\n"
    write(root / "runs" / "r.run", run)
    write(
        root / "experiment.toml",
        'name = "graded"\n[collections.dl]\ntopics = "topics.tsv"\nqrels = "qrels.txt"\n'
        '[runs]\npattern = "runs/{model}.run"\n',
    )
    by_hand = ((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)) + (1 / math.log2(3)) / 1) / 2
    through_api = api.score(
        root / "qrels.txt", [root / "runs" / "r.run"], "ndcg_cut_10", Conventions(relevance_level=2)
    ).means()
    assert through_api.loc["r", "ndcg_cut_10"] == pytest.approx(by_hand, abs=1e-12)
    out = tmp_path / "means.csv"
    args = ["score", "--relevance-level", "2", "--qrels", str(root / "qrels.txt")]
    assert (
        main(
            [
                *args,
                "--run",
                str(root / "runs" / "r.run"),
                "--out",
                str(out),
                "--measures",
                "ndcg_cut_10",
            ]
        )
        == 0
    )
    assert "1 query of the qrels with no positive grade, excluded" in capsys.readouterr().err
    with open(out) as fh:
        assert [float(r["value"]) for r in csv.DictReader(fh)] == [
            through_api.loc["r", "ndcg_cut_10"]
        ]
    monkeypatch.setenv("LEAKEVAL_DATA", str(root.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    screen, notices = Screen.from_url("/conditions?rel=2&measure=ndcg_cut_10")
    assert notices == () and screen.view.conventions.relevance_level == 2
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in screen.to_params().items():
        at.query_params[key] = value
    at.switch_page("app_pages/conditions.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.dataframe[0].value["mean"].iloc[0] == pytest.approx(by_hand, abs=1e-12)


# ------------------------------------------------------------- compare, inflation


@pytest.fixture(scope="module")
def doors(demo_dir, demo_cache, tmp_path_factory):
    """The demo's comparisons, inflation and story through each door, computed once."""
    import os

    os.environ["LEAKEVAL_CACHE"] = str(demo_cache.root)
    out = tmp_path_factory.mktemp("doors")
    study = api.Study.open(demo_dir, demo_cache)
    through = {
        "compare": api.compare(study).table,
        "inflation": api.inflation(study).table,
        "story": api.story(study),
        "report": api.report(study),
    }
    assert main(["compare", str(demo_dir), "--out", str(out / "c.csv")]) == 0
    assert main(["inflation", str(demo_dir), "--format", "csv", "--out", str(out / "i.csv")]) == 0
    through["cli compare"] = pd.read_csv(out / "c.csv")
    through["cli inflation"] = pd.read_csv(out / "i.csv")
    return through


def test_screens_that_differ_only_in_what_they_show_share_each_verbs_result(demo_dir, demo_cache):
    """The verbs remember a result by the View, which holds no page, tab or presentation
    mode: the Story's screen and a presented audit page with its tab open read one result."""
    from leakeval_app.screen import Screen

    study = api.Study.open(demo_dir, demo_cache)
    story, _ = Screen.from_url("/?threshold=0.6")
    audit, _ = Screen.from_url("/audit?threshold=0.6&present=1&audit_tab=Closer+look")
    assert (story.page, story.present) != (audit.page, audit.present)
    assert api.inflation(study, view=story.view) is api.inflation(study, view=audit.view)
    assert api.audit(study, view=story.view) is api.audit(study, view=audit.view)


COMPARED = ["n", "mean_a", "mean_b", "delta", "p", "p_adjusted", "family_size", "ci_low", "ci_high"]


def test_compare_rows_agree_across_the_api_the_cli_the_app_and_the_report(doors, app):
    rows = doors["compare"]
    cli = doors["cli compare"]
    assert len(cli) == len(rows) == 45
    for column in COMPARED:  # CSV keeps 6 significant digits
        assert cli[column].tolist() == pytest.approx(rows[column].tolist(), rel=1e-5), column
    assert cli.significant.tolist() == rows.significant.tolist()

    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Significance")
    on_screen = at.dataframe[0].value
    here = rows[rows.collection == widget(at.selectbox, "collection").value]
    assert len(on_screen) == len(here) == 15
    for column in [*COMPARED, "significant"]:
        assert on_screen[column].tolist() == here[column].tolist(), column  # the same floats

    reported = report_table(doors["report"], "Significance")
    assert len(reported) == len(rows)
    for column in ("n", "family_size"):
        assert reported[column].tolist() == rows[column].astype(str).tolist()
    for column in ("mean_a", "mean_b", "delta", "ci_low", "ci_high"):
        assert reported[column].tolist() == [shown(v) for v in rows[column]], column
    assert reported.p_adjusted.tolist() == [shown_p(v) for v in rows.p_adjusted]
    assert reported.significant.tolist() == ["yes" if s else "no" for s in rows.significant]


def test_a_twins_reports_leaderboard_shows_the_groups_the_condition_page_shows(
    demo_dir, demo_cache, doors
):
    """The demo has leaked and clean twins and no baseline: its report shows the
    leaderboard the condition comparison page's Leaderboard tab draws (`le.leaderboard`),
    every place of it, group by group and rank interval by rank interval."""
    board = api.leaderboard(api.Study.open(demo_dir, demo_cache))
    reported = report_table(doors["report"], "Leaderboard on all and on clean topics")
    places = [k for k in board.keys if board.table[k].nunique() > 1]
    assert len(reported) == len(board.table) == 90  # 30 leaderboards of 3 systems
    expected = {
        tuple(str(row[k]) for k in [*places, "system"]): (
            row["group"],
            row["clean_group"],
            f"{row['rank_low']}"
            if row["rank_low"] == row["rank_high"]
            else f"{row['rank_low']}–{row['rank_high']}",
        )
        for row in board.table.to_dict("records")
    }
    shown_rows = {
        tuple(row[k] for k in [*places, "system"]): (
            row["group (all)"],
            row["group (clean)"],
            row["ranks (all)"],
        )
        for row in reported.to_dict("records")
    }
    assert shown_rows == expected
    moved = board.changes[board.changes.change != "unchanged"]
    assert len(moved), "the demo has pairs whose verdict changes on clean topics"
    changed = report_table(doors["report"], CHANGES_TITLE)
    assert len(changed) == len(moved)


INFLATED = [
    "leaked_topics",
    "other_topics",
    "gain_leaked",
    "gain_other",
    "difference",
    "p",
    "p_adjusted",
    "family_size",
    "confidence",
    "ci_low",
    "ci_high",
    "mde",
]
"""Every figure of a leaked-minus-other answer: each door shows the same, cell by cell."""


def test_inflation_rows_agree_across_the_api_the_cli_the_app_and_the_report(doors, app):
    rows = doors["inflation"]
    cli = doors["cli inflation"]
    assert len(cli) == len(rows) == 45
    for column in INFLATED:
        assert cli[column].tolist() == pytest.approx(rows[column].tolist(), rel=1e-5), column
    assert cli.verdict.tolist() == rows.verdict.tolist()

    at = open_tab(app("app_pages/conditions.py"), "conditions_tab", "Inflation")
    on_screen = at.table[0].value  # text: the same figures, rounded to 3 decimals
    here = rows[rows.collection == widget(at.selectbox, "collection").value]
    assert len(on_screen) == len(here) == 15
    assert_answers_shown(on_screen, here)
    assert on_screen["Topics (leaked / other)"].tolist() == [
        f"{a} / {b}" for a, b in zip(here.leaked_topics, here.other_topics, strict=True)
    ]
    assert here.test.iloc[0] in " ".join(c.value for c in at.caption)

    reported = report_table(doors["report"], "Inflation")
    for column in ("leaked_topics", "other_topics", "family_size", "verdict", "test"):
        cells = [html.unescape(cell) for cell in reported[column]]
        assert cells == rows[column].astype(str).tolist(), column
    for column in ("gain_leaked", "gain_other", "difference", "ci_low", "ci_high", "mde"):
        assert reported[column].tolist() == [shown(v) for v in rows[column]], column
    assert reported.p_adjusted.tolist() == [shown_p(v) for v in rows.p_adjusted]


def test_every_pair_of_twins_gets_one_answer_from_inflation_the_audit_and_the_story(
    doors, demo_dir, demo_cache, tmp_path, capsys
):
    """One question, one test: inflation and the audit of the twins (API and `leakeval audit
    --json`) give the same p, adjusted p, interval, mde and verdict for every pair, and the
    Story gives them too."""
    import json

    rows = doors["inflation"]
    study = api.Study.open(demo_dir, demo_cache)
    audited = api.audit(study).table
    factors = story_factors(study)  # every factor but the leakage one
    joined = rows.merge(audited, on=factors, suffixes=("", " audit"))
    assert len(joined) == len(rows) == 45
    for column in [*INFLATED, "verdict", "test"]:
        assert joined[column].tolist() == joined[f"{column} audit"].tolist(), column
    assert main(["audit", str(demo_dir), "--json", str(tmp_path / "a.json")]) == 0
    capsys.readouterr()
    written = pd.DataFrame(json.loads((tmp_path / "a.json").read_text())["audit"])
    for column in [*INFLATED, "verdict"]:
        assert written[column].tolist() == audited[column].tolist(), column
    # the Story of each collection's first and last pair (every pair is the same call)
    ends = rows.groupby("collection", sort=False).nth([0, -1])
    for row in ends.itertuples():
        pair = {f: getattr(row, f) for f in factors}
        facts = api.story(study, pair=pair).facts
        assert (facts.p, facts.p_adjusted, facts.ci_low, facts.ci_high, facts.mde) == (
            row.p,
            row.p_adjusted,
            row.ci_low,
            row.ci_high,
            row.mde,
        )
        assert (facts.verdict, facts.confidence, facts.test) == (
            row.verdict,
            row.confidence,
            row.test,
        )


def test_the_story_headline_agrees_across_the_api_the_cli_the_app_and_the_report(
    doors, app, demo_dir, capsys
):
    told = doors["story"]
    capsys.readouterr()
    assert main(["story", str(demo_dir)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        told.headline,
        told.answer,
        told.detail,
        told.evidence,
        told.leaked,
        *(f"Warning: {w}" for w in told.warnings),
        *(f"Note: {n}" for n in told.notes),
    ]
    [judged] = told.notes
    assert judged.startswith("Judged@10 is under 90% for 2 of the 2 compared, lowest leakage none")
    assert "at 65.1%" in judged  # the demo's synthetic pools are shallow
    at = app()
    assert judged in [c.value for c in at.caption]
    assert at.header[0].value == told.headline
    assert at.markdown[0].value == f"**{told.answer}**"
    assert at.markdown[1].value == told.evidence
    cards = story_numbers(told, api.View().parsed_measure)
    shown = [(m.label, m.value, m.delta or None) for m in at.metric]
    assert shown == [(label, value, interval) for label, value, interval, _ in cards]
    text = f"{told.headline} {told.answer} {told.detail} {told.evidence} {told.leaked} {judged}"
    assert f"<h2>Story</h2><p>{text}</p>".replace("'", "&#x27;") in doors["report"]


@pytest.fixture
def app(demo_dir, demo_cache, monkeypatch):
    monkeypatch.setenv("LEAKEVAL_DATA", str(demo_dir.parent))
    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    monkeypatch.chdir(ROOT)

    def open_page(page: str | None = None) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return open_page


# ------------------------------------------------------------------------------ audit


AUDITED = [
    "leaked_topics",
    "other_topics",
    "gain_leaked",
    "gain_other",
    "difference",
    "ci_low",
    "ci_high",
    "p",
    "p_adjusted",
    "family_size",
]


def test_audit_rows_agree_across_the_api_the_cli_json_the_app_and_the_report(
    audit_dir, tmp_path, capsys, monkeypatch
):
    import json

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    result = api.audit(audit_dir)
    rows = result.table
    assert rows.model.tolist() == ["t5-clean", "t5-leaked"] and set(rows.split) == {"leaked"}
    assert main(["audit", str(audit_dir), "--json", str(tmp_path / "a.json")]) == 0
    capsys.readouterr()
    written = json.loads((tmp_path / "a.json").read_text())
    assert written == json.loads(json.dumps(result.as_dict()))  # every figure, as computed
    cli = pd.DataFrame(written["audit"])
    for column in AUDITED:
        assert cli[column].tolist() == rows[column].tolist(), column

    monkeypatch.setenv("LEAKEVAL_DATA", str(audit_dir.parent))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.switch_page("app_pages/audit.py").run()
    assert not at.exception, [e.value for e in at.exception]
    on_screen = at.table[0].value  # text: the same figures, rounded to 3 decimals
    assert on_screen.model.tolist() == rows.model.tolist()
    assert_answers_shown(on_screen, rows)
    interval = next(c for c in on_screen.columns if c.startswith("Interval"))
    assert interval == f"Interval ({rows.confidence.iloc[0]:.1%})"
    bounds = [float(x) for v in on_screen[interval] for x in v.strip("[]").split(", ")]
    assert bounds == pytest.approx(rows[["ci_low", "ci_high"]].round(3).to_numpy().ravel())

    reported = report_table(api.report(audit_dir), "Leakage audit")
    assert reported.model.tolist() == rows.model.tolist()
    for column in ("gain_leaked", "gain_other", "difference", "ci_low", "ci_high"):
        assert reported[column].tolist() == [shown(v) for v in rows[column]], column
    assert reported.p_adjusted.tolist() == [shown_p(v) for v in rows.p_adjusted]


def test_leaderboard_groups_agree_across_the_api_the_cli_the_audit_and_the_report(
    audit_dir, tmp_path, capsys, monkeypatch
):
    """One set of HSD groups and rank intervals: `le.leaderboard`, `leakeval leaderboard
    --json` and `--format latex`, the audit's leaderboard and the report's table."""
    import json

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    board = api.leaderboard(audit_dir)
    table = board.table.sort_values(["collection", "rank", "system"], kind="stable")
    assert main(["leaderboard", str(audit_dir), "--json", str(tmp_path / "b.json")]) == 0
    capsys.readouterr()
    written = json.loads((tmp_path / "b.json").read_text())
    assert written == json.loads(json.dumps(board.as_dict()))
    for entry in written["collections"]:
        for topic_set in entry["topic_sets"]:
            prefix = "" if topic_set["topics"] == "all" else "clean_"
            rows = table[table.collection == entry["collection"]].set_index("system")
            for system in topic_set["systems"]:
                assert system["group"] == rows.loc[system["system"], f"{prefix}group"]
                assert system["rank_low"] == rows.loc[system["system"], f"{prefix}rank_low"]

    audited = api.audit(audit_dir).leaderboard
    columns = ["system", "group", "rank_low", "rank_high", "clean_group", "clean_rank_high"]
    pd.testing.assert_frame_equal(
        audited.sort_values(["collection", "system"])[columns].reset_index(drop=True),
        board.table.sort_values(["collection", "system"])[columns].reset_index(drop=True),
    )

    reported = report_table(api.report(audit_dir), "Leaderboard on all and on clean topics")
    assert reported.system.tolist() == table.system.tolist()
    assert reported["group (all)"].tolist() == table.group.tolist()
    assert reported["group (clean)"].tolist() == table.clean_group.tolist()
    assert main(["leaderboard", str(audit_dir), "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    for row in table.itertuples():
        line = next(line for line in latex.splitlines() if line.startswith(f"{row.system} &"))
        letters = re.findall(r"\$\^\{\\mathrm\{(\w+)\}\}\$", line)
        assert letters == [row.group, row.clean_group], line


def test_a_models_closer_look_is_computed_alone_and_is_the_one_every_figure_holds(audit_dir):
    """The audit page shows one model's dose-response, categories, trend and sensitivity
    (`Audit.at`): computed for it alone when asked for, and equal to that model's rows in
    every figure (`as_dict`, the JSON the CLI writes)."""
    import json

    from leakeval_core.api.results import records

    result = api.audit(audit_dir)
    assert len(result.closer) == 2
    assert list(result.looks()) == ["model=t5-leaked", "model=t5-clean"]  # largest first
    first, second = result.closer
    one = result.at({"model": first.placed["model"]})
    assert one.closer == (first,)
    shown = {name: getattr(one, name) for name in ("dose", "categories", "trend", "sensitivity")}
    assert "response" in vars(first) and "sensitivity" in vars(first)
    assert "response" not in vars(second) and "sensitivity" not in vars(second)
    everything = json.loads(json.dumps(result.as_dict()))
    for name, key in (
        ("dose", "dose_response"),
        ("categories", "categories"),
        ("trend", "trend"),
        ("sensitivity", "sensitivity"),
    ):
        mine = [row for row in everything[key] if row["model"] == first.placed["model"]]
        alone = json.loads(json.dumps(records(shown[name])))
        assert mine == alone and len(mine) > 0, name


def test_the_drill_down_of_an_audit_opens_on_a_model_against_its_baseline(audit_dir, monkeypatch):
    """A is the audited model and B the baseline, so A − B is the gain the audit tests."""
    monkeypatch.setenv("LEAKEVAL_DATA", str(audit_dir.parent))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.switch_page("app_pages/queries.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert widget(at.selectbox, "a_model").value == "t5-clean"
    assert widget(at.selectbox, "b_model").value == "bm25"


def test_the_audit_from_files_is_the_experiments(audit_dir, tmp_path, capsys):
    """`leakeval audit --qrels --run --baseline --pairs` computes what the folder gives."""
    folder = api.audit(audit_dir)
    out = tmp_path / "audit.csv"
    runs = audit_dir / "runs"
    args = ["audit", "--qrels", str(audit_dir / "qrels.txt"), "--baseline", str(runs / "bm25.run")]
    args += ["--run", str(runs / "t5-leaked.run"), "--run", str(runs / "t5-clean.run")]
    args += ["--pairs", str(audit_dir / "pairs.csv"), "--out", str(out)]
    assert main(args) == 0
    assert "Observational" in capsys.readouterr().out
    files = pd.read_csv(out).sort_values("system").reset_index(drop=True)
    assert files.system.tolist() == folder.table.model.tolist()
    for column in AUDITED:
        assert files[column].tolist() == pytest.approx(folder.table[column].tolist(), rel=1e-12)


def test_the_audit_story_json_answers_for_every_model_in_the_designs_order(
    audit_dir, tmp_path, capsys, monkeypatch
):
    """`leakeval story --json` on an audit experiment: the headline is the leakage answer for
    the design's first model, picked before looking, and every audited model's answer is
    listed with its verdict, as the audit computes it."""
    import json

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    assert main(["story", str(audit_dir), "--json"]) == 0
    told = json.loads(capsys.readouterr().out)
    rows = api.audit(audit_dir).table
    here = rows[(rows.split == "leaked") & (rows.collection == told["pair"]["collection"])]
    assert told["kind"] == "audit" and told["opening"] == "first"
    assert told["headline"] == told["answer"]
    assert [a["model"] for a in told["answers"]] == here.model.tolist()
    assert told["pair"]["model"] == here.model.iloc[0]
    for answer, row in zip(told["answers"], here.itertuples(), strict=True):
        assert (answer["verdict"], answer["p_adjusted"], answer["mde"]) == (
            row.verdict,
            row.p_adjusted,
            row.mde,
        )
    assert told["leaked"].startswith("Leaked topics")


@pytest.mark.parametrize("measure", ["ndcg_cut_10", "first_rel_rank"])
def test_the_topics_a_verdict_needs_agree_across_every_door(
    audit_dir, tmp_path, capsys, monkeypatch, measure
):
    """`topics_needed` per δ asked (`--delta`, `delta=`, the link's `delta`), for a
    higher- and a lower-is-better measure: the API's rows, `leakeval audit --json` and its
    CSV, the app's audit table, the report and the Story hold the same counts."""
    import json

    from leakeval_core.present.tables import needed_text

    monkeypatch.setenv("LEAKEVAL_CACHE", str(tmp_path / "cache"))
    result = api.audit(audit_dir, measure=measure, delta=[0.5, 0.02])
    rows = result.table
    needed = rows.topics_needed.tolist()
    assert [[e["delta"] for e in row] for row in needed] == [[0.02, 0.5]] * len(rows)
    assert all(isinstance(e["leaked"], int) for row in needed for e in row)

    flags = ["--measure", measure, "--delta", "0.5", "--delta", "0.02"]
    out, written = tmp_path / "a.csv", tmp_path / "a.json"
    assert main(["audit", str(audit_dir), *flags, "--json", str(written), "--out", str(out)]) == 0
    capsys.readouterr()
    assert [r["topics_needed"] for r in json.loads(written.read_text())["audit"]] == needed
    flat = pd.read_csv(out)
    for at_row, entries in enumerate(needed):
        for e in entries:
            for side in ("leaked", "other"):
                assert flat.loc[at_row, f"topics_needed_{e['delta']:g}_{side}"] == e[side]
    monkeypatch.setenv("LEAKEVAL_DATA", str(audit_dir.parent))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["measure"] = measure
    at.query_params["delta"] = "0.02,0.5"
    at.switch_page("app_pages/audit.py").run()
    assert not at.exception, [e.value for e in at.exception]
    on_screen = at.table[0].value
    column = "Topics for δ 0.02 · 0.5 (leaked / other)"
    assert on_screen[column].tolist() == [needed_text(row) for row in needed]

    report = api.report(audit_dir, measure=measure, delta=[0.02, 0.5])
    for row in needed:
        assert html.escape(needed_text(row)) in report

    story = api.story(audit_dir, measure=measure, delta=[0.02, 0.5])
    first = rows[rows.model == story.pair["model"]].iloc[0]
    assert list(story.facts.topics_needed) == first.topics_needed


def test_judged_at_10_under_ninety_percent_is_named_in_the_audit_and_leaderboard_captions(
    demo_dir, demo_cache, capsys
):
    """The demo's synthetic pools judge 65 to 80% of a run's top 10: the audit's and the
    leaderboard's captions name the lowest condition, on the API and the command line alike,
    at the share counted by hand from the run files and the qrels."""
    study = api.Study.open(demo_dir, demo_cache)
    lowest = "collection robust04, model colbert, leakage none, train_size 2000 at 65.1%"
    for verb in ("audit", "leaderboard"):
        caption = getattr(api, verb)(study).caption
        assert f"Judged@10 is under 90% for 90 of the 90 compared, lowest {lowest}" in caption
        capsys.readouterr()
        assert main([verb, str(demo_dir)]) == 0
        assert caption in capsys.readouterr().out
    qrels = pd.read_csv(
        demo_dir / "collections" / "robust04" / "qrels.txt",
        sep=" ",
        names=["qid", "q0", "docid", "grade"],
        dtype=str,
    )
    judged = set(zip(qrels.qid, qrels.docid, strict=True))
    creditable = set(qrels.qid[qrels.grade.astype(int) > 0])
    top = 0
    hits = 0
    for path in sorted(
        (demo_dir / "runs" / "robust04" / "colbert" / "none" / "2000").glob("*.run")
    ):
        run = pd.read_csv(
            path, sep=" ", names=["qid", "q0", "docid", "rank", "score", "tag"], dtype=str
        )
        run = run[run.qid.isin(creditable)].assign(score=lambda r: r.score.astype(float))
        run = run.sort_values(["qid", "score", "docid"], ascending=[True, False, True])
        first = run.groupby("qid").head(10)
        top += len(first)
        hits += sum((q, d) in judged for q, d in zip(first.qid, first.docid, strict=True))
    assert f"{hits / top:.1%}" == "65.1%"
