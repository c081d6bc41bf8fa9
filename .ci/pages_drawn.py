"""Wait until the server answers (or its process ends), then check in Chromium that it offers
every page of the app's navigation, no more and no fewer, and that each draws its heading and
its chart (a table on the dataset browser) with no error. Usage: pages_drawn.py URL SERVER_PID
"""

import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from leakeval_app.page_list import PAGES
from tests.chromium import CHROMIUM, CHROMIUM_ARGS

DRAWN = ".js-plotly-plot .main-svg"
CONTENT = {"datasets": '[data-testid="stDataFrame"], [data-testid="stTable"]'}
"""What each page must draw, where it is not a chart."""
HEADING = {"story": "Leaked training"}
"""The page's heading, where it is not the page's title (the Story's is its headline)."""
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
IDLE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.dataset.testScriptState === 'notRunning'
        && !document.querySelector('[data-testid="stStatusWidget"]');
}"""
GUARD = 300_000
"""Milliseconds before a page that never draws fails the check (a hang guard)."""

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

failures = []
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    page.get_by_role("heading", name=HEADING["story"]).first.wait_for(timeout=GUARD)
    page.wait_for_function(IDLE, timeout=GUARD)
    nav = page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]')
    offered = [text.split("\n")[-1].strip() for text in nav.all_inner_texts()]
    expected = [title for title, _ in PAGES.values()]
    if offered != expected:
        sys.exit(f"the navigation offers {offered}, not the app's pages {expected}")
    for path, (title, _) in PAGES.items():
        if path != "story":
            nav.filter(has_text=title).click()
        page.get_by_role("heading", name=HEADING.get(path, title)).first.wait_for(timeout=GUARD)
        page.locator(CONTENT.get(path, DRAWN)).first.wait_for(timeout=GUARD)
        page.wait_for_function(IDLE, timeout=GUARD)
        if errors := page.locator(ERRORS).all_inner_texts():
            failures.append(f"{title} shows an error: {errors}")
        else:
            print(f"drawn: {title}")
    browser.close()
if failures:
    sys.exit("\n".join(failures))
