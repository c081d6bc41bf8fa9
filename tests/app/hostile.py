"""Hostile text for the dashboard: strings that would be a link, an image, HTML or a broken
code span if a page rendered them as markup; an experiment whose every name, level and text
holds them; and what an AppTest screen renders as Markdown, to check that they stay text.

The AppTest checks are in test_hostile_text.py; the same in a real browser, where a link
would be clickable and an image fetched, in test_browser_hostile.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

HOST = "host.example"
"""Where every hostile link and image points: no request may go there (a dotted name, as
GFM links a bare address only with one)."""

HOSTILE = (
    f"http://{HOST}/bare",
    f"[click to re-login](http://{HOST}/phish)",
    f"![p](http://{HOST}/m.png)",
    "a `b`` c` d",
    f"<img src=http://{HOST}/x>",
)
"""A bare address (GFM makes it a link), a link, an image, backticks that break out of a
code span, and HTML."""

UPLOAD_NAME = f"mine[l](http://{HOST}/u)![p](http://{HOST}/u.png).run"
"""An uploaded run's name (a browser sends any name, slashes too)."""


def hostile_experiment(data: Path) -> Path:
    """A small experiment in `data/hostile` whose name, collection, model levels, topic
    texts and training queries hold the hostile strings, with leakage (lexical detection)
    and one broken run, so every page has something of it to show and an error that names
    a file."""
    root = data / "hostile"
    titles = [f"solar panels {' '.join(HOSTILE)}", f"wind farms {HOSTILE[1]}", *HOSTILE[2:]]
    titles += ["tidal power stations", "geothermal heat pumps"]
    topics = "".join(f"{i}\t{t}\n" for i, t in enumerate(titles, start=1))
    _write(root / "topics.tsv", topics)
    _write(root / "train.tsv", "".join(f"t{i}\t{t}\n" for i, t in enumerate(titles[:3], 1)))
    qrels, runs = [], {}
    for qid in range(1, len(titles) + 1):
        qrels += [f"{qid} 0 d{qid}-{d} {int(d < 2)}\n" for d in range(4)]
    models = {"bm25": 0, "t5 <img src=x> [a](javascript:alert(1)) *b*": 1}  # no / in a path
    for model, shift in models.items():
        for leakage, boost in (("leaked", 1), ("clean", 0)):
            lines = [
                f"{qid} Q0 d{qid}-{(d + shift + boost * (qid <= 3)) % 4} {d + 1} {10 - d} r\n"
                for qid in range(1, len(titles) + 1)
                for d in range(4)
            ]
            runs[root / "runs" / model / f"{leakage}.run"] = "".join(lines)
    runs[root / "runs" / "broken" / "clean.run"] = "1 Q0 d1-0 1 not-a-score r\n"
    runs[root / "runs" / "broken" / "leaked.run"] = "1 Q0 d1-0 1 2 r\n"
    for path, text in runs.items():
        _write(path, text)
    _write(root / "qrels.txt", "".join(qrels))
    _write(
        root / "experiment.toml",
        f"name = {json.dumps(HOSTILE[0])}\n"
        f"[collections.{json.dumps('c ' + HOSTILE[1])}]\n"
        'topics = "topics.tsv"\nqrels = "qrels.txt"\n'
        '[training_queries]\npath = "train.tsv"\n[leakage]\nmethod = "lexical"\n'
        '[runs]\npattern = "runs/{model}/{leakage}.run"\n',
    )
    return root


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


MARKDOWN_FIELDS = frozenset({"body", "label", "help", "caption", "placeholder"})
"""The fields of Streamlit's elements that it renders as Markdown (bodies of text and
notices, headings, metrics, labels and help of widgets, tabs and expanders)."""
NOT_MARKDOWN = frozenset({"html", "code", "text"})


def _nodes(node) -> Iterator:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def _strings(value, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)


def markdown_texts(at) -> list[str]:
    """Every string the screen renders as Markdown, `st.table` cells and headers included."""
    from google.protobuf.json_format import MessageToDict

    texts = []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or getattr(node, "type", "") in NOT_MARKDOWN:
            continue
        texts += [s for k, s in _strings(MessageToDict(proto)) if k in MARKDOWN_FIELDS]
    for table in at.table:
        frame = table.value
        texts += [str(c) for c in frame.columns] + [str(i) for i in frame.index]
        texts += [v for row in frame.itertuples(index=False) for v in row if isinstance(v, str)]
    return texts


def chart_texts(at) -> list[str]:
    """Every string of every Plotly chart on the screen."""
    texts = []
    for node in _nodes(at._tree):
        if getattr(node, "type", "") == "plotly_chart":
            texts += [s for _, s in _strings(json.loads(node.proto.spec))]
    return texts


def every_string(at) -> str:
    """Everything the screen sends, as text: to look for a path that must not be there."""
    return "\n".join(str(node.proto) for node in _nodes(at._tree) if hasattr(node, "proto"))


_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
MARKUP = re.compile(
    r"(?<!\\)\]\("  # a link or an image: ](
    r"|(?<!\\)<(?=[A-Za-z/!?])"  # a tag: <img, <a, </…
    r"|(?<=[A-Za-z])\\?:(?=//)"  # a bare link, http://, which GFM links with its colon escaped
    r"|(?<!\\)`"  # a backtick left over: a code span broken open
)


def markup_in(text: str) -> str | None:
    """The markup `text` makes outside its code spans (whose content is literal), or None."""
    found = MARKUP.search(_CODE_SPAN.sub("", text))
    return None if found is None else found.group()


CHART_MARKUP = re.compile(r"<(?!(?:br|/?sup|/?extra)>)")
"""HTML in a chart's text beyond the builders' line breaks, subtitles and hover boxes."""
