"""Content keys of the inputs the caches are keyed on.

Only hashlib: a warm command computes these to find its cached result, and must not pay
for importing numpy, pyarrow or pandas just to learn that it has nothing to compute.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.aliases import resolve_alias
from leakeval_core.experiment.manifest import CollectionSpec
from leakeval_core.io.digest import file_digest
from leakeval_core.io.formats import query_folder_files
from leakeval_core.io.shards import find_shards

__all__ = ["collection_digest", "file_digest", "source_digest"]


def collection_digest(spec: CollectionSpec) -> str:
    """A cheap content key for a collection, computed without parsing it.

    Local files (a BEIR folder's queries and split qrels among them) are hashed; an
    ir_datasets collection is keyed by its id and the installed ir_datasets version, which
    fixes the files it serves.
    """
    if spec.ir_datasets is not None:
        text = _dataset_key(spec.ir_datasets)
    else:
        if len(spec.files) != 2:
            raise LeakevalError(f"collection {spec.name!r} needs topics and qrels files")
        text = "".join(file_digest(path) for path in spec.files)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def source_digest(source: str | Path) -> str:
    """Content hash of a file, of every shard of a sharded log (names and contents, in
    order) or of the files of a folder that is one source (`query_folder_files`), or the id
    and ir_datasets version for a named dataset."""
    shards = find_shards(source)
    if shards is not None:
        digest = hashlib.blake2b(digest_size=16)
        for shard in shards:
            digest.update(f"{shard.name}\0{file_digest(shard)}\n".encode())
        return digest.hexdigest()
    files = query_folder_files(source)
    if files is not None:
        return hashlib.blake2b(
            "".join(f"{p.name}\0{file_digest(p)}\n" for p in files).encode(), digest_size=16
        ).hexdigest()
    return file_digest(source) if Path(source).exists() else _dataset_key(str(source))


def _dataset_key(dataset: str) -> str:
    from importlib.metadata import version

    return f"irds:{resolve_alias(dataset)}:{version('ir_datasets')}"
