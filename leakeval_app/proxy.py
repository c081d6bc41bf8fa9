"""The nginx site that puts a lab's leakeval behind a password: one template, which
docs/serving.md shows (its `{{ nginx }}` macro renders it) and tests/app/test_proxy.py runs
with Debian's nginx and drives with Chromium, so the configuration a lab copies is the one
that was tested.

What it must hold, and why:

- `auth_basic` over everything: leakeval has no accounts of its own;
- the websocket at `/_stcore/stream` upgraded and kept open (a session is one long-lived
  websocket, and a cold computation keeps a reader waiting on it);
- a body limit at Streamlit's own upload limit (`limits.streamlit_upload_mb`, twice
  leakeval's), so a file past leakeval's limit reaches leakeval and gets its message, not
  nginx's 413 page;
- `/_stcore/metrics` not served: Streamlit's cache statistics name the app's cached
  functions and their sizes, nothing a visitor needs.
"""

from __future__ import annotations

from string import Template

__all__ = ["nginx_site"]

_SITE = Template(
    """\
# htpasswd -c $htpasswd alice
server {
    listen $listen;
    server_name $server_name;
$tls
    auth_basic           "leakeval";
    auth_basic_user_file $htpasswd;
    client_max_body_size ${body_mb}m;  # Streamlit's upload limit: $margin x LEAKEVAL_MAX_UPLOAD_MB

    location / {
        proxy_pass http://$upstream;
        proxy_set_header Host $$host;
        proxy_set_header X-Forwarded-For $$proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $$scheme;
    }
    location /_stcore/stream {
        proxy_pass http://$upstream/_stcore/stream;
        proxy_http_version 1.1;
        proxy_set_header Upgrade $$http_upgrade;
        proxy_set_header Connection "upgrade";
        proxy_set_header Host $$host;
        proxy_read_timeout 86400;       # a session is one long-lived websocket
    }
    location = /_stcore/metrics {       # Streamlit's cache statistics: not for visitors
        return 404;
    }
}
"""
)


def nginx_site(
    server_name: str,
    upstream: str,
    htpasswd: str,
    *,
    listen: str = "443 ssl",
    certificate: tuple[str, str] | None = None,
    upload_mb: int | None = None,
) -> str:
    """The `server` block for leakeval served at `upstream` (`127.0.0.1:8501`), its
    readers' passwords in `htpasswd`; TLS from `certificate` (the chain and the key), and a
    body limit of `upload_mb` (default: the server's, `limits.streamlit_upload_mb`; at least
    1 MB, as 0 is no limit to nginx)."""
    from leakeval_app.limits import STREAMLIT_MARGIN, streamlit_upload_mb

    tls = ""
    if certificate is not None:
        chain, key = certificate
        tls = f"    ssl_certificate     {chain};\n    ssl_certificate_key {key};\n"
    body = streamlit_upload_mb() if upload_mb is None else upload_mb
    return _SITE.substitute(
        listen=listen,
        server_name=server_name,
        tls=tls,
        htpasswd=htpasswd,
        body_mb=max(body, 1),
        margin=STREAMLIT_MARGIN,
        upstream=upstream,
    )
