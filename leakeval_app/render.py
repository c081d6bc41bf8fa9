"""The few ways a page shows things, so every page shows them the same way."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from leakeval_app import state
from leakeval_app.context import AppContext
from leakeval_app.markup import message, plain
from leakeval_app.served import relative_paths
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.collections import Collection, document_text
from leakeval_core.present.style import slide_fig, themed
from leakeval_core.present.tables import PROBABILITY_COLUMNS, needed_header, needed_text

SLIDE_SIZES = {"s": 1.0, "m": 1.25, "l": 1.5}
"""A slide chart's scale at each screen size `presentation.CSS` knows (1280, 1600, 1920 wide):
plotly sizes itself in pixels, so a chart is drawn at each and CSS shows the one that fits."""

SLIDE_WIDTH_EM = 64
"""Characters, roughly, that a 1280-pixel slide holds in one line of 18-pixel table text."""


def text_table(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` for `st.table`, which renders Markdown in every cell and header: its text
    (topic titles, levels, run names) shown as text."""
    literal = frame.rename(columns=plain, index=plain if frame.index.dtype == object else None)
    return literal.map(lambda v: plain(v) if isinstance(v, str) else v)


def slide_table(frame: pd.DataFrame, rows: int = 8) -> pd.DataFrame:
    """A table's first rows with its numbers as text (four decimals, p-values in three
    significant digits) and as many of its columns, in order, as fit a slide's width."""
    shown = frame.head(rows).copy()
    for column in shown.columns:
        if pd.api.types.is_float_dtype(shown[column]):
            pattern = "{:.3g}" if column in PROBABILITY_COLUMNS else "{:.4f}"
            shown[column] = shown[column].map(
                lambda v, p=pattern: "–" if pd.isna(v) else p.format(v)
            )
    kept, used = [], 0.0
    for column in shown.columns:
        chars = max([len(str(column)), *(len(str(v)) for v in shown[column])])
        used += 0.55 * chars + 1.4  # text plus the cell's padding, in em
        if used > SLIDE_WIDTH_EM and kept:
            break
        kept.append(column)
    return shown[kept]


PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def show_fig(
    builder: Callable[..., go.Figure], *args: Any, slide_height: int | None = None, **kwargs: Any
) -> None:
    """Draw `builder(*args, **kwargs)`, built and serialised once per distinct input; in
    presentation mode as a slide's figure (`slide_height` tall, where given).

    Building a Plotly figure (validation, templates) and serialising it for the browser cost
    more than the rest of a warm rerun. The chart is drawn inside a
    cached function keyed by the builder and a digest of its inputs, so a repeat replays
    the chart message Streamlit stored instead of doing either again.
    """
    name = f"{builder.__module__}.{builder.__qualname__}"
    digest = _digest(args, kwargs)
    if not state.presenting():
        st.session_state.setdefault(_SHOWN, []).append((builder, args, kwargs))
        _chart(name, digest, page_theme(), None, builder, args, kwargs)
        return
    for size in SLIDE_SIZES:
        with st.container(key=f"slide-{size}-{digest[:12]}"):
            _chart(name, digest, page_theme(), (size, slide_height), builder, args, kwargs)


_SHOWN = "_leakeval_figures"


def forget_charts() -> None:
    """A rerun starts with no chart shown (a page that stopped early left its list)."""
    st.session_state.pop(_SHOWN, None)


def export_charts() -> None:
    """Below every page: its charts as slide images (PNG and SVG, 1920×1080), on request,
    since the browser draws each chart again to make them."""
    shown = st.session_state.pop(_SHOWN, [])
    if not shown or state.presenting():
        return
    import re

    from leakeval_core.errors import LeakevalError
    from leakeval_core.present.export import slide_images

    key = _digest([(b.__qualname__, a, k) for b, a, k in shown])
    box = lazy_expander("Slide images of this page's charts", "export_charts", ":material/image:")
    with box:
        if not box.open:
            return
        st.caption(
            f"{len(shown)} chart(s) as PNG and SVG at 1920×1080, type sized for a slide, in "
            "one zip. Drawn by this machine's Chromium; nothing is sent anywhere."
        )
        kept = st.session_state.get("_leakeval_slides")
        if st.button("Make the images", icon=":material/photo_library:"):
            figures = []
            for builder, args, kwargs in shown:
                figure = builder(*args, **kwargs)
                title = re.sub(r"<[^>]+>", " ", figure.layout.title.text or builder.__name__)
                figures.append((title.split("  ")[0], figure))
            try:
                kept = (key, slide_images(figures))
            except LeakevalError as exc:
                show_error(exc)
                return
            st.session_state["_leakeval_slides"] = kept
        if kept is not None and kept[0] == key:
            st.download_button(
                "Download the slide images (zip)",
                kept[1],
                "leakeval-slides.zip",
                "application/zip",
                type="primary",
                on_click="ignore",
            )


def page_theme() -> str | None:
    """ "dark" or "light", as the browser reports the page (None before it has): the charts'
    backgrounds are transparent, and their text follows."""
    return st.context.theme.type


@st.cache_data(max_entries=256, show_spinner=False)
def _chart(
    name: str, digest: str, theme: str | None, slide: tuple | None, _builder, _args, _kwargs
) -> None:
    # theme=None: the figures style themselves without a template (see present.style)
    figure = themed(_builder(*_args, **_kwargs), theme)
    if slide is not None:  # (size, height): one of a slide chart's sizes
        figure = slide_fig(figure, slide[1], SLIDE_SIZES[slide[0]])
    st.plotly_chart(figure, width="stretch", config=PLOT_CONFIG, theme=None)


def show_selectable_fig(
    builder: Callable[..., go.Figure], *args: Any, key: str, on_select: Callable[[], None]
) -> None:
    """Draw a figure whose points can be clicked (`on_select` runs on a new selection). The
    chart message cannot be replayed (its selection is live), but the figure is built once
    per distinct input: building is the expensive part. On a slide, nothing is clicked."""
    if state.presenting():
        show_fig(builder, *args)
        return
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
            try:
                digest.update(pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes())
            except TypeError:  # cells pandas cannot hash (a row's topics_needed list)
                digest.update(pickle.dumps(value))
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


def show_table(
    frame: pd.DataFrame,
    height: int | None = None,
    slide: list[str] | None = None,
    columns: list[str] | None = None,
    **column_config,
) -> None:
    """A table with p-values in 3 significant digits (1e-22, not 0.000…0001) and the
    confidence of an interval as a percentage; on a slide, its first rows as plain text, in
    the `slide` columns (default: the first ones) that fit the slide's width. `columns`:
    the ones shown, in order (`display.key_columns`); the frame keeps the others."""
    # a list per row: as one text cell under a header naming its δs, as every table shows it
    labels = {}
    if "topics_needed" in frame:
        labels["topics_needed"] = needed_header(frame.topics_needed)
        frame = frame.assign(topics_needed=[needed_text(e) for e in frame.topics_needed])
    if state.presenting():
        shown = slide_table(frame[slide] if slide else frame).rename(columns=labels)
        st.table(text_table(shown), hide_index=True)
        return
    # a grid's header does not wrap: the δs are in its tooltip and the caption above it, so
    # the table still fits 1280 px
    needed = {
        name: st.column_config.TextColumn("Topics for δ", help=label)
        for name, label in labels.items()
    }
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
        column_order=columns,
        column_config={
            **defaults,
            **needed,
            **column_config,
        }
        or None,
    )


def error_text(error: object) -> str:
    """An error (or a message that holds one) as a page says it: as text, whatever file
    names or values it quotes, its code spans as code, its paths written from the served
    folder."""
    return message(relative_paths(str(error)))


def show_text_table(frame: pd.DataFrame) -> None:
    """A table whose cells are already text (`answers_table`'s verdicts, intervals and
    counts), drawn as a static table that wraps its headers and cells to the page's width:
    every column is seen at 1280 px, where a data grid cuts the last ones off, and text
    sorted as text would misorder its numbers anyway. On a slide, as `show_table`. Its
    cells are Markdown to Streamlit, so they go through `text_table`."""
    if state.presenting():
        st.table(text_table(slide_table(frame)), hide_index=True)
        return
    st.table(text_table(frame), hide_index=True)


def show_error(exc: LeakevalError) -> None:
    """The same one-line message the CLI prints, so users can grep for it (but the paths:
    from the served folder, not the server's root)."""
    st.error(f"leakeval: {error_text(exc)}")


def show_failure(exc: Exception) -> str:
    """An exception no one expected, said to the reader in one line with an error id, never
    as a traceback (which would show the server's paths and code to any visitor); the
    traceback goes to the server's log under that id, for whoever runs it. The id is
    returned."""
    import logging
    import secrets

    from streamlit.logger import get_logger

    error_id = secrets.token_hex(4)
    get_logger("leakeval_app").log(
        logging.ERROR, "error %s on %s", error_id, state.current_page(), exc_info=exc
    )
    st.error(
        f"leakeval: this page stopped on an unexpected error (error id {error_id}). Its "
        "details are in the server's log under that id: please pass the id to whoever runs "
        "this server.",
        icon=":material/error:",
    )
    return error_id


def show_scoring_warnings(warnings: tuple[str, ...]) -> None:
    """The scoring warnings of what is shown (too little of a run judged, a measure at 0 on
    every query), each as the command line prints it, as text: a run's name is the
    reader's."""
    for warning in warnings:
        st.warning(f"leakeval: warning: {error_text(warning)}", icon=":material/warning:")


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
    "grades only. With the documents in your ir_datasets home, or a BEIR collection's "
    "corpus.jsonl, their text appears here."
)


def show_document(collection: Collection, docid: str) -> None:
    """A document's text when the user has the documents, else a plain explanation."""
    text = document_text(collection, docid)
    if text is None:
        st.info(NO_DOCUMENTS, icon=":material/lock:")
    else:
        st.text_area(f"Document {plain(docid)}", text, height=240, disabled=True)


def lazy_expander(label: str, key: str, icon: str | None = None) -> Any:
    """An expander whose content runs and is sent only while it is open (check `.open`):
    closed, it costs a rerun its label and nothing else."""
    return st.expander(label, icon=icon, key=key, on_change="rerun")
