"""End to end: a real headless Chromium clicks through every page of the running app.

Skips only where /usr/bin/chromium is absent; .ci/run installs it, so CI never skips.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from leakeval_app.page_list import PAGES as PAGE_LIST
from leakeval_app.page_list import url_path
from tests.chromium import CHROMIUM
from tests.support import ROOT

SHOTS = ROOT / "test-output" / "screenshots"
DRAWN_CHART = ".js-plotly-plot .main-svg"
TABLE = '[data-testid="stDataFrame"], [data-testid="stTable"]'
PATHS = {title: path for path, (title, _) in PAGE_LIST.items()}
"""Each page's title, in the sidebar's order, and its URL path."""
MAIN_CONTENT = {
    title: TABLE if path == "datasets" else DRAWN_CHART for title, path in PATHS.items()
}
"""What each page must show once drawn: its main chart (a table on the dataset browser)."""
PAGES = list(MAIN_CONTENT)
HEADING = {"Story": "Leaked training"}
"""Text of each page's h2 where it is not the page's name (the story's is its headline)."""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.demo,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(
    data_root: Path,
    cache: Path,
    env: dict[str, str] | None = None,
    serve: dict | None = None,
    args: tuple[str, ...] = (),
) -> tuple[subprocess.Popen, str]:
    """The dashboard as a user starts it, `leakeval app DATA [args] --port N`, once it answers.

    `env`: more environment. `serve`: Streamlit options `leakeval app` would set otherwise;
    the app's server (`python -m leakeval_app.serve`) is then started with these instead."""
    port = free_port()
    env = {**os.environ, "LEAKEVAL_CACHE": str(cache), **(env or {})}
    command = [sys.executable, "-m", "leakeval_core.cli", "app", str(data_root), *args, "--port"]
    if serve is not None:
        from leakeval_core.cli.dashboard import STREAMLIT_OPTIONS

        options = {**STREAMLIT_OPTIONS, **serve}
        command = [sys.executable, "-m", "leakeval_app.serve"]
        command += [f"--{name}={value}" for name, value in options.items()]
        command.append("--server.port")
        env["LEAKEVAL_DATA"] = str(data_root)
    proc = subprocess.Popen(
        [*command, str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    if answers(proc, url):
        return proc, url
    proc.kill()
    raise RuntimeError(f"leakeval app did not start: {proc.stdout.read().decode()[-2000:]}")


HEALTH_POLL = 0.05
"""Seconds between two health checks of a starting server: the floor bench times the bare
app and the dashboard from their start, so both are looked at as often."""


def answers(proc: subprocess.Popen, url: str) -> bool:
    """Whether the server at `url` answers its health check before its process exits."""
    while proc.poll() is None:  # a failed start exits at once
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(HEALTH_POLL)
    return False


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=20)


IDLE = """(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return Boolean(app && app.dataset.testScriptState === 'notRunning'
        && !document.querySelector('[data-testid="stStatusWidget"]')
        && !document.querySelector('[data-testid="stSkeleton"]'));
})()"""
"""In-page: Streamlit is done. The app root says its script is not running (the status
widget alone shows up only after a delay, so a fast check could pass mid-run) and no element
still waits for its component's code (a skeleton stands in for it meanwhile: the script's
run can end before the browser has loaded, say, the metrics' code)."""


def wait_until_idle(page, timeout: float = 120_000) -> None:
    """Wait until the page is `IDLE`."""
    page.wait_for_function(f"() => {IDLE}", timeout=timeout)


def open_tab(page, name: str, shown) -> None:
    """Open the tab `name` and wait for `shown` (a locator) in it. Tabs run only the open one,
    so a click starts a rerun, and a rerun already on its way (an upload's, an earlier
    click's) can land after the click and draw the tab it was started for. The click is
    repeated, as a person would, until the tab stays open; `shown` is then waited for."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    tab = page.get_by_role("tab", name=name, exact=True)
    for _ in range(5):
        wait_until_idle(page)
        tab.click()
        try:
            shown.wait_for(timeout=20_000)
            return
        except PlaywrightTimeout:
            if tab.get_attribute("aria-selected") == "true":
                shown.wait_for(timeout=120_000)  # open and still drawing: wait for it
                return
    raise AssertionError(f"the tab {name!r} did not stay open after 5 clicks")


def choose_option(page, combobox, name: str) -> None:
    """Pick an option from a selectbox. A rerun landing between opening the list and the
    click can swallow the key or redraw the list under the pointer, so the whole gesture is
    retried until the click lands."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    option = page.get_by_role("option", name=name, exact=True)
    for _ in range(5):
        wait_until_idle(page)
        combobox.click()
        page.keyboard.press("ArrowDown")  # opens the list (a click only focuses the field)
        try:
            option.click(timeout=10_000)
            return
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    raise AssertionError(f"could not choose {name!r}: the list kept closing under the click")


TABLE_SCREENS = [
    "story",
    "queries",
    "queries?queries_tab=All+measures+per+query",
    "leakage",
    "audit",
    "audit?audit_tab=Leaderboard",
    "conditions",
    "conditions?conditions_tab=Significance",
    "conditions?conditions_tab=Inflation",
    "conditions?conditions_tab=Ranking+change",
    "datasets",
    "datasets?datasets_tab=Runs%3A+judged%4010",
]
"""Every screen that draws a table, by its link (the Story by its own name, `/story`)."""

OVERFLOW = """() => [...document.querySelectorAll(
        '[data-testid="stDataFrame"], [data-testid="stTable"]')].map(table => {
    const scroller = table.querySelector('.dvn-scroller') || table;
    return scroller.scrollWidth - scroller.clientWidth;
})"""
"""How far each table on the page reaches beyond its box (a data grid's scroller, or a
static table's own box): 0 when every column is seen without scrolling sideways."""


SIZES = [(1280, 720), (1920, 1080)]
"""A laptop's and a desktop's window."""


def at_size(page, size: tuple[int, int]) -> None:
    """The window resized, as a reader drags it, and laid out anew (two frames drawn)."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def test_every_table_shows_all_its_columns(app_url, browser):
    """At a laptop's and a desktop's size, no table hides a column off to the right. Each
    screen opens at the smaller size, then its window is widened. The screenshots, one per
    screen and size, are in test-output/screenshots to be looked at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
    for screen in TABLE_SCREENS:
        page.goto(f"{app_url}/{screen}")
        page.locator(TABLE).first.wait_for(timeout=180_000)
        wait_until_idle(page)
        assert page.get_by_text("Page not found").count() == 0, screen
        assert page.locator('[data-testid="stException"]').count() == 0, screen
        name = screen.replace("?", "-").replace("=", "-").replace("+", "-").replace("%", "")
        for size in SIZES:
            at_size(page, size)
            page.locator(TABLE).first.scroll_into_view_if_needed()  # the shot shows the table
            page.screenshot(path=str(SHOTS / f"tables-{name}-{size[0]}.png"))
            reaches = page.evaluate(OVERFLOW)
            assert all(reach <= 1 for reach in reaches), (screen, size, reaches)
        at_size(page, SIZES[0])
    page.close()


def test_the_story_opens_at_its_own_name(app_url, browser):
    """`/story`, the page's name as the sidebar titles it, is the Story, not "Page not
    found"."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{app_url}/story")
    page.locator("h2", has_text=HEADING["Story"]).first.wait_for(timeout=180_000)
    wait_until_idle(page)
    assert page.get_by_text("Page not found").count() == 0
    page.close()


def test_shared_link_reopens_the_view(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{app_url}/conditions?measure=P_1&x=model&colour=leakage&facet=collection")
    page.locator("h2", has_text="Condition comparison").wait_for(timeout=120_000)
    page.locator(DRAWN_CHART).first.wait_for(timeout=60_000)
    wait_until_idle(page)
    page.screenshot(path=str(SHOTS / "shared-link.png"))
    assert page.get_by_text("P@1 (higher is better)").count() > 0
    assert "measure=P_1" in page.url
    page.close()


@pytest.mark.parametrize(
    ("path", "tabs"),
    [
        ("conditions", ["Significance", "Inflation", "Ranking change"]),
        ("leakage", ["Similarity distribution", "Categories"]),
        ("audit", ["Closer look"]),
    ],
)
def test_chart_tabs_render(app_url, browser, path, tabs):
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    page.goto(f"{app_url}/{path}")
    page.locator(DRAWN_CHART).first.wait_for(timeout=120_000)
    wait_until_idle(page)
    for tab in tabs:
        panel = page.get_by_role("tabpanel", name=tab)
        open_tab(page, tab, panel.locator(DRAWN_CHART).first)
        panel.scroll_into_view_if_needed()
        assert page.locator('[data-testid="stException"]').count() == 0, tab
        page.screenshot(path=str(SHOTS / f"{path}-{tab.lower().replace(' ', '-')}.png"))
    page.close()


def test_drilldown_one_query_tab(app_url, browser):
    """The one-query view: topic, both ranked lists with grades, the document notice."""
    page = browser.new_page(viewport={"width": 1500, "height": 1400})
    page.goto(f"{app_url}/queries")
    page.locator(DRAWN_CHART).first.wait_for(timeout=120_000)
    wait_until_idle(page)
    panel = page.get_by_role("tabpanel", name="One query")
    open_tab(page, "One query", panel.get_by_text("Nearest training queries"))
    # nearest training queries, then lists A and B: waiting for the third waits out the
    # rerun (the idle check right after a click can pass before the rerun starts)
    panel.locator('[data-testid="stDataFrame"]').nth(2).wait_for(timeout=60_000)
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    panel.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "drill-down-one-query.png"), full_page=True)
    page.close()


def test_uploaded_runs_are_scored_kept_and_compared(app_url, browser, demo_dir, tmp_path):
    """Scored with words that add up, kept across tabs, kept once when uploaded twice,
    compared with a condition on leaked and other topics; a bad file says file:line."""
    good = tmp_path / "mine.run"
    good.write_bytes((demo_dir / "runs/robust04/monot5/leaked/2000/fold1.run").read_bytes())
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 2.0 x\n301 Q0 d2 2 nan x\n")
    marked = tmp_path / "**big**[a](b).run"  # a name that is also Markdown
    marked.write_bytes(good.read_bytes().splitlines(keepends=True)[0])
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    page.goto(f"{app_url}/datasets")
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
    wait_until_idle(page)
    open_tab(page, "Score your own run", page.get_by_test_id("stFileUploader"))
    dropzone = page.get_by_test_id("stFileUploaderDropzoneInput")
    dropzone.set_input_files([str(good), str(bad), str(marked)])
    main = page.get_by_test_id("stMain")
    main.get_by_text("**big**[a](b).run", exact=True).first.wait_for(timeout=60_000)
    # one fold's run: its 50 topics retrieved, the other 200 of the collection count as 0
    coverage = "250 queries in the means: 50 retrieved by the run, 200 absent from it, scored 0"
    page.get_by_text(coverage).wait_for(timeout=60_000)
    page.get_by_text("bad.run:2: score 'nan' is not finite").wait_for(timeout=60_000)
    page.get_by_text("A: the uploaded run; B: collection=robust04").wait_for(timeout=60_000)
    wait_until_idle(page)
    page.screenshot(path=str(SHOTS / "upload.png"))
    page.get_by_text("A: the uploaded run; B: collection=robust04").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "upload-compared.png"))
    before = uploader_generation(page)
    dropzone.set_input_files([str(good)])  # the same file again
    wait_for_generation_after(page, before)  # each upload is taken out of the uploader,
    wait_until_idle(page)  # which is drawn anew under its next key
    topics = page.get_by_role("tabpanel", name="Topics")
    open_tab(page, "Topics", topics.locator('[data-testid="stDataFrame"]').first)
    open_tab(page, "Score your own run", page.get_by_text(coverage))  # still there
    wait_until_idle(page)
    assert page.get_by_text(coverage).count() == 1  # and kept once
    assert page.locator('[data-testid="stException"]').count() == 0
    uploader = page.get_by_test_id("stFileUploader")
    assert uploader.get_by_text("mine.run", exact=True).count() == 0
    before = uploader_generation(page)
    dropzone.set_input_files([str(good)])  # in the uploader again, then removed by its button
    # the upload's own rerun must be over first (its uploader renewed): a click sent while
    # that rerun is still on its way can be superseded by it (seen once in a full-suite run)
    wait_for_generation_after(page, before)
    remove_until_gone(page, coverage)
    assert page.get_by_text(coverage).count() == 0  # the uploader did not hand it back
    page.close()


GENERATION = """() => Math.max(-1, ...[...document.querySelectorAll('[class*="st-key-uploads_"]')]
    .map(e => Number(e.className.match(/st-key-uploads_(\\d+)/)[1])))"""
"""The uploader's generation on screen (its key is `uploads_<n>`); -1 before it is drawn."""


def uploader_generation(page) -> int:
    return page.evaluate(GENERATION)


def wait_for_generation_after(page, before: int) -> None:
    """Wait until the uploader is drawn anew after an upload: the browser may hand several
    files over in one change or in several, so the count is not fixed, only that it grows."""
    page.wait_for_function(f"({GENERATION})() > {before}", timeout=60_000)


def remove_until_gone(page, shown: str, attempts: int = 5) -> None:
    """Click the app's Remove button until `shown` is gone. A click sent while the upload's
    own rerun is still on its way can be superseded by it (seen once in a full-suite run),
    and no state tells that rerun apart from the idle before it, so the gesture is retried
    until it lands, as `choose_option` does."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(attempts):
        wait_until_idle(page)
        # exact: the uploader's own file chip has a "Remove …" button too
        remove = page.get_by_role("button", name="Remove", exact=True)
        if remove.count():
            remove.first.click()
        try:
            page.get_by_text(shown).wait_for(state="detached", timeout=30_000)
            wait_until_idle(page)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"{shown!r} still shown after {attempts} clicks on Remove")


def test_renamed_design_in_chromium(renamed_dir, browser, tmp_path):
    """Factors under other names: every page draws, inflation included, with no exception."""
    proc, url = start_app(renamed_dir.parent, tmp_path / "cache")
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/conditions?conditions_tab=Inflation")
        page.locator("h2", has_text="Condition comparison").wait_for(timeout=120_000)
        page.locator(DRAWN_CHART).first.wait_for(timeout=60_000)
        wait_until_idle(page)
        open_tab(page, "Inflation", page.get_by_text("Leaked topics with the largest gains"))
        wait_until_idle(page)
        assert page.get_by_text("contamination = contaminated").count() > 0  # the legend
        for name in PAGES:
            page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True).click()
            page.locator("h2", has_text=HEADING.get(name, name)).first.wait_for(timeout=60_000)
            page.locator(MAIN_CONTENT[name]).first.wait_for(timeout=60_000)
            wait_until_idle(page)
            assert page.locator('[data-testid="stException"]').count() == 0, name
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "renamed-design-conditions.png"), full_page=True)
        page.close()
    finally:
        stop_app(proc)


SLIDE_CHECK = """(viewport) => {
    const main = document.querySelector('[data-testid="stMain"]');
    const shown = (el) => el.getClientRects().length > 0
        && getComputedStyle(el).visibility !== 'hidden';
    const small = [], outside = [], controls = [];
    let bottom = 0;
    for (const el of main.querySelectorAll('*')) {
        if (!shown(el) || el.closest('[data-testid="stElementToolbar"], .modebar')) continue;
        const box = el.getBoundingClientRect();
        const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (text) {
            const size = parseFloat(getComputedStyle(el).fontSize);
            const what = `${el.tagName} ${size}px: ${el.textContent.trim().slice(0, 40)}`;
            if (size < 17.5) small.push(what);
            if (box.right > viewport.width + 1 || box.left < -1) outside.push(what);
            bottom = Math.max(bottom, box.bottom);
        }
        if (el.matches('input, select, textarea, button, [role="tab"], [data-testid="stExpander"]'))
            controls.push(el.outerHTML.slice(0, 80));
    }
    return {small, outside, controls, bottom};
}"""


def test_presentation_mode_fills_each_slide_with_type_a_room_can_read(app_url, browser):
    """?present=1 at 1280x720 and 1920x1080 (each slide opened at the first, then its window
    widened): on every page no control in the main area, type of at least 18 px, nothing
    cut at the sides; the Story fits the screen and fills it; the slide's own links go on
    to the next page and out of the mode."""
    page = browser.new_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
    for name in PAGES:
        path = url_path(PATHS[name])
        page.goto(f"{app_url}/{path}?present=1")
        page.locator("h2", has_text=HEADING.get(name, name)).first.wait_for(timeout=180_000)
        for width, height in SIZES:
            at_size(page, (width, height))
            # a slide draws each chart at each screen size and shows the one that fits
            page.locator(f"{MAIN_CONTENT[name]} >> visible=true").first.wait_for(timeout=60_000)
            wait_until_idle(page)
            page.screenshot(path=str(SHOTS / f"present-{path or 'story'}-{width}x{height}.png"))
            found = page.evaluate(SLIDE_CHECK, {"width": width, "height": height})
            where = (name, width, height)
            assert page.locator('[data-testid="stException"]').count() == 0, where
            assert found["controls"] == [], (where, found["controls"][:3])
            assert found["small"] == [], (where, found["small"][:5])
            assert found["outside"] == [], (where, found["outside"][:5])
            assert page.get_by_text("Simulated data").count() > 0, where
            if name == "Story":
                assert page.evaluate("document.scrollingElement.scrollTop") == 0
                assert found["bottom"] <= height, f"the story ends at {found['bottom']:.0f}"
                assert found["bottom"] >= 0.8 * height, "a fifth of the slide is empty"
        at_size(page, SIZES[0])
    page.goto(f"{app_url}/?present=1")
    page.locator("h2", has_text=HEADING["Story"]).first.wait_for(timeout=60_000)
    wait_until_idle(page)
    page.get_by_role("link", name="Dataset browser ▶").click()
    page.locator("h2", has_text="Dataset browser").wait_for(timeout=60_000)
    assert "present=1" in page.url
    wait_until_idle(page)
    page.get_by_role("link", name="✕ leave presentation").click()
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.wait_for(
        timeout=60_000
    )
    assert "present" not in page.url and "/datasets" in page.url
    page.close()


def test_the_presentation_switch_applies_at_once(app_url, browser):
    """The defect: the sidebar's toggle hid the controls but kept small type and the sidebar
    until the next click."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(app_url)
    page.locator("h2", has_text=HEADING["Story"]).first.wait_for(timeout=180_000)
    wait_until_idle(page)
    page.get_by_test_id("stSidebar").get_by_text("Presentation mode").click()
    page.locator(".leakeval-slides").wait_for(timeout=60_000)
    wait_until_idle(page)
    assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "18px"
    assert not page.get_by_test_id("stSidebar").is_visible()
    assert page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').count() == 0
    page.close()


@pytest.mark.parametrize("source", ["table", "scatter"])
def test_per_topic_view_opens_from_the_table_and_the_scatter(app_url, browser, source):
    """A click on a top-inflating row, or on a point of the A-vs-B scatter, opens that topic:
    its A, B and A − B, its course along the training size, and the joined ranked lists."""
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    page.goto(f"{app_url}/queries")
    page.locator(DRAWN_CHART).first.wait_for(timeout=180_000)
    wait_until_idle(page)
    if source == "table":
        table = page.locator('[data-testid="stDataFrame"]').first
        table.scroll_into_view_if_needed()  # under the scatter, as a reader scrolls to it
        box = table.bounding_box()
        page.mouse.click(box["x"] + 18, box["y"] + 35 + 18)  # the first row's checkbox
    else:
        point = page.locator(".js-plotly-plot .scatterlayer .trace").first.locator("path.point")
        point.first.click(force=True)
    panel = page.get_by_role("tabpanel", name="One query")
    panel.get_by_text("along train_size").wait_for(timeout=60_000)
    panel.locator(DRAWN_CHART).first.wait_for(timeout=60_000)
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert panel.get_by_text("A − B").count() > 0 and panel.get_by_text("Leaked topic").count()
    panel.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"per-topic-from-{source}.png"), full_page=True)
    page.close()


def test_charts_follow_a_dark_os_theme(app_url, browser):
    """The defect: with a dark OS theme the charts stayed white boxes with dark text."""
    page = browser.new_page(viewport={"width": 1400, "height": 900}, color_scheme="dark")
    page.goto(f"{app_url}/leakage")
    page.locator(DRAWN_CHART).first.wait_for(timeout=120_000)
    wait_until_idle(page)
    page.reload()  # the first run of a session may not know the theme yet (Streamlit #11920)
    page.locator(DRAWN_CHART).first.wait_for(timeout=120_000)
    wait_until_idle(page)
    colours = page.evaluate(
        """() => {
            const chart = document.querySelector('.js-plotly-plot');
            const title = chart.querySelector('.gtitle');
            return {
                page: getComputedStyle(document.querySelector('[data-testid="stApp"]'))
                    .backgroundColor,
                chart: chart.querySelector('.main-svg').style.background,
                title: getComputedStyle(title).fill,
            };
        }"""
    )
    page.screenshot(path=str(SHOTS / "leakage-dark.png"))

    def brightness(css: str) -> float:
        r, g, b = (float(v) for v in css[css.index("(") + 1 : css.index(")")].split(",")[:3])
        return (r + g + b) / 3

    assert brightness(colours["page"]) < 60, colours  # the app itself went dark
    assert colours["chart"].replace(" ", "") == "rgba(0,0,0,0)", colours  # no white box
    assert brightness(colours["title"]) > 200, colours  # light text on the dark page
    page.close()


def test_sidebar_settings_stay_open_and_slider_keys_keep_every_step(app_url, browser):
    """The defects: the sidebar's expanders closed after every change, and arrow keys on
    the threshold slider lost steps."""
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    page.goto(f"{app_url}/leakage")
    page.locator(DRAWN_CHART).first.wait_for(timeout=120_000)
    wait_until_idle(page)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Statistics", exact=True).click()
    wait_until_idle(page)
    correction = sidebar.get_by_text("Correction", exact=True)
    correction.wait_for(timeout=30_000)
    choose_option(page, sidebar.get_by_role("combobox", name="Correction"), "Holm")
    # the View reaches the URL once the server has the change: wait on that state first
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('correction') === 'holm'",
        timeout=60_000,
    )
    wait_until_idle(page)
    sidebar.get_by_text("for leaked minus other topics, Holm, α = 0.05").wait_for(timeout=60_000)
    assert correction.is_visible()  # still open after the change
    thumb = page.get_by_test_id("stMain").locator('input[type="range"]').first
    start = float(thumb.input_value())
    thumb.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    # the server's View reaches the URL: wait until it holds all five steps, then check that
    # no late rerun takes one back
    page.wait_for_function(
        """(expected) => Math.abs(
            parseFloat(new URLSearchParams(location.search).get('threshold')) - expected
        ) < 1e-9""",
        arg=round(start + 0.05, 2),
        timeout=60_000,
    )
    wait_until_idle(page)
    assert float(thumb.input_value()) == pytest.approx(start + 0.05)
    page.screenshot(path=str(SHOTS / "sidebar-open-after-change.png"))
    page.close()


def shown_numbers(page, name: str) -> dict[str, str]:
    """What a page shows that depends on the threshold, the collection and the open tab."""
    main = page.get_by_test_id("stMain")
    texts = {"heading": main.locator("h2").first.inner_text()}
    texts["metrics"] = " | ".join(main.get_by_test_id("stMetric").all_inner_texts())
    captions = main.get_by_test_id("stCaptionContainer").all_inner_texts()
    texts["captions"] = " | ".join(c for c in captions if "≥" in c or "shown" in c)
    selected = main.locator('[role="tab"][aria-selected="true"]').all_inner_texts()
    texts["tab"] = " | ".join(selected)
    return texts


def open_page(page, url: str, name: str) -> None:
    page.goto(url)
    page.locator("h2", has_text=HEADING.get(name, name)).first.wait_for(timeout=180_000)
    page.locator(MAIN_CONTENT[name]).first.wait_for(timeout=60_000)
    wait_until_idle(page)


def test_a_copied_link_shows_the_same_numbers_on_every_page(app_url, browser):
    """Set the threshold to 0.61, the collection to core18 and the Inflation tab as a user
    does, then visit every page from the sidebar: each draws its main chart (a table on the
    dataset browser) with no exception, and nothing is fetched from another host. The link
    then opens every page, in a fresh browser, on the same numbers and tab."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_page(page, f"{app_url}/leakage", "Leakage overlap")
    thumb = page.get_by_test_id("stMain").locator('input[type="range"]').first
    thumb.focus()
    steps = round((0.61 - float(thumb.input_value())) / 0.01)
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
    page.get_by_text("similarity ≥ 0.61").first.wait_for(timeout=60_000)
    wait_until_idle(page)
    assert float(thumb.input_value()) == pytest.approx(0.61)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Condition comparison").click()
    page.locator("h2", has_text="Condition comparison").wait_for(timeout=60_000)
    wait_until_idle(page)
    main = page.get_by_test_id("stMain")
    choose_option(page, main.get_by_role("combobox", name="collection"), "core18")
    wait_until_idle(page)
    open_tab(page, "Inflation", page.get_by_text("Leaked topics with the largest gains"))
    wait_until_idle(page)
    link = urlparse(page.url)
    assert {"threshold=0.61", "collection=core18", "conditions_tab=Inflation"} <= set(
        link.query.split("&")
    ), link.query
    seen = {}
    for name in PAGES:
        page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True).click()
        page.locator("h2", has_text=HEADING.get(name, name)).first.wait_for(timeout=60_000)
        # its main content drawn: waiting for it also waits out the rerun
        page.locator(MAIN_CONTENT[name]).first.wait_for(timeout=60_000)
        wait_until_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0, name
        page.screenshot(path=str(SHOTS / f"{name.lower().replace(' ', '-')}.png"), full_page=True)
        seen[name] = shown_numbers(page, name)
    context.close()
    hosts = {
        urlparse(u).hostname
        for u in requests
        if urlparse(u).scheme in ("http", "https", "ws", "wss")
    }
    assert hosts == {"127.0.0.1"}, sorted(u for u in requests if "127.0.0.1" not in u)[:5]

    assert "core18" in seen["Story"]["heading"]
    assert "≥ 0.61" in seen["Condition comparison"]["captions"]
    assert "Inflation" in seen["Condition comparison"]["tab"]
    for name in PAGES:
        fresh = browser.new_context(viewport={"width": 1500, "height": 1000})
        page = fresh.new_page()
        open_page(page, f"{app_url}/{url_path(PATHS[name])}?{link.query}", name)
        assert page.locator('[data-testid="stException"]').count() == 0, name
        assert shown_numbers(page, name) == seen[name], name
        page.screenshot(path=str(SHOTS / f"link-{PATHS[name]}.png"))
        fresh.close()


def test_the_real_audit_opens_on_its_story(real_audit, browser, tmp_path):
    """BM25+RM3 against BM25 on the real collections: the Story is the audit's, its headline
    the leakage answer for the design's first model, and it says the negative control shows
    no sign of inflation, for every model; at a laptop's and a desktop's size."""
    proc, url = start_app(real_audit.parent, tmp_path / "cache")
    try:
        page = browser.new_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
        page.goto(url)
        headline = page.locator("h3", has_text="No sign that leaked topics inflate").first
        headline.wait_for(timeout=180_000)
        page.locator(DRAWN_CHART).first.wait_for(timeout=60_000)
        wait_until_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        assert page.get_by_text("not significant").count() > 0
        page.get_by_text("Every model against bm25").wait_for(timeout=60_000)
        from playwright.sync_api import expect

        table = page.get_by_test_id("stTable").first  # every model's answer
        expect(table.get_by_text("no evidence", exact=True)).to_have_count(2, timeout=60_000)
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width, height in SIZES:
            at_size(page, (width, height))
            assert headline.is_visible()
            page.screenshot(path=str(SHOTS / f"real-audit-story-{width}x{height}.png"))
        at_size(page, SIZES[0])
        page.locator('[data-testid="stSidebarNav"]').get_by_text("Leakage audit").click()
        page.locator("h2", has_text="Leakage audit").wait_for(timeout=60_000)
        page.locator(DRAWN_CHART).first.wait_for(timeout=60_000)
        wait_until_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        for width, height in SIZES:
            at_size(page, (width, height))
            page.screenshot(
                path=str(SHOTS / f"real-audit-page-{width}x{height}.png"), full_page=True
            )
        page.close()
    finally:
        stop_app(proc)


def test_the_report_fits_a_1280_window_and_prints_to_a4(
    demo_dir, demo_cache, browser, tmp_path, monkeypatch
):
    """The defect: the report was 1745 px wide in a 1280 px window."""
    from leakeval_core.cli import main

    monkeypatch.setenv("LEAKEVAL_CACHE", str(demo_cache.root))
    report = tmp_path / "report.html"
    assert main(["report", str(demo_dir), "--out", str(report)]) == 0
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(report.as_uri())
    page.locator(DRAWN_CHART).first.wait_for(timeout=60_000)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1280
    headings = page.locator("h2").all_inner_texts()
    assert headings[:2] == ["Story", "Gain along train_size"] and "Leakage overlap" in headings
    page.screenshot(path=str(SHOTS / "report-1280.png"))
    page.emulate_media(media="print")
    pdf = page.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") > 3
    # A4 less 1.5 cm margins is 680 CSS pixels wide: nothing may stick out of it
    page.set_viewport_size({"width": 680, "height": 1000})
    # the charts follow the width (plotly's responsive relayout comes after the resize)
    page.wait_for_function("document.scrollingElement.scrollWidth <= 681", timeout=30_000)
    page.close()
