"""Dashboard responsiveness in a real headless Chromium: cold start, cold and warm page switches.

Starts the app on the demo (generating it first if missing), then times, per page, the
wall time from clicking its sidebar link until Streamlit is idle with a chart or table
drawn. The first visit of a page is cold (its data is computed and cached); later visits
are warm. Run by hand:

    .venv/bin/python bench/page_switch_bench.py [--rounds 3] [--fresh]
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


def visit(page, name: str) -> float:
    start = time.perf_counter()
    page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True).click()
    page.locator("h2", has_text=name).first.wait_for(timeout=180_000)
    page.locator('.js-plotly-plot, [data-testid="stDataFrame"]').first.wait_for(timeout=180_000)
    wait_until_idle(page, timeout=180_000)
    return time.perf_counter() - start


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3, help="warm switches to each page")
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
            cold = {name: visit(page, name) for name in PAGES}
            warm: dict[str, list[float]] = {name: [] for name in PAGES}
            for _ in range(args.rounds):  # every visit is a switch from another page
                for name in PAGES:
                    warm[name].append(visit(page, name))
            browser.close()
    finally:
        stop_app(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    for name in PAGES:
        times = [round(w * 1000) for w in warm[name]]
        median = statistics.median(warm[name]) * 1000
        print(
            f"{name:<24} cold {cold[name] * 1000:7.0f} ms   warm median {median:6.0f} ms  {times}"
        )
    everything = [w for times in warm.values() for w in times]
    print(
        f"warm page switch: median {statistics.median(everything) * 1000:.0f} ms, "
        f"max {max(everything) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
