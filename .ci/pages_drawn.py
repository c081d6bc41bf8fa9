"""Wait until the server answers (or its process ends), then check in Chromium that the Story
draws its headline and a chart with no error. Usage: story_drawn.py URL SERVER_PID"""

import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.chromium import CHROMIUM, CHROMIUM_ARGS

url, pid = sys.argv[1], sys.argv[2]
while Path(f"/proc/{pid}").exists():  # a server that fails exits: no clock decides
    try:
        with urllib.request.urlopen(f"{url}_stcore/health", timeout=5) as response:
            if response.status == 200:
                break
    except OSError:
        time.sleep(0.5)
else:
    sys.exit("leakeval app exited before it served")

with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    page.get_by_role("heading", name="Leaked training").first.wait_for(timeout=300_000)
    page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=300_000)
    errors = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
    if errors.count():
        sys.exit(f"the Story shows an error: {errors.all_inner_texts()}")
    print(page.get_by_role("heading", name="Leaked training").first.inner_text())
    browser.close()
