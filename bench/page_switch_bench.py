"""Dashboard responsiveness in a real headless Chromium: cold start, cold and warm page switches.

With Chromium already open, as a reader's browser is, starts the app on the demo (with
`--fresh`, generating it first, as `make app` does on a fresh clone) and times the Story's
first draw from the server's start. Then it times, per page, a
click on its sidebar link until the rerun is over with the page's header on screen, and
then widget changes: the sidebar's measure, switched back and forth on Condition
comparison until the chart's axis names it (the first change is cold, the rest warm).
The first visit of a page is cold (its data is computed and cached); later visits are
warm, each a switch from another page, made after a pause (`--settle`) as a reader would,
so the previous page is no longer painting. Two clocks per switch:
- in the page: from the click event to the first frame that shows the result;
- Playwright's wall time around it, which adds its own click checks (about 50 ms).
Run by hand:

    .venv/bin/python bench/page_switch_bench.py [--rounds 5] [--settle 1.0] [--fresh]

Writes bench/results/page_switch_bench.json (with --fresh: page_switch_bench-fresh.json).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import record  # noqa: E402

from leakeval_core.evaluation.measures import Measure, parse_measures  # noqa: E402
from tests.app.test_browser import (  # noqa: E402
    HEADING,
    MAIN_CONTENT,
    PAGES,
    start_app,
    stop_app,
    wait_until_idle,
)
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

# Records the click's time, then the first frame in which the rerun is over (the app root's
# script state is notRunning) and the page shows what the click asked for: `probe.text`
# inside an element matching `probe.selector`, absent before the click. A frame callback
# per frame reads two attributes; observing the whole tree instead would slow the rendering
# being measured, and watching only the state can miss a rerun whose running and finished
# states reach the page in one batch.
ARM_CLOCK = """(probe) => {
    const app = document.querySelector('[data-testid="stApp"]');
    const shown = () => [...document.querySelectorAll(probe.selector)]
        .some((element) => element.textContent.includes(probe.text));
    if (shown()) throw new Error(`already on screen before the click: ${probe.text}`);
    const clock = (window.__switchClock = {});
    document.addEventListener('click', () => {
        clock.click = performance.now();
        const frame = () => {
            if (app.dataset.testScriptState === 'notRunning' && shown()) {
                setTimeout(() => { clock.painted = performance.now(); });
            } else {
                requestAnimationFrame(frame);
            }
        };
        requestAnimationFrame(frame);
    }, {capture: true, once: true});
}"""


def timed_click(page, target, settle: float, probe: dict[str, str]) -> tuple[float, float]:
    """Click `target` after `settle` seconds. Returns Playwright's wall time until the page
    says the rerun is over and drawn, and the in-page time from the click to that frame."""
    time.sleep(settle)
    page.evaluate(ARM_CLOCK, probe)
    start = time.perf_counter()
    target.click()
    page.wait_for_function("() => window.__switchClock.painted !== undefined", timeout=180_000)
    wall = time.perf_counter() - start
    wait_until_idle(page, timeout=180_000)
    clock = page.evaluate("() => window.__switchClock")
    return wall, (clock["painted"] - clock["click"]) / 1000


def visit(page, name: str, settle: float = 0.0) -> tuple[float, float]:
    """Switch to page `name` by its sidebar link: timed until its header is on screen and the
    rerun is over; then its main chart (or table) must be drawn."""
    link = page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True)
    times = timed_click(page, link, settle, {"selector": "h2", "text": HEADING.get(name, name)})
    page.locator(MAIN_CONTENT[name]).first.wait_for(timeout=10_000)
    return times


def choose_measure(page, measure: Measure, settle: float) -> tuple[float, float]:
    """Pick `measure` in the sidebar's Measure box; timed from the click on the option until
    the chart's y axis names it."""
    time.sleep(settle)
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Measure").click()
    option = page.get_by_role("option", name=measure.label, exact=True)
    option.wait_for()
    probe = {"selector": ".js-plotly-plot .g-ytitle", "text": measure.axis_title}
    return timed_click(page, option, 0.0, probe)


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5, help="warm switches to each page")
    parser.add_argument(
        "--settle", type=float, default=1.0, help="seconds to wait before each warm switch"
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="empty data root and cache: the cold start includes generating "
        "the demo, scoring it and detecting leakage",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="leakeval-bench-"))
    data_root = tmp / "data" if args.fresh else ROOT / "data"
    cache = tmp / "cache" if args.fresh else Path(os.environ.get("LEAKEVAL_CACHE", tmp / "c"))
    data_root.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        start = time.perf_counter()  # the reader's browser is open; the server is not
        if args.fresh:  # as `make app` on a fresh clone: generate the demo, then serve it
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "leakeval_core.cli",
                    "demo",
                    "--out",
                    str(data_root / "demo"),
                ],
                check=True,
                capture_output=True,
            )
        proc, url = start_app(data_root, cache)
        try:
            page.goto(url)
            first = PAGES[0]
            page.locator("h2", has_text=HEADING.get(first, first)).first.wait_for(timeout=300_000)
            page.locator(MAIN_CONTENT[first]).first.wait_for(timeout=300_000)
            wait_until_idle(page, timeout=300_000)
            started = "demo generated, scored, leakage detected" if args.fresh else "existing demo"
            cold_start = time.perf_counter() - start
            print(f"cold start to first page: {cold_start:.1f} s ({started})")
            # the first page is open already: each round visits it last
            order = [*PAGES[1:], PAGES[0]]
            cold = {name: visit(page, name)[0] for name in order}
            warm: dict[str, list[tuple[float, float]]] = {name: [] for name in PAGES}
            for _ in range(args.rounds):  # every visit is a switch from another page
                for name in order:
                    warm[name].append(visit(page, name, args.settle))
            visit(page, "Condition comparison", args.settle)
            measures = parse_measures("P_1,ndcg_cut_10")
            changes = [
                choose_measure(page, measures[i % 2], args.settle)
                for i in range(1 + 2 * args.rounds)
            ]
        finally:
            stop_app(proc)
            browser.close()
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'page':<24} {'cold':>8}   warm median: in page  Playwright   (in page, each switch)")
    for name in PAGES:
        walls, in_page = zip(*warm[name], strict=True)
        print(
            f"{name:<24} {cold[name] * 1000:5.0f} ms   {_ms(statistics.median(in_page)):>17}"
            f"  {_ms(statistics.median(walls)):>10}   {[round(t * 1000) for t in in_page]}"
        )
    switches = [switch for times in warm.values() for switch in times]
    print(f"measure change on Condition comparison: cold {_ms(changes[0][1])} in page")
    summary = {}
    for what, timed in (("page switch", switches), ("measure change", changes[1:])):
        for clock, index in (("in page", 1), ("Playwright", 0)):
            times = [t[index] for t in timed]
            summary[f"warm {what}, {clock}"] = {
                "median_seconds": statistics.median(times),
                "max_seconds": max(times),
                "n": len(times),
            }
            print(
                f"warm {what}, {clock}: median {_ms(statistics.median(times))}, "
                f"max {_ms(max(times))}  (n={len(times)})"
            )
    record.write(
        "page_switch_bench" + ("-fresh" if args.fresh else ""),
        {
            "cold_start_seconds": cold_start,
            "cold_start_includes": started,
            "pages": [
                {
                    "page": name,
                    "cold_seconds": cold[name],
                    "warm_median_seconds": statistics.median(t[1] for t in warm[name]),
                }
                for name in PAGES
            ],
            "cold_measure_change_seconds": changes[0][1],
            "summary": summary,
        },
        config=vars(args),
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    main()
