"""Shard comparison mapped over a Dask cluster (the optional `dask` extra).

The test side is scattered to every worker once; each task is one shard, named by its path,
which the worker opens itself, so the log never passes through the client. A worker that
dies has its shards re-run elsewhere by the scheduler; the merge's total order makes the
result the same whichever worker finished what.

Only the candidate search runs on the cluster. Scoring the candidates under the semantic or
hybrid method is a few thousand pairs whatever the log's size, so it stays in the client,
where the model loads once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import types
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage.detection_options import LOCAL_CLUSTER
from leakeval_core.leakage.search import ShardResult, TopicIndex, search_shard

__all__ = ["EXTRA_HINT", "connect", "dask_map", "dask_results"]

EXTRA_HINT = "--dask needs the optional extra: pip install -e '.[dask]'"


def dask_map(address: str = LOCAL_CLUSTER, workers: int | None = None):
    """A `sharded.ShardMap` that runs on the scheduler at `address` (or a local cluster of
    `workers` processes, one per core by default)."""

    def results(index: TopicIndex, shards: Sequence[Path], chunk_size: int):
        return dask_results(index, shards, chunk_size, address, workers)

    return results


def dask_results(
    index: TopicIndex,
    shards: Sequence[Path],
    chunk_size: int,
    address: str = LOCAL_CLUSTER,
    workers: int | None = None,
) -> Iterator[ShardResult]:
    """Each shard's result as soon as a worker has it. Closing the iterator (an error, or
    Ctrl-C in the caller) cancels what is still running and shuts a local cluster down."""
    try:
        from dask.distributed import as_completed
    except ImportError:
        raise LeakevalError(EXTRA_HINT) from None
    with connect(address, workers) as client:
        remote = client.scatter(index, broadcast=True)
        run = uuid.uuid4().hex[:8]
        futures = [
            client.submit(
                search_shard, remote, str(shard), chunk_size, key=f"leakeval-{run}-shard-{i:06d}"
            )
            for i, shard in enumerate(shards)
        ]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            client.cancel(futures)


@contextlib.contextmanager
def connect(address: str = LOCAL_CLUSTER, workers: int | None = None):
    """A Dask client: of a new local cluster (one single-threaded worker process per core,
    or `workers`), shut down on exit; or of the scheduler at `address`."""
    from dask.distributed import Client, LocalCluster

    if address == LOCAL_CLUSTER:
        with _plain_main():
            cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            with cluster, Client(cluster) as client:
                yield client
        return
    try:
        client = Client(address, timeout="20s")
    except OSError as exc:
        raise LeakevalError(f"no Dask scheduler answers at {address} ({exc})") from None
    with client:
        yield client


@contextlib.contextmanager
def _plain_main():
    """A bare `__main__` while the local cluster lives.

    Worker processes are spawned, and a spawned process first re-runs the parent's
    `__main__`: a user's script without an `if __name__ == "__main__"` guard would start
    another cluster, and a Streamlit script (whose runner installs itself as `__main__`)
    would run a whole app in every worker. The tasks are leakeval's own functions, so the
    workers need nothing from `__main__`. Restarted workers are spawned under it too.
    """
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved
