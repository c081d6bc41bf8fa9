"""Uploaded runs (and training qrels), kept for the browser session, and what was computed
from them.

Streamlit's file uploader hands a file over on the rerun it arrives in. Here it is copied
into the session's store, keyed by its content (the same file uploaded twice is kept once),
and then let go everywhere else: removed from Streamlit's own store of uploads, and the
uploader is drawn anew under a new key, so its widget state drops the file too. Each upload
is then held once, here, and nothing is written to disk.

Memory is bounded and given back:

- a file over LEAKEVAL_MAX_UPLOAD_MB, or one that would take the session past
  LEAKEVAL_SESSION_UPLOAD_MB or the server (all sessions) past LEAKEVAL_SERVER_UPLOAD_MB, is
  refused with a message that names the limit and its variable. Each limit counts what the
  file holds once decompressed, measured as it arrives a block at a time
  (`decoded.measure`), so a small gzip that expands to gigabytes is refused having held
  no more than a block of them, and a file that is kept parses within the limit;
- removing a run drops it and everything computed from it;
- when a session's tab closes, its runs are dropped `server.disconnectedSessionTTL` seconds
  later (at least one) unless it has reconnected (Streamlit itself forgets a session that
  has timed out only when it next stores another one, so the store is emptied here, on
  time).

What is computed from uploads (`derived`: scores, audits) is kept with them, errors
included, so a rerun never reads a file again, a broken one included.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

import streamlit as st

from leakeval_app.limits import (
    NO_UPLOADS,
    max_upload_bytes,
    server_upload_bytes,
    session_upload_bytes,
    streamlit_upload_mb,
    upload_limit,
    uploads_allowed,
)
from leakeval_app.markup import plain
from leakeval_core.errors import LeakevalError
from leakeval_core.io.compressed import TooLarge, mb
from leakeval_core.io.decoded import measure

_STORE = "_leakeval_uploads"
KEPT_RESULTS = 16
"""Results computed from a session's uploads that it keeps (the most recently used)."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Upload:
    """One uploaded file. A weak reference to it tells whether anything still holds it once
    its session has let go (tests/app/test_resilience.py)."""

    digest: str
    name: str
    data: bytes
    size: int
    """What it holds once decompressed: what the limits count."""


class _Failed(NamedTuple):
    """A computation from uploads that raised LeakevalError: its message, to say again."""

    message: str


class _Kept:
    """One session's uploads, what was computed from them, and what was refused."""

    def __init__(self, session_id: str | None) -> None:
        self.session_id = session_id
        self.runs: dict[str, Upload] = {}
        self.training: Upload | None = None
        """Training qrels: the training queries' positives, one file (`training_study`)."""
        self.derived: OrderedDict[tuple, Any] = OrderedDict()
        self.refused: list[str] = []
        self.uploader = 0
        """The uploader's generation: a new one is a new widget, with nothing in it."""
        self.disconnections = 0
        self.expiry: threading.Timer | None = None

    @property
    def size(self) -> int:
        training = self.training.size if self.training is not None else 0
        return training + sum(run.size for run in self.runs.values())

    def release(self) -> None:
        self.runs.clear()
        self.training = None
        self.derived.clear()
        self.refused.clear()
        give_back()

    def disconnected(self, ttl: float) -> None:
        """The tab has gone: drop everything `ttl` seconds from now unless the session is
        back by then (a later disconnection starts the wait again)."""
        self.disconnections += 1
        self.expiry = threading.Timer(ttl, self._expire, (self.disconnections,))
        self.expiry.daemon = True
        self.expiry.start()

    def _expire(self, disconnection: int) -> None:
        from streamlit.runtime import Runtime

        back = Runtime.exists() and Runtime.instance().is_active_session(self.session_id or "")
        if disconnection == self.disconnections and not back:
            self.release()


_LIVE: weakref.WeakSet[_Kept] = weakref.WeakSet()
"""Every session's store, for the server's cap; a session Streamlit forgets drops out."""
_LIVE_LOCK = threading.Lock()


def _kept() -> _Kept:
    kept = st.session_state.get(_STORE)
    if kept is None:
        ctx = _script_context()
        kept = st.session_state[_STORE] = _Kept(ctx.session_id if ctx else None)
        with _LIVE_LOCK:
            _LIVE.add(kept)
    _watch(kept)
    return kept


def watch_session() -> None:
    """Called on every rerun: a session holding uploads is watched for its tab closing,
    whichever page it is on (a reconnected session needs watching again)."""
    if _STORE in st.session_state:
        _kept()


def _disconnected(kept: _Kept) -> None:
    """Streamlit releases the session's resources before it marks the session disconnected,
    so the wait is at least a second: a session still marked active then is back."""
    kept.disconnected(max(st.get_option("server.disconnectedSessionTTL"), 1))


@st.cache_resource(scope="session", on_release=_disconnected, show_spinner=False)
def _watch(_kept: _Kept) -> _Kept:
    """Session-scoped: Streamlit releases it when the session's tab disconnects."""
    return _kept


def _script_context():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx()


def keep(files: Iterable, training: bool = False) -> None:
    """Add newly uploaded files (Streamlit UploadedFile objects) to the session's runs (or,
    `training`, as its training qrels, in place of any before), or say why one is refused,
    and let go of Streamlit's copies. A file let go before comes back as a DeletedFile when
    the browser sends an old uploader's state again: it was kept or refused then, so it is
    passed over."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    files = [file for file in files if isinstance(file, UploadedFile)]
    kept = _kept()
    kept.refused = []
    arrived = []
    for file in files:
        data = file.getvalue()
        try:
            arrived.append((file.name, data, measure(file.name, data, upload_limit())))
        except TooLarge as exc:
            kept.refused.append(str(exc))
    with _LIVE_LOCK:  # the server's total is checked and grown by one session at a time
        server = sum(other.size for other in _LIVE)
        for name, data, size in arrived:
            digest = hashlib.blake2b(data, digest_size=16).hexdigest()
            if training:
                if kept.training is not None:  # replaced: its size is the session's no more
                    server -= kept.training.size
                    forget_training()
                if refusal := _refusal(name, size, kept.size, server):
                    kept.refused.append(refusal)
                else:
                    kept.training = Upload(digest, name, data, size)
                    server += size
            elif digest not in kept.runs:
                if refusal := _refusal(name, size, kept.size, server):
                    kept.refused.append(refusal)
                else:
                    kept.runs[digest] = Upload(digest, name, data, size)
                    server += size
    _let_go(files)


def _refusal(name: str, size: int, session: int, server: int) -> str | None:
    """Why a file of `size` bytes (decompressed) within the upload limit is not kept, or
    None; the session and the server already keep `session` and `server` bytes."""
    if session + size > session_upload_bytes():
        return (
            f"{name} ({mb(size)}) is not kept: this session keeps {mb(session)} of runs and "
            f"may keep {mb(session_upload_bytes())} (LEAKEVAL_SESSION_UPLOAD_MB); remove a "
            "run to make room"
        )
    if server + size > server_upload_bytes():
        return (
            f"{name} ({mb(size)}) is not kept: the server keeps {mb(server)} of runs for "
            f"all its readers and may keep {mb(server_upload_bytes())} "
            "(LEAKEVAL_SERVER_UPLOAD_MB); try again once others have removed runs or closed "
            "their tabs"
        )
    return None


def _let_go(files: Iterable) -> None:
    """Take the files out of Streamlit's store of uploads, as its chat input does with
    its own, and renew the uploader so its state holds them no longer."""
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

    ctx = _script_context()
    if ctx is not None and isinstance(ctx.uploaded_file_mgr, MemoryUploadedFileManager):
        for file in files:
            ctx.uploaded_file_mgr.remove_file(session_id=ctx.session_id, file_id=file.file_id)
    _renew()


def follow_limits() -> None:
    """Called on every rerun: Streamlit's own upload limit follows leakeval's
    (`limits.streamlit_upload_mb`, 0 when uploads are off). `leakeval app` sets it as its
    server starts (`serve`); a server started by `streamlit run app.py` is told on its
    first run, before any uploader is drawn."""
    from streamlit import config

    wanted = streamlit_upload_mb()
    if config.get_option("server.maxUploadSize") != wanted:
        config.set_option("server.maxUploadSize", wanted, "LEAKEVAL_MAX_UPLOAD_MB")


def uploader() -> list[Upload]:
    """Streamlit's uploader for run files; what it receives is kept (or refused, and
    said so below it), and every kept run is returned (the pages that take runs share one
    store and one widget). Where uploads are off, a caption says so in its place."""
    if not uploads_allowed():
        st.caption(f"Uploads are off on this server ({NO_UPLOADS}).")
        return []
    key = uploader_key()
    st.file_uploader(
        "Run files (plain or gzipped)",
        accept_multiple_files=True,
        key=key,
        on_change=lambda: keep(st.session_state[key] or []),
    )
    st.caption(
        f"Up to {mb(max_upload_bytes())} a file once decompressed (LEAKEVAL_MAX_UPLOAD_MB); "
        "leakeval refuses a larger one."
    )
    for refusal in _kept().refused:
        st.error(f"leakeval: {plain(refusal)}")
    return kept()


def training_uploader() -> Upload | None:
    """The uploader for the session's training qrels (one file, kept as a run is, under the
    same limits); the one kept, or None."""
    if not uploads_allowed():
        st.caption(f"Uploads are off on this server ({NO_UPLOADS}).")
        return None
    key = f"training_{uploader_key()}"
    st.file_uploader(
        "Training qrels (TREC qrels such as MS MARCO's qrels.train.tsv, a BEIR qrels TSV, or "
        "a CSV of train_qid and docid; plain or gzipped)",
        key=key,
        on_change=lambda: keep([f] if (f := st.session_state[key]) else [], training=True),
    )
    for refusal in _kept().refused:
        st.error(f"leakeval: {plain(refusal)}")
    return _kept().training


def training_held() -> bool:
    """Whether the session holds training qrels, or was just told why a file was refused:
    what it must see without opening anything."""
    kept = st.session_state.get(_STORE)
    return kept is not None and (kept.training is not None or bool(kept.refused))


def forget_training() -> None:
    """Drop the session's training qrels, and the study computed from them."""
    kept = _kept()
    if kept.training is not None:
        digest = kept.training.digest
        kept.training = None
        for entry in [e for e in kept.derived if digest in e[0]]:
            del kept.derived[entry]
    _renew()


def training_study(study, key: tuple) -> tuple[Any, str | None]:
    """`study` with the session's uploaded training qrels in place of none (a Study of its
    own, kept with the upload), and why the upload could not be read (None when it could
    or there is none). An experiment that declares its own keeps them."""
    kept = st.session_state.get(_STORE)
    upload = kept.training if kept is not None else None
    if upload is None or study.experiment.training_qrels is not None:
        return study, None
    try:
        return derived([upload], ("training study", *key), lambda: _trained(study, upload)), None
    except LeakevalError as exc:
        return study, str(exc)


def _trained(study, upload: Upload):
    from dataclasses import replace

    from leakeval_core.api import Study
    from leakeval_core.api.doors import training_answers

    answers = training_answers((upload.name, upload.data))  # a bad line fails here, once
    return Study(replace(study.experiment, training_qrels=answers), study.cache)


def kept() -> list[Upload]:
    """The session's runs, in upload order."""
    return list(_kept().runs.values())


def uploader_key() -> str:
    kept = st.session_state.get(_STORE)
    return f"uploads_{kept.uploader if kept is not None else 0}"


def _renew() -> None:
    _kept().uploader += 1


def forget(digest: str) -> None:
    """Remove a run, and everything computed from it."""
    kept = _kept()
    kept.runs.pop(digest, None)
    for entry in [e for e in kept.derived if digest in e[0]]:
        del kept.derived[entry]
    kept.refused = []
    _renew()
    give_back()


def give_back() -> None:
    """Return the memory a dropped upload's parse used to the system. Both allocators keep
    freed memory for their next allocation, so a server whose readers each parsed a large
    run would otherwise stay near its peak long after their sessions ended."""
    import gc

    from leakeval_core.io.allocator import return_free_memory

    gc.collect()  # a frame in a reference cycle holds its arrow buffers until collected
    return_free_memory()


def derived(runs: Iterable[Upload], key: tuple, build: Callable[[], T]) -> T:
    """`build()`'s result for these uploads and `key` (the settings it depends on), kept
    with the uploads in the session: built once, and a LeakevalError it raised is raised
    again from memory, so a broken file is read once, not on every rerun."""
    kept = _kept()
    entry = (tuple(run.digest for run in runs), *key)
    if entry in kept.derived:
        kept.derived.move_to_end(entry)
        value = kept.derived[entry]
    else:
        try:
            value = build()
        except LeakevalError as exc:
            value = _Failed(str(exc))
        kept.derived[entry] = value
        while len(kept.derived) > KEPT_RESULTS:
            kept.derived.popitem(last=False)
    if isinstance(value, _Failed):
        raise LeakevalError(value.message)
    return value
