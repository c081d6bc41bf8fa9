"""The proxy docs/serving.md gives a lab, run for real: Debian's nginx with the site
`proxy.nginx_site` renders (the one the page shows), a password file from apache2-utils'
htpasswd, in front of `leakeval app` on the demo, driven by headless Chromium on 127.0.0.1
(.ci/run installs both packages)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from base64 import b64encode
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from leakeval_app.proxy import nginx_site
from tests.app.test_browser import (
    DRAWN_CHART,
    HEADING,
    free_port,
    start_app,
    stop_app,
    wait_until_idle,
)
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.browser,
    pytest.mark.demo,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed"),
    pytest.mark.skipif(
        not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()),
        reason="nginx is not installed (apt-get install nginx; .ci/run does)",
    ),
    pytest.mark.skipif(
        shutil.which("htpasswd") is None,
        reason="htpasswd is not installed (apt-get install apache2-utils; .ci/run does)",
    ),
]

USER, PASSWORD = "alice", "correct horse"
UPLOAD_MB = 1
"""The server's upload limit here: a file just past it is small to send."""


def _main_conf(root: Path, site: Path) -> str:
    """nginx's own settings around the site, all inside `root`: one process as this user,
    in the foreground, its temporary files and logs beside the site."""
    temp = "\n".join(
        f"    {kind}_temp_path {root / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    return (
        f"daemon off;\nmaster_process off;\npid {root / 'nginx.pid'};\n"
        f"error_log {root / 'error.log'};\nevents {{}}\n"
        f"http {{\n    access_log off;\n{temp}\n"
        f"    uwsgi_temp_path {root / 'uwsgi'};\n    scgi_temp_path {root / 'scgi'};\n"
        f"    include {site};\n}}\n"
    )


def _listening(proc: subprocess.Popen, port: int) -> bool:
    """Whether nginx accepts connections on `port` before its process exits."""
    while proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            with contextlib.suppress(subprocess.TimeoutExpired):  # a poll of the port
                proc.wait(timeout=0.05)
    return False


@pytest.fixture(scope="module")
def proxied(demo_dir, demo_cache, tmp_path_factory):
    """The demo's dashboard on loopback and nginx in front of it: the proxy's URL."""
    root = tmp_path_factory.mktemp("nginx")
    htpasswd = root / "leakeval.htpasswd"
    subprocess.run(
        ["htpasswd", "-bc", str(htpasswd), USER, PASSWORD], check=True, capture_output=True
    )
    app, app_url = start_app(
        demo_dir.parent, demo_cache.root, env={"LEAKEVAL_MAX_UPLOAD_MB": str(UPLOAD_MB)}
    )
    port = free_port()
    site = root / "leakeval.conf"
    site.write_text(
        nginx_site(
            "localhost",
            app_url.removeprefix("http://"),
            str(htpasswd),
            listen=f"127.0.0.1:{port}",
            upload_mb=2 * UPLOAD_MB,  # what `leakeval app` set its server to
        )
    )
    (root / "nginx.conf").write_text(_main_conf(root, site))
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    proxy = subprocess.Popen(
        [nginx, "-p", str(root), "-c", str(root / "nginx.conf")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        if not _listening(proxy, port):
            pytest.fail(f"nginx did not start: {proxy.stdout.read().decode()}")
        yield f"http://127.0.0.1:{port}"
    finally:
        proxy.terminate()
        proxy.wait(timeout=20)
        stop_app(app)


def _status(url: str, password: str | None = None) -> int:
    request = urllib.request.Request(url)
    if password is not None:
        token = b64encode(f"{USER}:{password}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_no_or_wrong_credentials_get_401(proxied, browser):
    for path in ("/", "/story", "/_stcore/health", "/_stcore/stream"):
        assert _status(proxied + path) == 401, path
        assert _status(proxied + path, "wrong") == 401, path
    for credentials in (None, {"username": USER, "password": "wrong"}):
        context = browser.new_context(http_credentials=credentials)
        assert _refused(context.new_page(), proxied), credentials
        context.close()


def _refused(page, url: str) -> bool:
    """Whether Chromium got a 401 and nothing of the app: headless, it has no password
    prompt, and it either shows the 401 or gives up on it."""
    try:
        response = page.goto(url)
    except PlaywrightError as exc:
        return "ERR_INVALID_AUTH_CREDENTIALS" in str(exc)
    return response.status == 401 and page.locator('[data-testid="stApp"]').count() == 0


def test_the_right_credentials_open_the_story_with_its_chart(proxied, browser):
    """Through the websocket the proxy upgrades: the Story's headline and chart drawn."""
    context = browser.new_context(
        http_credentials={"username": USER, "password": PASSWORD},
        viewport={"width": 1280, "height": 720},
    )
    page = context.new_page()
    assert page.goto(proxied).status == 200
    page.locator("h2", has_text=HEADING["Story"]).first.wait_for(timeout=180_000)
    page.locator(DRAWN_CHART).first.wait_for(timeout=120_000)
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    context.close()


def test_an_upload_through_the_proxy_reaches_leakevals_limit(proxied, browser, tmp_path):
    """A file just past leakeval's limit passes nginx's body limit and Streamlit's (twice
    it), and leakeval refuses it with its own message."""
    context = browser.new_context(http_credentials={"username": USER, "password": PASSWORD})
    page = context.new_page()
    page.goto(f"{proxied}/datasets?datasets_tab=Score+your+own+run")
    page.get_by_text("Score run files").wait_for(timeout=180_000)
    wait_until_idle(page)
    over = tmp_path / "over.run"
    over.write_bytes(b"x" * (UPLOAD_MB * 1_000_000 + 500_000))
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(over)])
    page.get_by_text(
        f"leakeval: over.run: {UPLOAD_MB + 0.5:.1f} MB is over the upload limit of "
        f"{UPLOAD_MB:.1f} MB (LEAKEVAL_MAX_UPLOAD_MB)"
    ).wait_for(timeout=120_000)
    context.close()


def test_streamlits_metrics_are_not_served_to_visitors(proxied):
    assert _status(f"{proxied}/_stcore/metrics", PASSWORD) == 404
    assert _status(f"{proxied}/_stcore/health", PASSWORD) == 200
