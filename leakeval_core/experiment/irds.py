"""Datasets named by an ir_datasets id, and the files on this machine they are read from.

ir_datasets is imported only when a dataset is named: importing it creates folders under its
home, which a user who only scores local files should never see. What a dataset serves is
what its files hold, so those files (not its id and the library's version alone) are what
its caches are keyed on (`experiment.digests`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.aliases import ALIASES

__all__ = ["dataset_files", "expected_files", "load_dataset"]


def load_dataset(dataset_id: str):
    import ir_datasets

    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise LeakevalError(
            f"unknown ir_datasets id {dataset_id!r}; aliases: {', '.join(ALIASES)}"
        ) from None


def expected_files(obj: object, depth: int = 0) -> list[str]:
    """Where ir_datasets' Download objects inside a handler keep their files."""
    from ir_datasets.util.download import Download

    if isinstance(obj, Download):
        return [str(obj.path(force=False))]
    if depth > 3 or not hasattr(obj, "__dict__"):
        return []
    return [p for value in vars(obj).values() for p in expected_files(value, depth + 1)]


@lru_cache(maxsize=64)
def dataset_files(dataset_id: str, parts: tuple[str, ...] = ("queries", "qrels")) -> tuple:
    """(part, file) for each file the dataset reads its `parts` from, in order; a file may
    not be there yet (ir_datasets downloads it on first use). ir_datasets fixes its paths
    when imported, so they are looked up once per process."""
    dataset = load_dataset(dataset_id)
    found = []
    for part in parts:
        if getattr(dataset, f"has_{part}")():
            handler = getattr(dataset, f"{part}_handler")()
            found += [(part, Path(p)) for p in dict.fromkeys(expected_files(handler))]
    return tuple(found)
