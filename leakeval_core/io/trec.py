"""Validated readers for TREC runs and qrels (topics and query lists are in `query_files`).

Every reader takes either a path or in-memory bytes (uploads) and returns an arrow table or
a pandas frame, or raises `ParseError(path, line, why)`. Well-formed files go through
pyarrow's CSV reader; anything it rejects is re-read line by line, which is slow but is the only way
to name the offending line or to accept harmless whitespace variants (runs of spaces,
trailing blanks, blank lines).

Frames:
- run: qid, docid, score (float64), one row per line, file order kept.
- qrels: qid, docid, grade (int64).
"""

from __future__ import annotations

import codecs
import io
import mmap
import os
import re
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from leakeval_core.errors import ParseError
from leakeval_core.io.allocator import reading_pool
from leakeval_core.io.arrays import from_numpy, to_numpy
from leakeval_core.io.compressed import inflate, is_gzip
from leakeval_core.io.formats import detect_format, with_format
from leakeval_core.io.kinds import reading
from leakeval_core.io.pairs import _line, decode, encode, pairs_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ParseError",
    "Source",
    "decode",
    "decoded_frame",
    "encode",
    "load_bytes",
    "pairs_table",
    "read_qrels",
    "read_qrels_table",
    "read_run",
    "read_run_table",
    "run_name",
    "unique_run_names",
    "write_qrels",
]

Source = str | os.PathLike[str] | tuple[str, bytes]
"""A file path, or (display name, raw bytes) for data that never touched the disk."""

_BOM = b"\xef\xbb\xbf"
_RUN_COLUMNS = ("qid", "iter", "docid", "rank", "score", "tag")
"""A run line; anything after the tag is ignored (trec_eval does the same)."""
_QRELS_COLUMNS = ("qid", "iter", "docid", "grade")


RUN_SUFFIXES = (".run", ".eval", ".json", ".jsonl", ".csv", ".tsv", ".parquet")
"""Suffixes a run's file name drops for its display name: its format, not its name."""


def run_name(path: str | os.PathLike[str]) -> str:
    """The run's display name: its file name without `.gz` and a format's suffix."""
    name = Path(path).name.removesuffix(".gz")
    for suffix in RUN_SUFFIXES:
        if name.endswith(suffix) and name != suffix:
            return name.removesuffix(suffix)
    return name


def unique_run_names(paths: list[str | os.PathLike[str]]) -> list[str]:
    """Run names, prefixed with as many parent folders as it takes to tell them apart."""
    parts = [Path(os.path.abspath(p)).parts for p in paths]  # a link named as given
    for depth in range(1, max((len(p) for p in parts), default=1) + 1):
        names = ["/".join([*p[-depth:-1], run_name(p[-1])]) for p in parts]
        if len(set(names)) == len(names):
            return names
    return [str(p) for p in paths]


def load_bytes(source: Source) -> tuple[str, bytes]:
    """Read a source as validated UTF-8 bytes: BOM stripped, gzip inflated (within the
    decompression limit, `compressed`), CRLF folded.

    Gzip is recognised by its magic number, not by the file name, so a `.gz` that is really
    plain text still reads.
    """
    if isinstance(source, tuple):
        name, data = source
    else:
        path = Path(source)
        name = str(path)
        if not path.exists():
            raise ParseError(name, None, "no such file")
        if path.is_dir():
            raise ParseError(name, None, "is a directory, not a file")
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise ParseError(name, None, f"cannot read: {exc.strerror}") from None
    if is_gzip(data):
        try:
            data = inflate(name, data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ParseError(name, None, f"corrupt gzip data ({exc})") from None
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    if not data.strip():
        raise ParseError(name, 1, "file is empty")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ParseError(name, _line_of(data, nul), "not a text file (binary data)")
    _check_utf8(name, data)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    return name, data


def _check_utf8(name: str, data: bytes, block: int = 8 << 20) -> None:
    """Validate UTF-8 in blocks, so a large file is never held twice (bytes + str)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for start in range(0, len(data), block):
        try:
            decoder.decode(view[start : start + block], final=start + block >= len(data))
        except UnicodeDecodeError as exc:
            raise ParseError(
                name, _line_of(data, start + exc.start), "not valid UTF-8 text"
            ) from None


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


# --------------------------------------------------------------------------- columns


MAPPED_BYTES = 64 << 20
"""At most this much of a file is mapped at once: files up to this size are parsed from a
mapping, larger ones read."""


def _split_columns(
    source: Source,
    columns: Sequence[str],
    keep: dict[str, str],
    describe: str,
    pool: pa.MemoryPool | None = None,
) -> tuple[str, pa.Table, np.ndarray | None]:
    """Split whitespace-separated columns; returns the name, the kept columns and each
    row's line. The fast path allocates from `pool` (None: the default).

    `keep` maps the columns to return to their type on the fast path ("str", "float64",
    "int64"); a value pyarrow cannot convert sends the file to the line-by-line path, which
    returns strings and lets the caller name the offending line. Lines are None on the fast
    path, where row i is line i + 1 (blank lines always take the slow path).

    A plain file that needs no rewriting is handed to pyarrow by path, so its bytes are
    never held in memory next to the parsed table (half the peak for a large run).
    """
    path = _clean_file(source)
    if path is not None:
        # Not the path: pyarrow would gunzip '*.gz'. A mapping is read without copying it,
        # but it counts in the resident memory until closed, so large files are read.
        small = path.stat().st_size <= MAPPED_BYTES
        with (pa.memory_map if small else pa.OSFile)(str(path)) as stream:
            table = _read_columns(stream, columns, keep, pool)
        if table is not None:
            return str(path), table, None
    name, data = load_bytes(source)
    table = _split_fast(data, columns, keep, pool)
    if table is not None:
        return name, table, None
    return name, *_split_slow(name, data, columns, describe, list(keep))


def _clean_file(source: Source) -> Path | None:
    """The file's path when pyarrow can parse it as it is: plain UTF-8 text without gzip,
    BOM, NUL, CR or tab (blank lines fail pyarrow's parse, see `_read_columns`). None sends
    the file through `load_bytes`, which rewrites it or names what is wrong.

    The file is mapped, not read: reading copies it into fresh memory, a page fault every
    page, which made this check cost more than the parse of a typical run.
    A mapping counts in the resident memory while open, so a large file is mapped a window
    of `MAPPED_BYTES` at a time.
    """
    if isinstance(source, tuple):
        return None
    path = Path(source)
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as fh:
            return path if _is_clean_file(fh) else None
    except (OSError, ValueError):  # unreadable, or cannot be mapped: `load_bytes` says which
        return None


def _is_clean_file(fh: io.BufferedReader) -> bool:
    decoder = codecs.getincrementaldecoder("utf-8")()
    seen_text = False
    size = os.fstat(fh.fileno()).st_size
    for start in range(0, size, MAPPED_BYTES):
        length = min(MAPPED_BYTES, size - start)
        with mmap.mmap(fh.fileno(), length, access=mmap.ACCESS_READ, offset=start) as window:
            if start == 0 and window[:3].startswith((b"\x1f\x8b", _BOM)):
                return False
            if not _is_clean(window, decoder, final=start + length == size):
                return False
            seen_text = seen_text or _TEXT.search(window) is not None
    return seen_text


_TEXT = re.compile(rb"[^ \n\x0b\x0c]")
"""A byte that is not whitespace (tab and CR are refused before this is asked)."""


_COMMENT = re.compile(rb"(?m)^ *#")
"""A line whose first token starts with '#': a comment, which only the slow path skips."""


def _has_comment(data: bytes | mmap.mmap) -> bool:
    return data.find(b"#") >= 0 and _COMMENT.search(data) is not None


def _is_clean(data: mmap.mmap, decoder: codecs.IncrementalDecoder, final: bool) -> bool:
    """No NUL, CR, tab or comment line, and valid UTF-8 (a character may continue in the
    next window). A window may start mid-line: a '#' there sends the file to the slow path
    too, which is only slower."""
    if any(data.find(bad) >= 0 for bad in (b"\x00", b"\r", b"\t")) or _has_comment(data):
        return False
    octets = np.frombuffer(data, np.uint8)
    ascii_only = int(octets.max()) < 0x80
    del octets  # a view of the mapping, which cannot close while it exists
    # All ASCII: only the first bytes can matter, ending a character the last window cut.
    end = min(len(data), 4) if ascii_only else len(data)
    block = 8 << 20
    try:
        for at in range(0, end, block):
            decoder.decode(data[at : min(at + block, end)], final=final and at + block >= end)
    except UnicodeDecodeError:
        return False
    return True


def _split_fast(
    data: bytes, columns: Sequence[str], keep: dict[str, str], pool: pa.MemoryPool | None
) -> pa.Table | None:
    if b"\r" in data:
        return None  # a lone CR would end a line for pyarrow and shift line numbers
    if b"\t" in data:
        data = data.replace(b"\t", b" ")
    if _has_comment(data):
        return None  # pyarrow would read a comment that has the columns' shape as a row
    return _read_columns(io.BytesIO(data), columns, keep, pool)


def _read_columns(
    source: pa.NativeFile | io.BytesIO,
    columns: Sequence[str],
    keep: dict[str, str],
    pool: pa.MemoryPool | None,
) -> pa.Table | None:
    """pyarrow's CSV reader on space-separated columns; None when any value does not parse.

    The source is valid UTF-8 already (`_clean_file` or `load_bytes` checked it), so
    pyarrow does not check it again. It parses on the calling thread: encoding the strings
    afterwards is the cost, which pyarrow's parallel reader does not spread, and its threads
    keep freed memory each. Callers parallelise over files instead.
    """
    import pyarrow.csv as pacsv

    arrow_types = {"str": pa.string(), "float64": pa.float64(), "int64": pa.int64()}
    try:
        return pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(column_names=list(columns), use_threads=False),
            # A blank line kept as a row of empty fields fails the value column's
            # conversion, so blank lines (which would shift line numbers) go to the slow path.
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={c: arrow_types[t] for c, t in keep.items()},
                include_columns=list(keep),
                null_values=[],  # 'nan' or 'NULL' is a value to check, not a missing one
                quoted_strings_can_be_null=False,
                check_utf8=False,
            ),
            memory_pool=pool,
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _split_slow(
    name: str, data: bytes, columns: Sequence[str], describe: str, keep: list[str]
) -> tuple[pa.Table, np.ndarray]:
    rows: list[list[str]] = []
    lines: list[int] = []
    for lineno, line in enumerate(data.decode("utf-8").split("\n"), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue  # blank lines and comments, which trec_eval 10 accepts too
        if len(parts) > len(columns) and columns[-1] == "tag":
            parts = parts[: len(columns)]  # text after a run's tag is ignored, as by trec_eval
        if len(parts) != len(columns):
            raise ParseError(
                name, lineno, f"expected {len(columns)} columns ({describe}), found {len(parts)}"
            )
        rows.append(parts)
        lines.append(lineno)
    if not rows:
        raise ParseError(name, 1, "file is empty")
    matrix = np.array(rows, dtype=object)
    table = pa.table({c: pa.array(matrix[:, columns.index(c)], pa.string()) for c in keep})
    return table, np.asarray(lines)


def _as_finite_scores(name: str, raw: pa.ChunkedArray, lines: np.ndarray | None) -> pa.Array:
    if pa.types.is_floating(raw.type):  # pyarrow already parsed every score
        scores = raw.combine_chunks()
        values = to_numpy(scores)  # a view: a 10M-line run holds its scores once
    else:
        import pandas as pd

        values = pd.to_numeric(raw.to_pandas(), errors="coerce").to_numpy(dtype=np.float64)
        scores = from_numpy(values)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        text = str(values[i]) if pa.types.is_floating(raw.type) else str(raw[i].as_py())
        kind = "not finite" if _is_float(text) else "not a number"
        raise ParseError(name, _line(lines, i), f"score {text!r} is {kind}")
    return scores


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _as_int_grades(name: str, raw: pa.ChunkedArray, lines: np.ndarray | None) -> pa.Array:
    if pa.types.is_integer(raw.type):  # pyarrow already parsed every grade
        return raw.combine_chunks()
    text = raw.to_pandas()
    ok = text.str.fullmatch(r"[+-]?\d+").to_numpy(dtype=bool)
    if not ok.all():
        i = int(np.argmax(~ok))
        raise ParseError(name, _line(lines, i), f"grade {text.iat[i]!r} is not an integer")
    return from_numpy(text.astype(np.int64).to_numpy())


# --------------------------------------------------------------------------- runs, qrels


def read_run_table(source: Source, format: str | None = None) -> pa.Table:
    """Read a run as an arrow table, the scorer's native input.

    A TREC run is `qid Q0 docid rank score tag` per line. Columns: qid and docid
    dictionary-encoded (a run repeats each qid hundreds of times; the codes also make ranking
    integer work), score float64. The rank column is ignored (trec_eval ignores it too);
    ranking comes from the scores and the tie policy applied at scoring time.

    Runs in the benchmarks' own formats (MTEB predictions, ranx JSON, PyTerrier frames; see
    `formats`) are detected by their content, or named by `format`, and give the same table.
    """
    return _read_role(
        source,
        format,
        "run",
        _RUN_COLUMNS,
        ("score", "float64"),
        _as_finite_scores,
        "qid Q0 docid rank score run_tag",
    )


def read_run(source: Source, format: str | None = None) -> pd.DataFrame:
    """Read a run as a frame: qid, docid, score (float64), one row per line, in file order."""
    return decoded_frame(read_run_table(source, format))


def read_qrels_table(source: Source, format: str | None = None) -> pa.Table:
    """Read qrels as an arrow table: qid and docid dictionary-encoded as in
    `read_run_table`, integer grades (negative allowed, gain 0). TREC qrels are
    `qid iter docid grade`; a BEIR folder or qrels TSV, ranx JSON or a PyTerrier frame
    (`qid, docno, label`) give the same table."""
    return _read_role(
        source,
        format,
        "qrels",
        _QRELS_COLUMNS,
        ("grade", "int64"),
        _as_int_grades,
        "qid iter docid grade",
    )


def _read_role(source: Source, format: str | None, role: str, columns, value, check, shape):
    """A run or qrels in any format, read as its role (`kinds.reading` names a file of
    another kind): TREC lines by `_read_pairs`, every other format by `foreign`."""
    with reading(source, role):
        kind = detect_format(source, format)
        if kind != "trec":
            from leakeval_core.io.foreign import read_pairs

            return read_pairs(with_format(source, format), kind, value[0])
        return _read_pairs(source, columns, value, check, shape)


def read_qrels(source: Source, format: str | None = None) -> pd.DataFrame:
    """Read qrels as a frame: qid, docid, grade (int64)."""
    return decoded_frame(read_qrels_table(source, format))


def _read_pairs(
    source: Source,
    columns: Sequence[str],
    value: tuple[str, str],
    check: Callable[[str, pa.ChunkedArray, np.ndarray | None], pa.Array],
    describe: str,
) -> pa.Table:
    """The shared reader of runs and qrels: one value per (qid, docid), checked by `check`,
    no pair twice. Each column is dropped as soon as it is converted, so a 10M-line run
    peaks near twice its size. A small file is parsed and encoded through the pool that
    keeps its blocks for the next (`allocator.reading_pool`)."""
    pool = reading_pool(len(source[1]) if isinstance(source, tuple) else _size(source))
    name, table, lines = _split_columns(
        source, columns, {"qid": "str", "docid": "str", value[0]: value[1]}, describe, pool
    )
    values = check(name, table.column(value[0]), lines)
    table = table.drop_columns([value[0]])
    qids = encode(table.column("qid"), pool)
    table = table.drop_columns(["qid"])
    docids = encode(table.column("docid"), pool)
    del table
    return pairs_table(name, qids, docids, value[0], values, lines)


def _size(path: str | os.PathLike[str]) -> int:
    """The bytes a file's text takes once read: a gzipped file's by its trailer, which
    gives what its last member inflates to (modulo 4 GiB), since a run a tenth of its size
    compressed is parsed at full size; 0 where it cannot be told (the reader then says
    why)."""
    try:
        stat = os.stat(path)
        if not S_ISREG(stat.st_mode) or stat.st_size < _GZIP_TRAILER:
            return stat.st_size  # a pipe is never read here: its bytes would be gone
        with open(path, "rb") as fh:
            if not is_gzip(fh.read(2)):
                return stat.st_size
            fh.seek(-4, os.SEEK_END)
            return max(stat.st_size, int.from_bytes(fh.read(4), "little"))
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return 0


_GZIP_TRAILER = 18
"""The smallest gzip file: a 10-byte header and an 8-byte trailer (CRC-32, size)."""


def decoded_frame(table: pa.Table) -> pd.DataFrame:
    """A reader's table as a pandas frame, dictionary columns turned back into strings."""
    columns = {
        name: decode(column.combine_chunks()) if pa.types.is_dictionary(column.type) else column
        for name, column in zip(table.column_names, table.columns, strict=True)
    }
    return pa.table(columns).to_pandas()


def write_qrels(qrels: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    body = qrels.qid.astype(str) + " 0 " + qrels.docid.astype(str) + " " + qrels.grade.astype(str)
    Path(path).write_text("\n".join(body.tolist()) + "\n", encoding="utf-8")
