"""One list of pages: the navigation draws it, the links accept it, the scripts exist."""

from __future__ import annotations

from leakeval_app import navigation
from leakeval_app.page_list import PAGES, script
from leakeval_app.screen import Screen
from tests.support import ROOT


def test_the_navigation_the_links_and_the_scripts_name_the_same_pages(monkeypatch):
    drawn = []
    monkeypatch.setattr(navigation.st, "Page", lambda path, **kwargs: drawn.append((path, kwargs)))
    navigation.pages()
    assert [(kwargs["url_path"], kwargs["title"], kwargs["icon"]) for _, kwargs in drawn] == [
        (name, title, icon) for name, (title, icon) in PAGES.items()
    ]
    assert [path for path, _ in drawn] == [script(name) for name in PAGES]
    assert [kwargs["url_path"] for _, kwargs in drawn if kwargs["default"]] == ["story"]

    scripts = {p.stem for p in (ROOT / "app_pages").glob("*.py")}
    assert scripts == set(PAGES)
    candidates = scripts | set(PAGES) | {"settings", "pages"}
    linked = {name for name in candidates if Screen.from_params({}, name)[1] == ()}
    assert linked == set(PAGES)
