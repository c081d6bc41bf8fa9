"""Text from users is text in the dashboard's Markdown (`leakeval_app.markup`): rendered by
a CommonMark parser, `plain(text)` is no markup at all and reads as `text`; prose is left as
it is. What Streamlit itself renders is held in Chromium by tests/app/test_browser_hostile.py."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from leakeval_app.markup import JOINER, code, message, plain

MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
TAG = re.compile(r"<[^>]+>")


def rendered(markdown: str) -> tuple[set[str], str]:
    """The tags a Markdown line renders to (beside its paragraph) and the text it shows."""
    out = MARKDOWN.render(markdown)
    tags = {t.split()[0].strip("</>") for t in TAG.findall(out)} - {"p"}
    return tags, html.unescape(TAG.sub("", out)).replace(JOINER, "").strip()


HOSTILE = [
    "http://host/bare",
    "[click to re-login](http://host/phish)",
    "![p](http://host/m.png)",
    "a `b`` c` d",
    "<img src=http://host/x>",
    "<http://host/auto>",
    "**bold** _em_ ~~gone~~ `code`",
    "[a][b] [b]: http://host/ref",
    "# heading",
    "> quote",
    "- item",
    "1. item",
    "| a | b |",
    "&lt;b&gt; &#60;",
    "a\\",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_no_markup_and_reads_as_itself(text):
    assert rendered(plain(text)) == (set(), text)


LINE = st.text(alphabet="ab1é *_`[]()!<>#|~$&;:/\\-+=.@w", min_size=1, max_size=40).filter(
    lambda t: not t[0].isspace()
)


@given(LINE)
def test_any_line_is_no_markup_and_reads_as_itself(text):
    assert rendered(plain(text)) == (set(), text.strip())


@pytest.mark.parametrize(
    "prose",
    [
        "Leaked topics gain +0.16 [+0.11, +0.22] on robust04 (model colbert, train_size 2000).",
        "α = 0.05 (intervals: test inversion); p < 0.05; nDCG@10, R&D",
        "qrels.txt:3: grade 'one' is not an integer",
        "-0.05",
    ],
)
def test_prose_is_left_as_it_is(prose):
    assert plain(prose) == prose


def test_what_streamlit_rewrites_after_parsing_gets_a_word_joiner():
    """Bare addresses, e-mail addresses, emoji, icons and colours are matched in the parsed
    text, where a backslash no longer counts."""
    for text, where in [
        ("www.host.com", "www\u2060."),
        ("see http://host/p", "http\u2060://"),
        ("HTTPS://host/p", "HTTPS\u2060://"),
        ("me@host.com", "me\u2060@"),
        (":smile:", ":\u2060smile"),
        (":material/warning:", ":\u2060material"),
        (":red[x]", ":\u2060red"),
    ]:
        assert where in plain(text)


@pytest.mark.parametrize("text", ["name=value", "a `b`` c` d", "`edge`", "x``"])
def test_a_code_span_holds_any_text(text):
    assert rendered(code(text)) == ({"code"}, text)


def test_a_message_keeps_its_code_spans_and_nothing_it_quotes_is_markup():
    said = message("unknown measure 'x`[c](http://host/p)`'; run `leakeval measures`")
    tags, text = rendered(said)
    assert tags == {"code"} and "http://host/p" in text
    assert "<a" not in MARKDOWN.render(said)
    assert rendered(message("an odd ` backtick")) == (set(), "an odd ` backtick")
