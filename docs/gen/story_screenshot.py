"""Retake docs/images/story.png: the demo's Story at 1280×720 in the machine's headless
Chromium, from `leakeval app` on 127.0.0.1 (the demo generated in a temporary data folder).

    .venv/bin/python docs/gen/story_screenshot.py [--port 8765]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

OUT = ROOT / "docs" / "images" / "story.png"
IDLE = """() => document.querySelector('[data-testid="stApp"]')
    ?.dataset.testScriptState === 'notRunning'"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    url = f"http://127.0.0.1:{args.port}/"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_DATA_HOME": f"{tmp}/data", "XDG_CACHE_HOME": f"{tmp}/cache"}
        command = [sys.executable, "-m", "leakeval_core.cli", "app", "--port", str(args.port)]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        try:
            while server.poll() is None:
                try:
                    with urllib.request.urlopen(f"{url}_stcore/health", timeout=5):
                        break
                except OSError:
                    time.sleep(0.5)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.goto(url)
                page.locator(".js-plotly-plot").first.wait_for(timeout=300_000)
                page.wait_for_function(IDLE, timeout=300_000)
                time.sleep(3)  # the charts' own transitions
                page.screenshot(path=OUT)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=60)
    print(f"written {OUT}")


if __name__ == "__main__":
    main()
