"""The few ways a page shows things, so every page shows them the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from leakeval_core.collections import Collection, document_text
from leakeval_core.errors import LeakevalError

PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def show_fig(fig: go.Figure, key: str | None = None) -> None:
    st.plotly_chart(fig, width="stretch", config=PLOT_CONFIG, key=key)


def show_table(frame: pd.DataFrame, height: int | None = None, **column_config) -> None:
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        height=height or "auto",
        column_config=column_config or None,
    )


def show_error(exc: LeakevalError) -> None:
    """The same one-line message the CLI prints, so users can grep for it."""
    st.error(f"leakeval: {exc}")


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


def tabs(labels: list[str], key: str) -> Sequence[Any]:
    """Tabs that run and send only the open one (check `tab.open`): a page switch then
    pays for the tab on screen, not for every chart and table behind the others."""
    return st.tabs(labels, key=key, on_change="rerun")
