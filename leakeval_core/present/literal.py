"""Text in a Plotly figure shown as the text it is: a level, a topic title, a query or a file
name that holds `<a href=…>` is not a link in the chart.

Plotly draws every piece of text in a figure (titles, axis and tick labels, legend entries,
annotations, bar labels, hover text) through a subset of HTML: `<a href>` makes a link,
`<span style>` styles it, `&lt;` is a `<`. A figure's text comes both from the builders,
whose markup is a line break, a subtitle (`<sup>`) and the hover box's `<extra>`, and from
the data. `literal_text` escapes every `&` and every `<` but those of the builders' tags,
once, as `style` finishes a figure, so the app, the report and the slide images all show it
so.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import plotly.graph_objects as go

__all__ = ["literal", "literal_text"]

_MARKUP = re.compile(r"&|<(?!(?:br|/?sup|/?extra)>)")


def literal(text: str) -> str:
    """`text` with no HTML of its own for Plotly: `&` and `<` as entities, but for the
    builders' `<br>`, `<sup>` and `<extra>`."""
    return _MARKUP.sub(lambda m: "&amp;" if m.group() == "&" else "&lt;", text)


def literal_text(fig: go.Figure) -> go.Figure:
    """`fig` with every string in its traces and layout made `literal` (in place)."""
    for trace in fig.data:
        if changed := _changed(trace.to_plotly_json()):
            trace.update(changed)
    if changed := _changed(fig.layout.to_plotly_json()):
        fig.layout.update(changed)
    return fig


def _changed(props: dict) -> dict:
    """The properties whose text changes, with their new values."""
    out = {}
    for name, value in props.items():
        new, differs = _escaped(value)
        if differs:
            out[name] = new
    return out


def _escaped(value: Any) -> tuple[Any, bool]:
    """`value` with its strings made literal, and whether any changed."""
    if isinstance(value, str):
        new = literal(value)
        return new, new != value
    if isinstance(value, dict):
        pairs = {k: _escaped(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(d for _, d in pairs.values())
    if isinstance(value, np.ndarray) and value.dtype.kind in "OU":
        items = [_escaped(v) for v in value.ravel().tolist()]
        if not any(d for _, d in items):
            return value, False
        return np.array([v for v, _ in items], dtype=object).reshape(value.shape), True
    if isinstance(value, list | tuple):
        items = [_escaped(v) for v in value]
        return [v for v, _ in items], any(d for _, d in items)
    return value, False
