"""The session context: which experiment and settings this rerun shows, and its data key.

app.py builds one per rerun from the sidebar; pages read it with `current()` and hand its
`key` to the loaders and views. It holds settings only: every table comes from a cached
loader or view keyed by `key`, never from a method on this object.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from leakeval_core.analysis.options import Statistics
from leakeval_core.evaluation.conventions import Conventions
from leakeval_core.evaluation.measures import Measure, parse_measures
from leakeval_core.experiment.manifest import Experiment
from leakeval_core.present.style import Palette

APP_MEASURES = parse_measures("ndcg_cut_10,P_1,first_rel_rank,recip_rank,map,recall_100,judged_10")
"""What the app scores once per experiment and conventions: every page picks from these."""


class DataKey(NamedTuple):
    """What every cached table depends on: the experiment's files and the conventions.

    A tuple of plain values, so Streamlit's caches hash it as one argument.
    """

    path: str
    fingerprint: str
    """Size and mtime of every file the experiment uses: an edit makes a new key."""
    conventions: tuple

    @property
    def files(self) -> tuple[str, str]:
        """The part of the key that tables independent of the conventions depend on."""
        return self.path, self.fingerprint

    def scoring(self) -> Conventions:
        return Conventions(**dict(self.conventions))


class LeakageKey(NamedTuple):
    """What the LEAKAGE table depends on: the experiment's files and the detection method."""

    path: str
    fingerprint: str
    method: str

    @property
    def files(self) -> tuple[str, str]:
        return self.path, self.fingerprint


@dataclass(frozen=True)
class AppContext:
    experiment: Experiment
    fingerprint: str
    measure: Measure
    conventions: Conventions
    statistics: Statistics = Statistics()
    method: str = "lexical"
    """The detection method whose pairs say which topics leaked."""

    @cached_property
    def palette(self) -> Palette:
        """Each factor level's colour, the same on every page (and in the report)."""
        return Palette.of_experiment(self.experiment)

    @property
    def key(self) -> DataKey:
        return DataKey(
            str(self.experiment.root), self.fingerprint, tuple(asdict(self.conventions).items())
        )

    @property
    def leakage_key(self) -> LeakageKey:
        return LeakageKey(str(self.experiment.root), self.fingerprint, self.method)


def current() -> AppContext:
    """The context app.py built for this rerun."""
    return st.session_state["_leakeval_context"]


def set_current(context: AppContext) -> None:
    st.session_state["_leakeval_context"] = context


def data_root() -> Path:
    return Path(os.environ.get("LEAKEVAL_DATA", "data")).resolve()


def max_upload_bytes() -> int:
    """Upload size limit: LEAKEVAL_MAX_UPLOAD_MB, default 200 (Streamlit enforces it too)."""
    return int(float(os.environ.get("LEAKEVAL_MAX_UPLOAD_MB", "200")) * 1_000_000)


def presenting() -> bool:
    """Presentation mode (`?present=1`, or the sidebar toggle): large type, no controls, the
    sidebar closed, so the story reads from the back of a room at 1280×720."""
    return st.query_params.get("present") in ("1", "True")
