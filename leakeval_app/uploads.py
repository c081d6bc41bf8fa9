"""Uploaded runs, kept for the browser session.

Streamlit's file uploader forgets its files when its tab stops rendering, so each file is
copied here on arrival, keyed by its content: the same file uploaded twice is kept once.
Nothing is written to disk. Removing a run also renews the uploader (a new key), which
would otherwise hand the same file back on the next rerun.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import NamedTuple

import streamlit as st

_STORE = "_leakeval_uploads"


class Upload(NamedTuple):
    digest: str
    name: str
    data: bytes


def _store() -> dict[str, Upload]:
    return st.session_state.setdefault(_STORE, {})


def keep(files: Iterable) -> None:
    """Add newly uploaded files (Streamlit UploadedFile objects) to the session's runs."""
    store = _store()
    for file in files:
        data = file.getvalue()
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        store.setdefault(digest, Upload(digest, file.name, data))


def uploader() -> list[Upload]:
    """Streamlit's uploader for run files; what it receives is kept, and every kept run is
    returned (the pages that take runs share one store and one widget)."""
    keep(
        st.file_uploader(
            "Run files (plain or gzipped)", accept_multiple_files=True, key=uploader_key()
        )
        or []
    )
    return kept()


def kept() -> list[Upload]:
    """The session's runs, in upload order."""
    return list(_store().values())


def uploader_key() -> str:
    return f"uploads_{st.session_state.get(_STORE + '_generation', 0)}"


def forget(digest: str) -> None:
    _store().pop(digest, None)
    st.session_state[_STORE + "_generation"] = st.session_state.get(_STORE + "_generation", 0) + 1
