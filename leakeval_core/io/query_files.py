"""Readers for TREC topics and query lists (logs, variants), as pandas frames.

Frames:
- topics: qid, title, description, narrative.
- queries: qid, text.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from leakeval_core.errors import ParseError
from leakeval_core.io.compressed import open_input
from leakeval_core.io.formats import QID_COLUMNS, TEXT_COLUMNS, detect_format
from leakeval_core.io.kinds import reading
from leakeval_core.io.pairs import bad_id
from leakeval_core.io.trec import Source, _line_of, load_bytes

__all__ = ["QID_COLUMNS", "TEXT_COLUMNS", "iter_queries", "read_queries", "read_topics"]


# --------------------------------------------------------------------------- topics

_TOP = re.compile(rb"<top>(.*?)(</top>|(?=<top>)|\Z)", re.DOTALL | re.IGNORECASE)
_FIELD = re.compile(
    r"<(num|title|desc|narr)>(.*?)(?=<(?:/?(?:num|title|desc|narr|top))>|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_FIELD_LABEL = {
    "num": re.compile(r"^\s*Number\s*:", re.IGNORECASE),
    "title": re.compile(r"^\s*Topic\s*:", re.IGNORECASE),
    "desc": re.compile(r"^\s*Description\s*:?", re.IGNORECASE),
    "narr": re.compile(r"^\s*Narrative\s*:?", re.IGNORECASE),
}


def read_topics(source: Source, format: str | None = None, split: str = "test") -> pd.DataFrame:
    """Read TREC topics: SGML `<top>` blocks, or a `qid<TAB>text` / CSV query list, or a
    query list in another format (`formats`: a BEIR folder's queries, those its `split`
    judges; JSON lines, Parquet, a Hugging Face dataset), whose text is the title.

    The SGML variants differ by collection (`<desc> Description:` vs bare `<desc>`, closing
    tags or none), so labels and closing tags are optional.
    """
    with reading(source, "topics"):
        return _read_topics(source, format, split)


def _read_topics(source: Source, format: str | None, split: str) -> pd.DataFrame:
    kind = detect_format(source, format)
    if kind != "trec":
        from leakeval_core.io.foreign import read_query_frame

        frame = read_query_frame(source, kind, topics_of=split)
        return _as_topics(_checked_queries(_source_name(source), frame))
    name, data = load_bytes(source)
    if b"<top>" not in data.lower():
        return _as_topics(_parse_queries(name, data))
    records = []
    seen: dict[str, int] = {}
    for match in _TOP.finditer(data):
        line = _line_of(data, match.start())
        if not match.group(2):
            raise ParseError(name, line, "<top> is never closed by </top>")
        fields = {
            tag.lower(): _clean_field(tag.lower(), text)
            for tag, text in _FIELD.findall(match.group(1).decode("utf-8"))
        }
        for required in ("num", "title"):
            if not fields.get(required):
                raise ParseError(name, line, f"topic has no <{required}>")
        qid = fields["num"]
        if len(qid.split()) > 1:
            raise ParseError(name, line, bad_id("topic number", qid))
        if qid in seen:
            raise ParseError(name, line, f"topic {qid!r} appears twice (first at line {seen[qid]})")
        seen[qid] = line
        records.append((qid, fields["title"], fields.get("desc", ""), fields.get("narr", "")))
    return pd.DataFrame(records, columns=["qid", "title", "description", "narrative"])


def _as_topics(queries: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {"qid": queries.qid, "title": queries.text, "description": "", "narrative": ""}
    )


def _source_name(source) -> str:
    return source[0] if isinstance(source, tuple) else str(source)


def _clean_field(tag: str, text: str) -> str:
    text = _FIELD_LABEL[tag].sub("", text, count=1)
    return " ".join(text.split())


# --------------------------------------------------------------------------- query lists


def read_queries(source: Source, unique: bool = True, format: str | None = None) -> pd.DataFrame:
    """Read a query list: headerless `qid<TAB>text` (MS MARCO), CSV with a header, or
    another format's (`formats`: JSON lines, Parquet, a Hugging Face dataset, a BEIR folder's
    queries outside its test split).

    `unique=False` allows several texts per qid (query variants of one topic).
    """
    with reading(source, "queries"):
        kind = detect_format(source, format)
        if kind != "trec":
            from leakeval_core.io.foreign import read_query_frame

            frame = read_query_frame(source, kind)
            return _checked_queries(_source_name(source), frame, unique=unique)
        name, data = load_bytes(source)
        return _parse_queries(name, data, unique)


def _parse_queries(name: str, data: bytes, unique: bool = True) -> pd.DataFrame:
    first_line = data.split(b"\n", 1)[0]
    if b"\t" in first_line:
        return _checked_queries(name, *_parse_tsv_queries(name, data), unique=unique)
    return _checked_queries(name, _parse_csv_queries(name, data), unique=unique)


def _checked_queries(
    name: str, frame: pd.DataFrame, lines: list[int] | None = None, unique: bool = True
) -> pd.DataFrame:
    """Every qid present and one word, and once unless `unique` is False; a bad one named
    by its line (`lines`, row -> line, where the reader knows them), else by its row."""

    def fail(row: int, why: str) -> ParseError:
        if lines is None:
            return ParseError(name, None, f"row {row + 1}: {why}")
        return ParseError(name, lines[row], why)

    empty = (frame.qid.str.len() == 0).to_numpy()
    if empty.any():
        raise fail(int(np.argmax(empty)), "qid is empty")
    spaced = _spaced(frame.qid)
    if spaced is not None:
        raise fail(spaced, bad_id("qid", frame.qid.iat[spaced]))
    dup = frame.qid.duplicated().to_numpy()
    if unique and dup.any():
        row = int(np.argmax(dup))
        first = int(np.argmax((frame.qid == frame.qid.iat[row]).to_numpy()))
        at = f"row {first + 1}" if lines is None else f"line {lines[first]}"
        raise fail(row, f"qid {frame.qid.iat[row]!r} appears twice (first at {at})")
    return frame.reset_index(drop=True)


def _spaced(qids: pd.Series) -> int | None:
    """The first row whose qid holds whitespace inside (the qids are stripped already)."""
    bad = qids.str.contains(r"\s", regex=True).to_numpy(dtype=bool)
    return int(np.argmax(bad)) if bad.any() else None


def _parse_tsv_queries(name: str, data: bytes) -> tuple[pd.DataFrame, list[int]]:
    """The `qid<TAB>text` lines as a frame, and each row's line."""
    qids, texts, lines = [], [], []
    for lineno, line in enumerate(data.decode("utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise ParseError(name, lineno, f"expected 'qid<TAB>text', found {len(parts)} fields")
        qids.append(parts[0].strip())
        texts.append(" ".join(parts[1].split()))
        lines.append(lineno)
    frame = pd.DataFrame({"qid": pd.array(qids, dtype="str"), "text": pd.array(texts, dtype="str")})
    return frame, lines


def _from_pandas(name: str, exc: pd.errors.ParserError, what: str) -> ParseError:
    """pandas names the line in its message ("... in line 5, saw 3"); keep it as our line."""
    found = re.search(r"line (\d+)", str(exc))
    why = str(exc).split(". ")[-1].strip()
    why = re.sub(r"^C error: ", "", re.sub(r" in line \d+", "", why))
    return ParseError(
        name, int(found.group(1)) if found else None, f"{what}: {why[:1].lower()}{why[1:]}"
    )


def _parse_csv_queries(name: str, data: bytes) -> pd.DataFrame:
    try:
        frame = pd.read_csv(
            io.BytesIO(data), dtype=str, keep_default_na=False, skip_blank_lines=True
        )
    except pd.errors.ParserError as exc:
        raise _from_pandas(name, exc, "malformed CSV") from None
    header = {c.strip().lower(): c for c in frame.columns}
    qid_col = next((header[c] for c in QID_COLUMNS if c in header), None)
    text_col = next((header[c] for c in TEXT_COLUMNS if c in header), None)
    if qid_col is None or text_col is None:
        raise ParseError(
            name,
            1,
            "expected 'qid<TAB>text' lines or a CSV header naming a qid column "
            f"({', '.join(QID_COLUMNS)}) and a text column ({', '.join(TEXT_COLUMNS)})",
        )
    return pd.DataFrame(
        {
            "qid": frame[qid_col].astype("str").str.strip(),
            "text": frame[text_col].astype("str").str.split().str.join(" "),
        }
    )


def iter_queries(
    source: str | os.PathLike[str], chunk_size: int = 100_000, format: str | None = None
):
    """Stream a query list (`qid<TAB>text`, CSV with a header, or another format's: JSON
    lines, Parquet, a Hugging Face dataset, BEIR) in frames of qid, text.

    A log of millions of queries never has to sit in memory whole.
    """
    with reading(source, "queries"):
        yield from _iter_queries(source, chunk_size, format)


def _iter_queries(source: str | os.PathLike[str], chunk_size: int, format: str | None):
    kind = detect_format(source, format)
    if kind != "trec":
        from leakeval_core.io.foreign import iter_query_frames

        yield from iter_query_frames(source, kind, chunk_size)
        return
    path = Path(source)
    name, head = load_bytes((str(path), _read_head(path)))
    tsv = b"\t" in head.split(b"\n", 1)[0]
    options = {"sep": "\t", "header": None, "quoting": 3} if tsv else {"sep": ",", "header": 0}
    line = 0 if tsv else 1
    text = _open(path)
    try:
        with pd.read_csv(
            text,
            index_col=False,  # else an extra field silently becomes the index
            dtype=str,
            keep_default_na=False,
            chunksize=chunk_size,
            encoding="utf-8",
            on_bad_lines="error",
            **options,
        ) as reader:
            for chunk in reader:
                frame = (
                    _parse_tsv_frame(name, chunk, line)
                    if tsv
                    else _parse_csv_queries(name, chunk.to_csv(index=False).encode())
                )
                empty = (frame.qid.str.len() == 0).to_numpy()
                if empty.any():
                    raise ParseError(name, line + int(np.argmax(empty)) + 1, "empty qid")
                spaced = _spaced(frame.qid)
                if spaced is not None:
                    why = bad_id("qid", frame.qid.iat[spaced])
                    raise ParseError(name, line + spaced + 1, why)
                line += len(chunk)
                yield frame
    except pd.errors.ParserError as exc:
        raise _from_pandas(name, exc, "malformed query list") from None
    except UnicodeDecodeError:
        raise ParseError(name, None, "not valid UTF-8 text") from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ParseError(name, line + 1, f"corrupt gzip data from here on ({exc})") from None
    finally:
        text.close()


def _open(path: Path):
    """The file's text, gzip inflated within the decompression limit (`compressed`)."""
    return open_input(str(path), open(path, "rb"))


def _read_head(path: Path, size: int = 65_536) -> bytes:
    if not path.exists():
        raise ParseError(path, None, "no such file")
    if path.is_dir():
        raise ParseError(path, None, "is a directory, not a file")
    try:
        with _open(path) as fh:
            return fh.read(size)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ParseError(path, None, f"corrupt gzip data ({exc})") from None


def _parse_tsv_frame(name: str, chunk: pd.DataFrame, line: int) -> pd.DataFrame:
    """Check a chunk of `qid<TAB>text` rows: exactly two fields on every line."""
    width = chunk.notna().sum(axis=1).to_numpy() if chunk.shape[1] != 2 else None
    if chunk.shape[1] < 2 or (width is not None and (width != 2).any()):
        bad = 0 if width is None else int(np.argmax(width != 2))
        found = 1 if chunk.shape[1] < 2 else int(width[bad])
        raise ParseError(name, line + bad + 1, f"expected 'qid<TAB>text', found {found} fields")
    text = chunk[1].fillna("")
    if (text.str.strip() == "").any():
        bad = int(np.argmax((text.str.strip() == "").to_numpy()))
        raise ParseError(name, line + bad + 1, "expected 'qid<TAB>text', the text is missing")
    return pd.DataFrame({"qid": chunk[0].str.strip(), "text": text.str.split().str.join(" ")})
