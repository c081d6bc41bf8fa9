"""In Chromium at 1280×720: every page at thresholds 0 and 1 (the leakage views at 0.5 too)
shows no "nan" and no "-0.00", every chart keeps its axis titles inside its box and clear of
its title, and the audit's leaderboard fits the window. One server for the module
(tests/app/conftest.py)."""

from __future__ import annotations

import re

import pytest

from leakeval_app.page_list import PAGES, url_path
from tests.app.test_browser import DRAWN_CHART, HEADING, MAIN_CONTENT, SHOTS, wait_until_idle
from tests.app.test_browser import pytestmark as browser_marks

pytestmark = browser_marks


UNDEFINED = re.compile(r"\bnan\b|[-−]0\.0+\b", re.IGNORECASE)
TABS = {
    "conditions": [{"conditions_tab": "Inflation"}],
    "audit": [{"audit_tab": "Per model"}, {"audit_tab": "Closer look"}],
}
"""The tabs a page is checked on, where its first tab is not the one that matters."""
VIEWS = [
    (url_path(page), title, query)
    for page, (title, _) in PAGES.items()
    for query in TABS.get(page, [{}])
]
"""Every page: checked at the ends, 0 and 1, where a figure can be undefined."""
LEAKAGE_VIEWS = [view for view in VIEWS if view[0] in ("leakage", "audit")]
"""The views a threshold reshapes: checked at 0.5 too."""
BOXES = """(chart) => {
    const box = (e) => { const r = e.getBoundingClientRect();
        return {x: r.x, y: r.y, right: r.right, bottom: r.bottom, width: r.width}; };
    const all = (sel) => [...chart.querySelectorAll(sel)].filter((e) => e.textContent.trim())
        .map(box);
    return {chart: box(chart), x: all('.g-xtitle'), y: all('.g-ytitle'),
            title: all('.g-gtitle')};
}"""


def open_view(page, url: str, name: str) -> None:
    page.goto(url)
    page.locator("h2", has_text=HEADING.get(name, name)).first.wait_for(timeout=180_000)
    wait_until_idle(page)
    page.locator(MAIN_CONTENT[name]).first.wait_for(timeout=120_000)
    wait_until_idle(page)


def shown_text(page) -> str:
    main = page.locator('[data-testid="stMain"]')
    return main.inner_text() + "\n" + "\n".join(main.locator("svg text").all_text_contents())


def inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["right"] <= outer["right"] + slack
        and inner["y"] >= outer["y"] - slack
        and inner["bottom"] <= outer["bottom"] + slack
    )


def overlap(a: dict, b: dict) -> bool:
    return not (
        a["right"] <= b["x"]
        or b["right"] <= a["x"]
        or a["bottom"] <= b["y"]
        or b["bottom"] <= a["y"]
    )


@pytest.mark.parametrize("threshold", ["0", "0.5", "1"])
def test_every_page_shows_no_nan_and_keeps_axis_titles_in_view(app_url, browser, threshold):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        for path, name, query in VIEWS if threshold != "0.5" else LEAKAGE_VIEWS:
            params = "&".join(f"{k}={v.replace(' ', '+')}" for k, v in query.items())
            open_view(page, f"{app_url}/{path}?threshold={threshold}&{params}", name)
            where = f"{path} {query} at threshold {threshold}"
            assert page.locator('[data-testid="stException"]').count() == 0, where
            bad = UNDEFINED.findall(shown_text(page))
            assert not bad, f"{where} shows {bad}"
            charts = page.locator(f"{DRAWN_CHART}:visible").all()
            assert charts or MAIN_CONTENT[name] != DRAWN_CHART, where
            for chart in charts:
                boxes = chart.locator("xpath=ancestor::div[contains(@class,'js-plotly-plot')]")
                found = boxes.first.evaluate(BOXES)
                frame = found["chart"]
                assert found["x"], f"{where}: a chart without an x-axis title"
                for title in found["x"] + found["y"]:
                    assert inside(title, frame), f"{where}: an axis title outside its chart"
                    assert title["x"] >= 0 and title["right"] <= 1280, where
                for title in found["y"]:
                    for heading_box in found["title"]:
                        assert not overlap(title, heading_box), (
                            f"{where}: the y title runs into the chart's title"
                        )
            shot = f"figures-{path or 'story'}-{'-'.join(query.values()) or 'main'}-t{threshold}"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{shot.replace(' ', '-')}.png"))
    finally:
        page.close()


def test_the_leaderboard_fits_a_1280_window(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{app_url}/audit?audit_tab=Leaderboard")
        page.locator("h2", has_text="Leakage audit").first.wait_for(timeout=180_000)
        table = page.locator('[data-testid="stDataFrame"]').first
        table.wait_for(timeout=120_000)
        wait_until_idle(page)
        widths = table.evaluate(
            """(t) => { const s = t.querySelector('.dvn-scroller');
                return s ? [s.scrollWidth, s.clientWidth] : null; }"""
        )
        assert widths is not None
        assert widths[0] <= widths[1] + 1, f"the leaderboard is cut at the right: {widths}"
        header = table.evaluate("(t) => t.textContent")
        assert "clean_ci_low" not in header
    finally:
        page.close()
