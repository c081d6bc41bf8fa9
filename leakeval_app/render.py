"""The few ways a page shows things, so every page shows them the same way."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from leakeval_app.context import AppContext
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.collections import Collection, document_text
from leakeval_core.present.style import themed
from leakeval_core.present.tables import PROBABILITY_COLUMNS

PRESENTATION_CSS = """<style>
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { padding-top: 1.5rem; max-width: 100%; }
[data-testid="stHeader"] { display: none; }
h2 { font-size: 1.35rem !important; line-height: 1.3 !important; padding-top: 0 !important; }
</style>"""
"""Presentation mode: type that reads from the back of a room, no toolbar, full width."""

PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def show_fig(builder: Callable[..., go.Figure], *args: Any, **kwargs: Any) -> None:
    """Draw `builder(*args, **kwargs)`, built and serialised once per distinct input.

    Building a Plotly figure (validation, templates) and serialising it for the browser cost
    more than the rest of a warm rerun. The chart is drawn inside a
    cached function keyed by the builder and a digest of its inputs, so a repeat replays
    the chart message Streamlit stored instead of doing either again.
    """
    name = f"{builder.__module__}.{builder.__qualname__}"
    _chart(name, _digest(args, kwargs), page_theme(), builder, args, kwargs)


def page_theme() -> str | None:
    """ "dark" or "light", as the browser reports the page (None before it has): the charts'
    backgrounds are transparent, and their text follows."""
    return st.context.theme.type


@st.cache_data(max_entries=256, show_spinner=False)
def _chart(name: str, digest: str, theme: str | None, _builder, _args, _kwargs) -> None:
    # theme=None: the figures style themselves without a template (see present.style)
    figure = themed(_builder(*_args, **_kwargs), theme)
    st.plotly_chart(figure, width="stretch", config=PLOT_CONFIG, theme=None)


def show_selectable_fig(
    builder: Callable[..., go.Figure], *args: Any, key: str, on_select: Callable[[], None]
) -> None:
    """Draw a figure whose points can be clicked (`on_select` runs on a new selection). The
    chart message cannot be replayed (its selection is live), but the figure is built once
    per distinct input: building is the expensive part."""
    name = f"{builder.__module__}.{builder.__qualname__}"
    st.plotly_chart(
        _built(name, _digest(args), page_theme(), builder, args),
        width="stretch",
        config=PLOT_CONFIG,
        theme=None,
        key=key,
        on_select=on_select,
        selection_mode="points",
    )


@st.cache_resource(max_entries=64, show_spinner=False)
def _built(name: str, digest: str, theme: str | None, _builder, _args) -> go.Figure:
    return themed(_builder(*_args), theme)


def _digest(*parts: Any) -> str:
    """Exact content digest of figure inputs: frames by every value, the rest by repr."""
    digest = hashlib.blake2b(digest_size=16)

    def feed(value: Any) -> None:
        if isinstance(value, pd.DataFrame | pd.Series | pd.Index):
            digest.update(pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes())
            names = value.columns if isinstance(value, pd.DataFrame) else [value.name]
            digest.update(repr((type(value).__name__, list(names), len(value))).encode())
        elif isinstance(value, dict):
            for k, v in value.items():
                feed(k)
                feed(v)
        elif isinstance(value, list | tuple):
            digest.update(f"[{len(value)}".encode())
            for v in value:
                feed(v)
        else:
            digest.update(repr(value).encode())

    for part in parts:
        feed(part)
    return digest.hexdigest()


def show_table(frame: pd.DataFrame, height: int | None = None, **column_config) -> None:
    """A table with p-values in 3 significant digits (1e-22, not 0.000…0001) and the
    confidence of an interval as a percentage."""
    defaults = {
        column: st.column_config.NumberColumn(format="%.3g")
        for column in frame.columns
        if column in PROBABILITY_COLUMNS
    }
    if "confidence" in frame.columns:
        defaults["confidence"] = st.column_config.NumberColumn(format="percent")
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        height=height or "auto",
        column_config={**defaults, **column_config} or None,
    )


def show_error(exc: LeakevalError) -> None:
    """The same one-line message the CLI prints, so users can grep for it."""
    st.error(f"leakeval: {exc}")


def collection_or_stop(ctx: AppContext, name: str) -> Collection:
    """The collection, or a page that shows its file:line error and stops there."""
    try:
        return ctx.study.collection(name)
    except LeakevalError as exc:
        show_error(exc)
        st.stop()


def number(value: float, digits: int = 4) -> str:
    return "–" if pd.isna(value) else f"{value:.{digits}f}"


NO_DOCUMENTS = (
    "Document text is not available: this collection's documents are licensed and not on "
    "this machine (or it is the simulated demo), so leakeval shows document ids, scores and "
    "grades only. With the documents in your ir_datasets home, their text appears here."
)


def show_document(collection: Collection, docid: str) -> None:
    """A document's text when the user has the documents, else a plain explanation."""
    text = document_text(collection, docid)
    if text is None:
        st.info(NO_DOCUMENTS, icon=":material/lock:")
    else:
        st.text_area(f"Document {docid}", text, height=240, disabled=True)


def lazy_expander(label: str, key: str, icon: str | None = None) -> Any:
    """An expander whose content runs and is sent only while it is open (check `.open`):
    closed, it costs a rerun its label and nothing else."""
    return st.expander(label, icon=icon, key=key, on_change="rerun")
