"""Text from users in Streamlit's Markdown, shown as the text it is, never as markup.

Streamlit renders Markdown in every caption, notice, header, widget label, help text, metric
and `st.table` cell. A value from a link (`?measure=[log in](http://…)`), a file name, a
file's content or an experiment (its names, levels, topic and query texts, run names, the
errors they cause) put there as it is would become a link, an image the browser fetches,
HTML, a formula or a broken code span. `plain` is the one function that makes such text
literal; `code` shows it in a code span, and `message` a message whose backticks mark code
(a command, a setting), every other part `plain`. No Streamlit here: the link code
(`screen`) uses it too.

Escaping is kept to what can make markup, so that prose reads the same in the page's source
(and in the tests): a backslash before the characters that are markup wherever they stand
(backticks, `*`, `~`, `|`, `$`, `#`, `\\`), and before the others only where they would be
markup: `]` before a link's `(`, `[` or `:` (so `[0.1, 0.2]` stays as it is), `_` at a
word's edge, `<` before a tag or an autolink, `&` before an entity, and a list's, a
quote's or an underline's marker at a line's start.

Some of Streamlit's rewrites happen after the Markdown is parsed, where a backslash no
longer counts: bare `http://` and `www.` addresses (GFM's autolinks: an escaped colon,
`http\\://h`, was linked all the same), e-mail addresses, and `:emoji:`, `:material/…:` icons
and `:red[…]` colours (these in code spans too; a name starts with a letter, so
`runs.txt:3:` stays as it is). A word joiner (U+2060, invisible and not a space) goes into
each, so that nothing matches them.
"""

from __future__ import annotations

import re

__all__ = ["code", "message", "plain"]

JOINER = "\u2060"

_MARKUP = re.compile(
    r"""
    [\\`*~|$\#]                       # markup wherever it stands
    | \](?=[(\[:])                    # a link's, an image's, a reference's: [a](…) [a][b] [a]:
    | (?<![^\W_])_ | _(?![^\W_])      # _ that could open or close emphasis (not inside a word)
    | <(?=[A-Za-z/!?])                # a tag, a comment, an autolink
    | &(?=\#?\w+;)                    # an entity
    """,
    re.VERBOSE,
)
_LINE_START = re.compile(
    r"(?m)^([ \t]*)(?:([-+])(?=\s|$)|(>)|([=-])(?=[=-]*[ \t]*$)|(\d{1,9})([.)])(?=\s|$))"
)
"""A list item's or a quote's marker, a heading's underline: markup only at a line's start."""
_AFTER_PARSING = re.compile(
    r"(?i)(?<=\bwww)(?=\.)"  # www.host
    r"|(?<=[A-Za-z])(?=://)"  # http://host
    r"|(?=@[-\w]+\.[-\w])"  # name@host.org
    r"|(?<=:)(?=[A-Za-z+-][\w+-]*(?:/[\w-]+)?[:\[])"  # :smile:, :material/warning:, :red[…]
)


def plain(text: object) -> str:
    """`text` as Streamlit's Markdown shows it literally: `[a](http://h)` is not a link,
    `![p](http://h/x.png)` fetches nothing, `<img src=…>` is text, `a*b*` is not italic."""
    joined = _AFTER_PARSING.sub(JOINER, str(text))
    return _LINE_START.sub(_line_start, _MARKUP.sub(lambda m: "\\" + m.group(), joined))


def _line_start(match: re.Match) -> str:
    indent, item, quote, underline, number, dot = match.groups()
    if number is not None:
        return f"{indent}{number}\\{dot}"
    return f"{indent}\\{item or quote or underline}"


def message(text: object) -> str:
    """A message whose backticks mark code, as the CLI prints it (an error, a hint with a
    command): its code spans shown as code, the rest `plain`. Whatever a value it quotes
    holds, every piece is text."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last one is text
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return "".join(code(p) if i % 2 and p else plain(p) for i, p in enumerate(parts))


def code(text: object) -> str:
    """`text` in a code span, whatever backticks it holds: fenced by more backticks than
    its longest run, and padded where a backtick or a space at its edge would be lost."""
    text = _AFTER_PARSING.sub(JOINER, str(text).replace("\n", " "))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip())
    return f"{fence} {text} {fence}" if padded else f"{fence}{text}{fence}"
