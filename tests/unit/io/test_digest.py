"""A file is known by its content, read again only when its identity (ctime among it) changed."""

import hashlib
import os

from leakeval_core.io import digest
from leakeval_core.io.digest import file_digest
from tests.support import edit_in_place


def test_an_edit_with_size_and_mtime_restored_is_a_new_digest(tmp_path, hashes_kept_at_once):
    path = tmp_path / "a.run"
    path.write_text("1 Q0 a 1 2 x\n")
    first = file_digest(path)
    edit_in_place(path, " a ", " b ")
    assert file_digest(path) != first
    assert file_digest(path) == hashlib.blake2b(path.read_bytes()).hexdigest()[:32]


def test_an_unchanged_file_is_not_read_again(tmp_path, hashes_kept_at_once, monkeypatch):
    path = tmp_path / "a.run"
    path.write_text("1 Q0 a 1 2 x\n")
    reads = []
    real = digest._file_hash
    monkeypatch.setattr(digest, "_file_hash", lambda *a: reads.append(1) or real(*a))
    assert file_digest(path) == file_digest(tmp_path / "." / "a.run")
    assert reads == [1]
    path.write_text("1 Q0 a 1 2 y\n")
    file_digest(path)
    assert reads == [1, 1]


def test_a_file_changed_moments_ago_is_hashed_each_time(tmp_path, monkeypatch):
    """Within `SETTLED_NS` of its last change a second edit could share its ctime on a
    coarse filesystem, so nothing is kept. The margin is made a day here, so the file is
    recent however long this machine takes between writing and reading it."""
    monkeypatch.setattr(digest, "_KNOWN", {})
    monkeypatch.setattr(digest, "SETTLED_NS", 86_400 * 10**9)
    path = tmp_path / "a.run"
    path.write_text("x")
    file_digest(path)
    assert digest._KNOWN == {}


def test_a_replaced_file_is_a_new_digest(tmp_path, hashes_kept_at_once):
    """Another file renamed into place (a new inode), even of the same size and times."""
    path, other = tmp_path / "a.run", tmp_path / "b.run"
    path.write_text("aaaa")
    other.write_text("bbbb")
    stat = os.stat(path)
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    first = file_digest(path)
    os.replace(other, path)
    assert file_digest(path) != first


def test_a_file_read_in_pieces_has_hashlibs_digest(tmp_path):
    """The digest is read a buffer at a time; cached entries are keyed by it, so it must stay
    `hashlib`'s BLAKE2b of the whole file, across buffer boundaries too."""
    path = tmp_path / "large.run"
    path.write_bytes(os.urandom(3 * (1 << 18) + 17))
    assert file_digest(path) == hashlib.blake2b(path.read_bytes()).hexdigest()[:32]
