"""A training query log split into shards: a folder or a glob of TSV, gzip or Parquet files.

Logs past one machine's patience come as many files, and the files are the unit of work:
each one is read whole by whoever compares it (one process, or a Dask worker). Their order
is the sorted order of their paths, so "the start of the log" (where inverse document
frequencies are fitted) is the same wherever the log is read.

Finding the shards imports nothing heavy: cache keys list them before anything is parsed.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from leakeval_core.errors import LeakevalError, ParseError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SHARD_SUFFIXES", "find_shards", "iter_shard", "write_shards"]

SHARD_SUFFIXES = (".tsv", ".txt", ".csv", ".gz", ".parquet")
"""What a shard may be: `qid<TAB>text` or CSV with a header (either gzipped), or Parquet
with a qid and a text column."""

_GLOB = set("*?[")


def find_shards(source: str | os.PathLike[str]) -> list[Path] | None:
    """The shards of a sharded log, sorted; None when `source` is one file or a dataset id.

    A folder gives its files with a shard suffix (hidden files skipped); a pattern with
    `*`, `?` or `[` gives the files it matches.
    """
    from leakeval_core.io.formats import query_folder_files

    text = str(source)
    path = Path(text)
    if query_folder_files(path) is not None:
        return None  # a saved Hugging Face dataset or a BEIR folder: one source, not shards
    if path.is_dir():
        shards = sorted(
            p
            for p in path.iterdir()
            if p.is_file() and not p.name.startswith(".") and p.suffix in SHARD_SUFFIXES
        )
        if not shards:
            raise LeakevalError(
                f"{text}: a folder with no query shards (files ending in "
                f"{', '.join(SHARD_SUFFIXES)})"
            )
        return shards
    if _GLOB & set(text) and not path.exists():
        shards = sorted(Path(p) for p in glob.glob(text) if Path(p).is_file())
        if not shards:
            raise LeakevalError(f"{text}: the pattern matches no file")
        return shards
    return None


def iter_shard(path: str | os.PathLike[str], chunk_size: int = 100_000) -> Iterator[pd.DataFrame]:
    """A shard as frames of (qid, text), `chunk_size` rows at a time."""
    from leakeval_core.io.query_files import iter_queries

    if str(path).endswith(".parquet"):
        yield from _iter_parquet(Path(path), chunk_size)
    else:
        yield from iter_queries(path, chunk_size)


def _iter_parquet(path: Path, chunk_size: int) -> Iterator[pd.DataFrame]:
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from leakeval_core.io.query_files import QID_COLUMNS, TEXT_COLUMNS

    if not path.exists():
        raise ParseError(path, None, "no such file")
    try:
        reader = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise ParseError(path, None, f"not a readable Parquet file ({exc})") from None
    names = {name.strip().lower(): name for name in reader.schema_arrow.names}
    qid = next((names[c] for c in QID_COLUMNS if c in names), None)
    text = next((names[c] for c in TEXT_COLUMNS if c in names), None)
    if qid is None or text is None:
        raise ParseError(
            path,
            None,
            f"expected a qid column ({', '.join(QID_COLUMNS)}) and a text column "
            f"({', '.join(TEXT_COLUMNS)}); found {', '.join(reader.schema_arrow.names)}",
        )
    row = 0
    try:
        for batch in reader.iter_batches(batch_size=chunk_size, columns=[qid, text]):
            frame = pd.DataFrame(
                {
                    "qid": pd.Series(batch.column(0).to_pylist(), dtype="str"),
                    "text": pd.Series(batch.column(1).to_pylist(), dtype="str"),
                }
            )
            missing = (frame.qid.isna() | (frame.qid.str.strip() == "")).to_numpy()
            if missing.any():
                raise ParseError(path, None, f"row {row + int(np.argmax(missing)) + 1}: empty qid")
            frame["qid"] = frame.qid.str.strip()
            frame["text"] = frame.text.fillna("").str.split().str.join(" ")
            row += len(frame)
            yield frame
    except (pa.ArrowException, OSError) as exc:
        raise ParseError(path, None, f"row {row + 1} onwards unreadable ({exc})") from None


def write_shards(chunks: Iterable[pd.DataFrame], folder: Path, shard_size: int) -> list[Path]:
    """Write a query stream as Parquet shards of `shard_size` queries (`part-00000.parquet`,
    ...), into a folder that must not hold anything yet: nothing is ever overwritten. Each
    shard is written to a temporary name and renamed, so a shard that exists is whole."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise LeakevalError(f"{folder}: exists and is not an empty folder; not writing into it")
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    pending: list[pd.DataFrame] = []

    def flush(frame: pd.DataFrame) -> None:
        path = folder / f"part-{len(written):05d}.parquet"
        partial = path.with_name(f".{path.name}.partial")
        table = pa.Table.from_pandas(frame[["qid", "text"]].reset_index(drop=True))
        pq.write_table(table, partial)
        os.replace(partial, path)
        written.append(path)

    size = 0
    for chunk in chunks:
        pending.append(chunk)
        size += len(chunk)
        while size >= shard_size:
            frame = pd.concat(pending, ignore_index=True)
            flush(frame.iloc[:shard_size])
            pending, size = [frame.iloc[shard_size:]], len(frame) - shard_size
    if size:
        flush(pd.concat(pending, ignore_index=True))
    if not written:
        raise LeakevalError("the query log is empty; no shard written")
    return written
