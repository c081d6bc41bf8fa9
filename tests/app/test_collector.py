"""The dashboard's garbage-collector tuning: long-lived objects frozen, garbage still freed."""

from __future__ import annotations

import gc
import sys
import tomllib
import types
import weakref

from leakeval_app import collector
from tests.support import ROOT


class _Node:
    """A reference cycle: only the cycle collector can free it."""

    def __init__(self) -> None:
        self.me = self


def test_freezes_once_per_batch_of_imports(monkeypatch):
    """Held by the freezes made and by which objects are frozen, never by the frozen count
    alone: reference counting frees frozen objects whenever anything (another thread) drops
    them, so the count can fall between two looks."""
    monkeypatch.setattr(collector, "_modules_when_frozen", 0)
    freezes = []
    freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (freezes.append(1), freeze()))
    collector.freeze_long_lived_objects()
    assert freezes == [1] and gc.get_freeze_count() > 0

    kept = [_Node() for _ in range(100)]  # alive, made after the freeze
    collector.freeze_long_lived_objects()  # no new module: nothing to do
    assert freezes == [1] and not _frozen(kept)

    monkeypatch.setitem(sys.modules, "leakeval_test_new_module", types.ModuleType("new"))
    collector.freeze_long_lived_objects()
    assert freezes == [1, 1] and _frozen(kept)


def _frozen(objects: list) -> bool:
    """Whether every one of `objects` is in the permanent generation: the collector's own
    generations no longer list it."""
    tracked = {id(o) for o in gc.get_objects()}
    return not any(id(o) in tracked for o in objects)


def test_garbage_at_freeze_time_is_freed_not_frozen(monkeypatch):
    monkeypatch.setattr(collector, "_modules_when_frozen", 0)
    garbage = _Node()
    alive = weakref.ref(garbage)
    del garbage
    assert alive() is not None  # a cycle: reference counting alone cannot free it
    collector.freeze_long_lived_objects()
    assert alive() is None


def test_garbage_made_after_the_freeze_is_still_collected(monkeypatch):
    monkeypatch.setattr(collector, "_modules_when_frozen", 0)
    collector.freeze_long_lived_objects()
    garbage = _Node()
    alive = weakref.ref(garbage)
    del garbage
    gc.collect()
    assert alive() is None


def test_app_config_turns_the_source_watcher_off():
    """With the virtualenv inside the checkout, Streamlit's watcher keeps a CPU core busy
    re-walking the tree (see .streamlit/config.toml): the shipped config must keep it off."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"


def test_error_boxes_link_nowhere():
    """Streamlit's error boxes offer "Ask Google" / "Ask ChatGPT" links on localhost: an
    offline tool sends nobody's inputs there."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorLinks"] is False
