"""Detection over a sharded log, shard by shard: in this process, or mapped over Dask.

Both ways run the same steps: the test side is built once (IDF from the log's first
IDF_SAMPLE queries, read in shard order), each shard is compared whole by `search_shard`,
and the shards' candidates are merged by `keep_best`, whose total order makes the result
independent of which shard finished first. So `--dask` writes the same table as one
process, byte for byte.

A shard that fails to parse fails the run, because a silent hole in the log would hide
leakage; with `skip_bad_shards` it is left out whole and listed in the `LogReport`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.detect import (
    TopicTexts,
    announce_scoring,
    build_index,
    pairs_from_candidates,
)
from leakeval_core.leakage.detection_options import DetectionOptions
from leakeval_core.leakage.search import (
    IDF_SAMPLE,
    ShardResult,
    TopicIndex,
    keep_best,
    no_candidates,
    search_shard,
)
from leakeval_core.leakage.text import normalize

__all__ = ["LogReport", "detect_shards", "local_results"]

ShardMap = Callable[[TopicIndex, Sequence[Path], int], Iterator[ShardResult]]
"""Compares every shard against the index and yields each one's result, in any order."""


@dataclass(frozen=True)
class LogReport:
    """What was read of the log: for the output's sidecar JSON."""

    shards: int
    queries: int
    skipped: tuple[ShardResult, ...] = field(default=())

    def as_dict(self) -> dict:
        return {
            "shards": self.shards,
            "shards_compared": self.shards - len(self.skipped),
            "queries_compared": self.queries,
            "skipped_shards": [{"shard": r.shard, "error": r.error} for r in self.skipped],
        }


def local_results(index: TopicIndex, shards: Sequence[Path], chunk_size: int):
    """One shard after another, in this process."""
    for shard in shards:
        yield search_shard(index, shard, chunk_size)


def detect_shards(
    test: TopicTexts,
    shards: Sequence[Path],
    options: DetectionOptions = DetectionOptions(),
    results: ShardMap = local_results,
    progress: Callable[[int, int, str], None] | None = None,
    skip_bad_shards: bool = False,
) -> tuple[pd.DataFrame, LogReport]:
    """The LEAKAGE table of a sharded log, and a report of what was read.

    `results` maps the shard comparison: `local_results` here, or
    `distributed.dask_results` on a cluster.
    """
    if test.table.empty:
        raise LeakevalError("no test text to compare (empty topics?)")
    sample = _sample(shards, options.chunk_size, skip_bad_shards)
    index, _ = build_index(test, sample, options)
    best, queries, skipped = no_candidates(), 0, []
    for done, result in enumerate(results(index, shards, options.chunk_size), start=1):
        if result.error is not None:
            if not skip_bad_shards:
                raise _stop(result.error)
            skipped.append(result)
        best = keep_best([best, result.candidates], index.k)
        queries += result.queries if result.error is None else 0
        if progress:
            progress(done, len(shards), f"shards compared ({queries:,} queries)")
    skipped.sort(key=lambda r: r.shard)
    report = LogReport(len(shards), queries, tuple(skipped))
    if queries == 0:
        raise LeakevalError("the training query log is empty (no shard could be compared)")
    compared = f"shards compared ({queries:,} queries)"
    announce_scoring(progress, len(shards), len(shards), compared, options.method)
    return pairs_from_candidates(test, best, index, options), report


def _sample(shards: Sequence[Path], chunk_size: int, skip_bad: bool) -> list[pd.Series]:
    """The log's first IDF_SAMPLE normalised queries, in shard order (a shard that fails is
    passed over when bad shards are skipped, as the comparison will pass over it)."""
    from leakeval_core.io.shards import iter_shard

    sample: list[pd.Series] = []
    size = 0
    for shard in shards:
        part: list[pd.Series] = []
        try:
            for chunk in iter_shard(shard, chunk_size):
                part.append(normalize(chunk.text))
                if size + sum(len(p) for p in part) >= IDF_SAMPLE:
                    break
        except LeakevalError as exc:
            if skip_bad:
                continue
            raise _stop(str(exc)) from None
        sample.extend(part)
        size += sum(len(p) for p in part)
        if size >= IDF_SAMPLE:
            break
    return sample


def _stop(error: str) -> LeakevalError:
    return LeakevalError(
        f"{error} (the run stops: a skipped shard would hide leakage; --skip-bad-shards "
        "leaves it out and lists it)"
    )
