"""The few ways a page shows things, so every page shows them the same way."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

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
