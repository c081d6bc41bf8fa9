"""The folder the app serves: its experiments, read on every rerun and never written, and
its paths as a page shows them.

The app writes only to its cache. The demo is generated when someone asks for it
(`leakeval demo`, `make app`, `leakeval app` without a folder, before its server starts),
never by a running server: a folder, or an experiment, deleted or unmounted while readers
have it open stays gone, and their pages say so.

A page never shows where the server keeps its files: a path in a message is written from
the served folder's own name (`data/demo/runs/bm25.run`), and one in the home folder from
`~`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.manifest import find_experiments

__all__ = ["data_root", "experiments", "relative_paths"]


def data_root() -> Path:
    return Path(os.environ.get("LEAKEVAL_DATA", "data")).resolve()


def experiments(root: Path, opened: str | None = None) -> dict[str, Path]:
    """The experiments under `root` by name; a LeakevalError that says what is gone when
    there are none (`opened`: the experiment the reader had open)."""
    found = {path.name: path for path in find_experiments(root)}
    if found:
        return found
    folder = f"{root.name}/"
    make = f"`leakeval demo --out {folder}demo` writes the simulated demo there"
    if not root.is_dir():
        raise LeakevalError(
            f"the folder {folder} is gone; nothing to show until it is back ({make})"
        )
    if opened is not None:
        raise LeakevalError(
            f"the experiment {folder}{opened} is gone, and {folder} holds no other; "
            f"nothing to show until one is back ({make})"
        )
    raise LeakevalError(
        f"no experiment in {folder}: a folder with an experiment.toml, in it or directly "
        f"below it (the docs' page 'Your own study' shows one; {make})"
    )


def relative_paths(text: str) -> str:
    """`text` with each absolute path of the served folder, of an experiment in it (a
    symlink's target too) and of the home folder written from the served folder's name,
    the experiment's and `~`."""
    root = data_root()
    shown = {str(Path.home()): "~", str(root): root.name}
    for path in find_experiments(root):
        if path != root:
            shown[str(path.resolve())] = f"{root.name}/{path.name}"
    for place in sorted(shown, key=len, reverse=True):  # the deepest first
        if len(place) > 1:
            text = re.sub(re.escape(place) + r"(?![\w.-])", lambda _, p=place: shown[p], text)
    return text
