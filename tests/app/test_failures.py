"""No traceback reaches a visitor: an exception no one expected, in any page or in the frame
around it, is one line with an error id, and the traceback goes to the server's log under
that id (never a server path on screen)."""

from __future__ import annotations

import re

import pytest
import streamlit as st

from leakeval_app import navigation
from tests.app.apptest import PAGES
from tests.app.test_resilience import open_app_at, small_experiment

SECRET = "/srv/secret/leakeval_core/x.py"


pytestmark = pytest.mark.unexpected_errors


def boom(*args, **kwargs):
    raise RuntimeError(f"a fault of leakeval's in {SECRET}")


def said_once(at, server_log) -> None:
    """One error line with an id, no exception element, the path nowhere on screen; the
    log holds the id with the traceback."""
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.main.error]
    assert len(errors) == 1, errors
    found = re.search(r"\(error id ([0-9a-f]{8})\)", errors[0])
    assert found and errors[0].startswith("leakeval: this page stopped on an unexpected error")
    shown = [str(e.value) for e in at.main if hasattr(e, "value")]
    assert not any(SECRET in text for text in shown)
    logged = [r for r in server_log if found.group(1) in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info[1].args[0].endswith(SECRET)


@pytest.mark.parametrize("page", PAGES)
def test_an_exception_in_a_page_is_an_error_id_not_a_traceback(
    page, tmp_path, monkeypatch, server_log
):
    small_experiment(tmp_path / "data")
    at = open_app_at(tmp_path / "data", tmp_path / "cache", monkeypatch)
    monkeypatch.setattr(st, "header", boom)  # every page opens with its header
    at.switch_page(page).run()
    said_once(at, server_log)
    assert st.get_option("client.showErrorDetails") == "none"


def test_an_exception_around_the_page_is_said_the_same_way(tmp_path, monkeypatch, server_log):
    small_experiment(tmp_path / "data")
    at = open_app_at(tmp_path / "data", tmp_path / "cache", monkeypatch)
    monkeypatch.setattr(navigation, "router", boom)
    at.run()
    said_once(at, server_log)
