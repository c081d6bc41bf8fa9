"""Names a package exports but imports on first use, so `leakeval --help` and
`import leakeval_core` stay instant: the one implementation of PEP 562's module `__getattr__`
for the core's root, its public API and the doors' helpers."""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any


def attach(
    module: str, sources: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`__getattr__`, `__dir__` and `__all__` for `module`, whose names come from `sources`
    (name → the module that defines it). A resolved name is kept on `module`, so each is
    imported once."""
    names = sorted(sources)

    def __getattr__(name: str) -> Any:
        if name not in sources:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(import_module(sources[name]), name)
        setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__, names
