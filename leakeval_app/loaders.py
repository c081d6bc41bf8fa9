"""Which cache holds what, in one place (docs/architecture.md draws the same layers).

- `study` (here, st.cache_resource): one `Study` per experiment folder and file fingerprint,
  shared by every session. It holds every number the pages show, each built once per
  settings on a thread of its own (`Study.remember`): scores per conventions, per-query
  tables per measure, leakage pairs per method, collections, and each page's tables
  (`views`). A reader asking for a value being built joins that build; a reader who clicks
  away leaves it running. The sidebar reads the folder on every rerun (its manifest and a
  glob of its runs pattern), so a run added, edited or removed makes a new fingerprint,
  hence a new study.
- `render` (st.cache_data and st.cache_resource): charts, built and serialised once per
  distinct input; figures are output, not numbers.
- Parsed runs (`leakeval_core.evaluation.parsed_runs`, turned on by `serve`): run files
  read into arrow tables once, by content, so scoring at another setting only ranks and
  scores; `LEAKEVAL_RUN_MEMORY_MB` bounds them.
- The session (`uploads`): uploaded runs and what is computed from them belong to one
  reader, within limits, and go when the session does.
- On disk (`leakeval_core.experiment.cache`, `$LEAKEVAL_CACHE`): the SCORES and LEAKAGE
  tables, keyed by file content, so a new process or a new fingerprint of unchanged files
  reads them instead of scoring or detecting again; `LEAKEVAL_CACHE_MB` bounds it, least
  recently used first. Deleting it loses nothing, and where it cannot be written the app
  works from memory (the study keeps what it built) and says so at the top of every page
  (`cache_notice`).

Scoring and detection draw a progress bar (`first_compute`) the first time a study needs them.
"""

from __future__ import annotations

import streamlit as st

from leakeval_core.api import Study
from leakeval_core.errors import LeakevalError
from leakeval_core.experiment.cache import Cache
from leakeval_core.experiment.manifest import Experiment


@st.cache_resource(max_entries=4, show_spinner=False)
def study(path: str, fingerprint: str, _experiment: Experiment) -> Study:
    """The study of the experiment read at this fingerprint (`_experiment` is that reading:
    left out of the key, which the fingerprint already is)."""
    return Study(_experiment)


def cache_notice() -> str | None:
    """One line when the disk cache cannot be written or its limit cannot be read, else
    None. The server tries a write once, on its first page, so it says so before any table
    is missing from the cache."""
    try:
        cache = Cache()
    except LeakevalError as exc:  # LEAKEVAL_CACHE_MB: every page that computes says it too
        return str(exc)
    _probed(str(cache.root))
    return cache.notice


@st.cache_resource(show_spinner=False)
def _probed(root: str) -> None:
    Cache(root).probe()
