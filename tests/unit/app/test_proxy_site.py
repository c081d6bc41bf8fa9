"""docs/serving.md shows the nginx site `proxy.nginx_site` renders (its `{{ nginx }}` macro),
the one tests/app/test_proxy.py runs: a lab copies the tested configuration."""

from __future__ import annotations

from leakeval_app.proxy import nginx_site
from tests.support import ROOT


def test_the_served_page_shows_the_tested_template():
    page = (ROOT / "docs" / "serving.md").read_text()
    assert "```nginx\n{{ nginx }}\n```" in page
    assert "server {" not in page  # no second, hand-kept copy


def test_the_site_follows_the_servers_upload_limit(monkeypatch):
    monkeypatch.setenv("LEAKEVAL_MAX_UPLOAD_MB", "50")
    assert "client_max_body_size 100m;" in nginx_site("h", "127.0.0.1:8501", "/p")
    monkeypatch.setenv("LEAKEVAL_NO_UPLOADS", "1")  # 0 would be no limit to nginx
    assert "client_max_body_size 1m;" in nginx_site("h", "127.0.0.1:8501", "/p")
