"""Compressed input, inflated a block at a time and counted against a limit.

A few megabytes of gzip can expand to gigabytes (one line repeated compresses a
thousandfold), so a reader that inflates a file whole holds whatever the file decides. Every
reader of gzip goes through `open_input` (a stream) or `inflate` (bytes): zlib is asked for
a block at a time, the inflated bytes are counted as they come, and the read stops with one
error naming the limit and its variable as soon as they pass it, so memory never holds more
than the limit. What a file expands to is bounded by LEAKEVAL_MAX_DECOMPRESSED_MB; the
dashboard counts an upload against its own upload limit the same way (`measure`).
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from dataclasses import dataclass
from typing import BinaryIO

from leakeval_core.errors import LeakevalError, ParseError

__all__ = [
    "GZIP_MAGIC",
    "Limit",
    "TooLarge",
    "decompressed_limit",
    "inflate",
    "is_gzip",
    "measure",
    "megabytes",
    "open_input",
]

GZIP_MAGIC = b"\x1f\x8b"
BLOCK = 1 << 20
"""Inflated bytes asked of zlib at a time."""
DECOMPRESSED = "LEAKEVAL_MAX_DECOMPRESSED_MB"


class TooLarge(ParseError):
    """An input past a limit on what is read."""


@dataclass(frozen=True, slots=True)
class Limit:
    """At most `bytes` read of one input; `name` and `variable` say which limit it is."""

    bytes: int
    variable: str
    name: str

    def past(self, source: str, size: int | None = None) -> TooLarge:
        """The error of `source` once past the limit: its plain size when known (`size`),
        else what it was counted to once decompressed."""
        if size is None:
            held = f"more than {mb(self.bytes)} once decompressed, over"
        else:
            held = f"{mb(size)} is over"
        return TooLarge(source, None, f"{held} {self.name} of {mb(self.bytes)} ({self.variable})")


def mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def megabytes(variable: str, default: str) -> int:
    """A limit in bytes from an environment variable in megabytes (10^6 bytes); a value that
    is no number of megabytes, 0 or more, is one clear error."""
    given = os.environ.get(variable, default)
    try:
        value = float(given)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise LeakevalError(f"{variable}={given!r}: expected a number of megabytes, 0 or more")
    return int(value * 1_000_000)


def decompressed_limit() -> Limit:
    """What one compressed input may expand to: LEAKEVAL_MAX_DECOMPRESSED_MB, default 4000,
    above the largest runs and logs of the benchmarks' collections. A plain file is read as it
    is: its size is on disk for anyone to see."""
    return Limit(megabytes(DECOMPRESSED, "4000"), DECOMPRESSED, "the decompression limit")


def is_gzip(head: bytes) -> bool:
    """Gzip by its magic number, not by a file name: a `.gz` that is plain text still reads."""
    return head[:2] == GZIP_MAGIC


class _Counted(io.RawIOBase):
    """A gzip stream's inflated bytes, counted; past the limit, reading raises."""

    def __init__(self, name: str, compressed: BinaryIO, limit: Limit) -> None:
        self.name, self.limit, self.count = name, limit, 0
        self.compressed = compressed
        self.inflating = gzip.GzipFile(fileobj=compressed, mode="rb")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        view = memoryview(buffer)[: self.limit.bytes + 1 - self.count]
        try:
            got = self.inflating.readinto(view) if len(view) else 0
        except (EOFError, zlib.error) as exc:  # one kind of error for every gzip fault,
            raise gzip.BadGzipFile(str(exc)) from None  # an OSError, as pyarrow's reader raised
        self.count += got
        if self.count > self.limit.bytes:
            raise self.limit.past(self.name)
        return got

    def close(self) -> None:
        self.inflating.close()
        self.compressed.close()
        super().close()


def open_input(name: str, raw: BinaryIO, limit: Limit | None = None) -> BinaryIO:
    """`raw` (a binary stream at its start, which the stream returned owns) as a stream of
    its text: gzip inflated within `limit` (the decompression limit by default), anything
    else as it is. A corrupt or truncated stream raises `gzip.BadGzipFile` (an OSError) for
    the reader to name."""
    head = raw.read(2)
    raw.seek(0)
    if not is_gzip(head):
        return raw
    counted = _Counted(name, raw, limit or decompressed_limit())
    return io.BufferedReader(counted, BLOCK)  # type: ignore[return-value]


def inflate(name: str, data: bytes, limit: Limit | None = None) -> bytes:
    """Gzip `data` inflated within `limit` (other data as it is), never holding more than
    the limit. Concatenated members are read as one, as `gzip` reads them."""
    if not is_gzip(data):
        return data
    out = io.BytesIO()
    with open_input(name, io.BytesIO(data), limit) as stream:
        while block := stream.read(BLOCK):
            out.write(block)
    return out.getvalue()


def measure(name: str, data: bytes, limit: Limit) -> int:
    """What `data` holds once decompressed, counted without holding it; past `limit` it
    raises TooLarge. A corrupt stream is counted as far as it reads: its reader names it."""
    if not is_gzip(data):
        if len(data) > limit.bytes:
            raise limit.past(name, len(data))
        return len(data)
    total = 0
    try:
        with open_input(name, io.BytesIO(data), limit) as stream:
            while block := stream.read(BLOCK):
                total += len(block)
    except OSError:
        pass
    return total
