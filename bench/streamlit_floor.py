"""The floor under the dashboard's benches: a bare Streamlit app's cold start and page switch.

Serves bench/floor_app (two pages: a header and a paragraph; a header and one 200-point
Plotly scatter). First, with Chromium open, it starts that app and the dashboard on the demo
in turn (`--cold` times each, the dashboard with an empty cache every time) and times each
from the server's start to its first page drawn (by the page's clock, at the frame it is
drawn in, and as Playwright's waits saw it): the ratio is what leakeval adds to the cold
start no Streamlit app goes below. Then it times switches between the bare pages with
the same in-page clock as bench/page_switch_bench.py. Run by hand:

    .venv/bin/python bench/streamlit_floor.py [--cold 7] [--rounds 10] [--settle 1.0]

Writes bench/results/streamlit_floor.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import record  # noqa: E402

from bench.page_switch_bench import timed_click  # noqa: E402
from tests.app.test_browser import (  # noqa: E402
    HEADING,
    IDLE,
    MAIN_CONTENT,
    PAGES,
    answers,
    free_port,
    start_app,
    stop_app,
    wait_until_idle,
)
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

APP = Path(__file__).resolve().parent / "floor_app"


FLOOR_OPTIONS = (
    "--server.address=127.0.0.1",
    "--server.headless=true",
    "--browser.gatherUsageStats=false",
    "--server.fileWatcherType=none",
)


def start_floor() -> tuple[subprocess.Popen, str]:
    """The bare app, `streamlit run app.py`, once it answers."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", *FLOOR_OPTIONS]
    server = subprocess.Popen(
        [*command, f"--server.port={port}"],
        cwd=APP,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    if not answers(server, url):
        raise RuntimeError("the bare Streamlit app did not start")
    return server, url


# From the page's first script on, one look per frame (as page_switch_bench's clock; a
# whole-tree observer would slow the drawing it times) until the page is drawn: an h2 with
# the heading, the drawn element, and the page idle as the browser tests wait for it
# (`IDLE`). The time is the system clock's, as the bench's own start is (the page's
# performance.timeOrigin is set once per browser process and drifts from it).
DRAWN_CLOCK = """(() => {
    const probe = %s;
    const drawn = () => [...document.querySelectorAll('h2')]
            .some((h) => h.textContent.includes(probe.heading))
        && document.querySelector(probe.drawn)
        && %s;
    const frame = () => {
        if (drawn()) {
            setTimeout(() => { window.__drawnAt = Date.now(); });
        } else {
            requestAnimationFrame(frame);
        }
    };
    requestAnimationFrame(frame);
})();"""


def cold_start(browser, start, heading: str, drawn: str) -> tuple[float, float]:
    """Seconds from starting a server, with the reader's browser open, to its first page
    drawn: `heading` in an h2 and `drawn` on screen, the script's run over. Twice: as
    Playwright's waits see it (they look again after 0.02, 0.05, 0.1, 0.1, then every
    0.5 s, so a later page is seen up to half a second late), and by the page's own clock,
    at the frame it was drawn in."""
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    probe = json.dumps({"heading": heading, "drawn": drawn})
    page.add_init_script(DRAWN_CLOCK % (probe, IDLE))
    began, began_at = time.perf_counter(), time.time()
    server, url = start()
    try:
        page.goto(url)
        page.locator("h2", has_text=heading).first.wait_for(timeout=300_000)
        page.locator(drawn).first.wait_for(timeout=300_000)
        wait_until_idle(page, timeout=300_000)
        polled = time.perf_counter() - began
        page.wait_for_function("() => window.__drawnAt !== undefined", timeout=300_000)
        return polled, page.evaluate("() => window.__drawnAt") / 1000 - began_at
    finally:
        page.close()
        stop_app(server)


def compile_packages() -> None:
    """The checkout's packages byte-compiled for this interpreter, as pip compiles an
    installed package (and `make compile` a checkout): under PYTHONDONTWRITEBYTECODE every
    cold start would otherwise compile them again on import."""
    import tomllib

    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    top = sorted({name.split(".")[0] for name in listed["packages"]})
    subprocess.run([sys.executable, "-m", "compileall", "-qq", "-j", "0", *top], cwd=ROOT)


def cold_starts(browser, rounds: int) -> dict[str, dict[str, list[float]]]:
    """The bare app's first page and the dashboard's Story on the demo (already generated;
    each time with an empty cache), started in turn `rounds` times: the seconds of each, by
    the page's clock ("drawn") and as Playwright's waits saw them ("polled")."""
    from leakeval_core.demo.generator import generate_demo

    compile_packages()
    tmp = Path(tempfile.mkdtemp(prefix="leakeval-floor-"))
    generate_demo(tmp / "data" / "demo")
    story = PAGES[0]
    times: dict[str, dict[str, list[float]]] = {
        clock: {"floor": [], "leakeval": []} for clock in ("drawn", "polled")
    }
    for turn in range(rounds):
        cache = tmp / f"cache-{turn}"
        starts = {
            "floor": cold_start(browser, start_floor, "Text page", '[data-testid="stMarkdown"]'),
            "leakeval": cold_start(
                browser,
                lambda cache=cache: start_app(tmp / "data", cache),
                HEADING.get(story, story),
                MAIN_CONTENT[story],
            ),
        }
        for app, (polled, drawn) in starts.items():
            times["polled"][app].append(polled)
            times["drawn"][app].append(drawn)
        print({app: round(drawn, 2) for app, (_, drawn) in starts.items()}, flush=True)
    return times


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10, help="switches to each page")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds before each switch")
    parser.add_argument("--cold", type=int, default=7, help="cold starts of each app, in turn")
    args = parser.parse_args()
    if args.rounds < 2:
        parser.error("--rounds: at least 2 (the first switch to the chart loads Plotly, uncounted)")
    if args.cold < 1:
        parser.error("--cold: at least 1 cold start of each app")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        starts = cold_starts(browser, args.cold)
        server, url = start_floor()
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(url)
            page.locator("h2", has_text="Text page").wait_for(timeout=120_000)
            times: dict[str, list[float]] = {"Chart": [], "Text": []}
            for _ in range(args.rounds):
                for name in times:
                    link = page.locator('[data-testid="stSidebarNav"]').get_by_text(name)
                    probe = {"selector": "h2", "text": f"{name} page"}
                    times[name].append(timed_click(page, link, args.settle, probe)[1])
        finally:
            stop_app(server)
        browser.close()
    medians = {}
    for name, each in times.items():
        warm = each[1:] if name == "Chart" else each  # the first chart loads Plotly
        medians[name] = statistics.median(warm)
        print(
            f"{name} page: median {medians[name] * 1000:.0f} ms in page, "
            f"{[round(t * 1000) for t in each]}"
        )
    cold = {
        clock: {app: statistics.median(each) for app, each in apps.items()}
        for clock, apps in starts.items()
    }
    ratio = {clock: apps["leakeval"] / apps["floor"] for clock, apps in cold.items()}
    drawn = cold["drawn"]
    print(
        f"cold start: the bare app {drawn['floor']:.2f} s, the dashboard's Story "
        f"{drawn['leakeval']:.2f} s (median of {args.cold}, the page's clock): "
        f"{ratio['drawn']:.2f}x; as Playwright's waits saw them {ratio['polled']:.2f}x"
    )
    record.write(
        "streamlit_floor",
        {
            "median_seconds": medians,
            "each_seconds": times,
            "cold_start_median_seconds": cold["drawn"],
            "cold_start_ratio": ratio["drawn"],
            "cold_start_each_seconds": starts["drawn"],
            "cold_start_polled_median_seconds": cold["polled"],
            "cold_start_polled_ratio": ratio["polled"],
            "cold_start_polled_each_seconds": starts["polled"],
        },
        config=vars(args),
    )


if __name__ == "__main__":
    main()
