"""The floor under bench/page_switch_bench.py: a page switch in a bare Streamlit app.

Serves bench/floor_app (two pages: a header and a paragraph; a header and one 200-point
Plotly scatter) and times switches between them with the same in-page clock as the
dashboard's bench. What a switch costs here no page of the dashboard can go below.
Run by hand:

    .venv/bin/python bench/streamlit_floor.py [--rounds 10] [--settle 1.0]

Writes bench/results/streamlit_floor.json.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import record  # noqa: E402

from bench.page_switch_bench import timed_click  # noqa: E402
from tests.app.test_browser import free_port  # noqa: E402
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

APP = Path(__file__).resolve().parent / "floor_app"


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10, help="switches to each page")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds before each switch")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "streamlit", "run", "app.py", f"--server.port={port}"),
            *("--server.address=127.0.0.1", "--server.headless=true"),
            *("--browser.gatherUsageStats=false", "--server.fileWatcherType=none"),
        ],
        cwd=APP,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        while server.poll() is None:
            try:
                with urllib.request.urlopen(f"{url}_stcore/health", timeout=5):
                    break
            except OSError:
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(url)
            page.locator("h2", has_text="Text page").wait_for(timeout=120_000)
            times: dict[str, list[float]] = {"Chart": [], "Text": []}
            for _ in range(args.rounds):
                for name in times:
                    link = page.locator('[data-testid="stSidebarNav"]').get_by_text(name)
                    probe = {"selector": "h2", "text": f"{name} page"}
                    times[name].append(timed_click(page, link, args.settle, probe)[1])
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=60)
    medians = {}
    for name, each in times.items():
        warm = each[1:] if name == "Chart" else each  # the first chart loads Plotly
        medians[name] = statistics.median(warm)
        print(
            f"{name} page: median {medians[name] * 1000:.0f} ms in page, "
            f"{[round(t * 1000) for t in each]}"
        )
    record.write(
        "streamlit_floor",
        {"median_seconds": medians, "each_seconds": times},
        config=vars(args),
    )


if __name__ == "__main__":
    main()
