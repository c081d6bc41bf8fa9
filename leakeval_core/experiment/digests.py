"""Content keys of the inputs the caches are keyed on.

Only the standard library: a warm command computes these to find its cached result, and must not pay
for importing numpy, pyarrow or pandas just to learn that it has nothing to compute. Only
an input named by an ir_datasets id imports ir_datasets, to find the files it is read from.
"""

from __future__ import annotations

from functools import cache
from hashlib import blake2b
from pathlib import Path

from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.aliases import resolve_alias
from leakeval_core.experiment.manifest import CollectionSpec
from leakeval_core.io.digest import file_digest
from leakeval_core.io.formats import query_folder_files
from leakeval_core.io.shards import find_shards

__all__ = [
    "SCORING_CODE",
    "code_digest",
    "collection_digest",
    "file_digest",
    "scoring_code_digest",
    "source_digest",
]

_PACKAGE = Path(__file__).resolve().parents[1]
SCORING_CODE = (
    _PACKAGE / "evaluation",
    _PACKAGE / "io",
    _PACKAGE / "experiment" / "scores.py",
    _PACKAGE / "experiment" / "qrels_cache.py",
)
"""The code a cached score or prepared qrels entry is computed by: the measures and the
scorer, the readers, and the two modules that store what they give."""


def code_digest(*paths: Path) -> str:
    """Content hash of source code: each `.py` file under `paths` (a package's folder, or
    one module), by its name and its content. The caches key on it, so that a change to
    how a number is computed, or to what an entry holds, is a new key by itself: no
    version to remember to raise."""
    digest = blake2b(digest_size=16)
    for top in paths:
        for path in sorted(top.rglob("*.py")) if top.is_dir() else [top]:
            code = path.read_bytes()
            digest.update(f"{path.relative_to(top.parent)}\0{len(code)}\0".encode())
            digest.update(code)
    return digest.hexdigest()


@cache
def scoring_code_digest() -> str:
    """`code_digest` of `SCORING_CODE`, once a process (reading it costs about a
    millisecond)."""
    return code_digest(*SCORING_CODE)


def collection_digest(spec: CollectionSpec) -> str:
    """A cheap content key for a collection, computed without parsing it.

    Local files (a BEIR folder's queries and split qrels among them) are hashed, and so are
    the files an ir_datasets collection serves its topics and qrels from (`_dataset_key`).
    """
    if spec.ir_datasets is not None:
        text = _dataset_key(spec.ir_datasets, ("queries", "qrels"))
    else:
        if len(spec.files) != 1 + spec.judged:
            raise LeakevalError(f"collection {spec.name!r} needs topics and qrels files")
        text = "".join(file_digest(path) for path in spec.files)
    return blake2b(text.encode(), digest_size=16).hexdigest()


def source_digest(source: str | Path) -> str:
    """Content hash of a file, of every shard of a sharded log (names and contents, in
    order) or of the files of a folder that is one source (`query_folder_files`), or of the
    files a named dataset serves its queries from (`_dataset_key`)."""
    shards = find_shards(source)
    if shards is not None:
        digest = blake2b(digest_size=16)
        for shard in shards:
            digest.update(f"{shard.name}\0{file_digest(shard)}\n".encode())
        return digest.hexdigest()
    files = query_folder_files(source)
    if files is not None:
        return blake2b(
            "".join(f"{p.name}\0{file_digest(p)}\n" for p in files).encode(), digest_size=16
        ).hexdigest()
    if Path(source).exists():
        return file_digest(source)
    key = _dataset_key(str(source), ("queries",))
    return blake2b(key.encode(), digest_size=16).hexdigest()


def _dataset_key(dataset: str, parts: tuple[str, ...]) -> str:
    """An ir_datasets dataset's id, the library's version (which decides how its files are
    read) and the content of each file its `parts` come from: a qrels file replaced under
    IR_DATASETS_HOME is a new key. A file not downloaded yet is keyed as absent; ir_datasets
    checks what it downloads against the checksum it ships, so what is then read is the
    one content that id names. An id ir_datasets does not know keys nothing: reading it
    fails, with the message that says so."""
    from importlib.metadata import version

    from leakeval_core.experiment.irds import dataset_files

    dataset_id = resolve_alias(dataset)
    try:
        named = dataset_files(dataset_id, parts)
    except LeakevalError:
        named = ()
    files = "".join(
        f"{part}\0{path.name}\0{file_digest(path) if path.is_file() else 'absent'}\n"
        for part, path in named
    )
    return f"irds:{dataset_id}:{version('ir_datasets')}:{files}"
