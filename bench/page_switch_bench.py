"""Dashboard responsiveness in a real headless Chromium: cold start, cold and warm page switches.

Starts the app on the demo (generating it first if missing), then times, per page, a
click on its sidebar link until Streamlit is idle with a chart or table drawn. The first
visit of a page is cold (its data is computed and cached); later visits are warm, each a
switch from another page, made after a pause (`--settle`) as a reader would, so the
previous page is no longer painting. Two clocks per switch:
- in the page: from the click event to the first frame after the script finished;
- Playwright's wall time around it, which adds its own click checks (about 50 ms).
Run by hand:

    .venv/bin/python bench/page_switch_bench.py [--rounds 5] [--settle 1.0] [--fresh]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    PAGES,
    start_app,
    stop_app,
    wait_until_idle,
)

# Records the click's time, then the first frame after the app's script state goes from
# running back to notRunning. Only the app root's attributes are observed: watching the
# whole tree would slow the rendering being measured.
ARM_CLOCK = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const clock = (window.__switchClock = {});
    document.addEventListener('click', () => { clock.click = performance.now(); },
                              {capture: true, once: true});
    const observer = new MutationObserver(() => {
        const state = app.dataset.testScriptState;
        if (state === 'running') clock.running = true;
        if (clock.running && state === 'notRunning') {
            observer.disconnect();
            requestAnimationFrame(() => setTimeout(() => { clock.painted = performance.now(); }));
        }
    });
    observer.observe(app, {attributes: true});
}"""


def visit(page, name: str, settle: float = 0.0) -> tuple[float, float | None]:
    """Playwright's wall time of a switch to `name`, and the in-page time (None when cold:
    the script may finish before the observer sees it start)."""
    time.sleep(settle)
    page.evaluate(ARM_CLOCK)
    start = time.perf_counter()
    page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True).click()
    page.locator("h2", has_text=name).first.wait_for(timeout=180_000)
    page.locator('.js-plotly-plot, [data-testid="stDataFrame"]').first.wait_for(timeout=180_000)
    wait_until_idle(page, timeout=180_000)
    wall = time.perf_counter() - start
    page.wait_for_function("() => window.__switchClock.painted !== undefined", timeout=10_000)
    clock = page.evaluate("() => window.__switchClock")
    return wall, (clock["painted"] - clock["click"]) / 1000


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
    start = time.perf_counter()
    proc, url = start_app(data_root, cache)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(url)
            page.locator("h2", has_text="Dataset browser").first.wait_for(timeout=300_000)
            page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=300_000)
            wait_until_idle(page, timeout=300_000)
            what = "demo generated, scored, leakage detected" if args.fresh else "existing demo"
            print(f"cold start to first page: {time.perf_counter() - start:.1f} s ({what})")
            cold = {name: visit(page, name)[0] for name in PAGES}
            warm: dict[str, list[tuple[float, float]]] = {name: [] for name in PAGES}
            for _ in range(args.rounds):  # every visit is a switch from another page
                for name in PAGES:
                    warm[name].append(visit(page, name, args.settle))
            browser.close()
    finally:
        stop_app(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'page':<24} {'cold':>8}   warm median: in page  Playwright   (in page, each switch)")
    for name in PAGES:
        walls, in_page = zip(*warm[name], strict=True)
        print(
            f"{name:<24} {cold[name] * 1000:5.0f} ms   {_ms(statistics.median(in_page)):>17}"
            f"  {_ms(statistics.median(walls)):>10}   {[round(t * 1000) for t in in_page]}"
        )
    for clock, index in (("in page", 1), ("Playwright", 0)):
        times = [switch[index] for switches in warm.values() for switch in switches]
        print(
            f"warm page switch, {clock}: median {_ms(statistics.median(times))}, "
            f"max {_ms(max(times))}"
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    main()
