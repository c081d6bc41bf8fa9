"""The mpnet model's split packages: read as one zip, extracted once, damage reported."""

from __future__ import annotations

import io
import random
import zipfile

import pytest

from leakeval_core.errors import LeakevalError
from leakeval_core.leakage import mpnet

pytestmark = pytest.mark.detection  # `make check` leaves these out


def split(data: bytes, cuts: list[int], folder) -> list:
    paths = []
    for i, (start, end) in enumerate(zip([0, *cuts], [*cuts, len(data)], strict=True)):
        path = folder / f"{mpnet.MODEL}.zip.{i + 1:03d}"
        path.write_bytes(data[start:end])
        paths.append(path)
    return paths


def fake_model_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{mpnet.MODEL}/modules.json", "[]")
        archive.writestr(f"{mpnet.MODEL}/desktop.ini", "[.ShellClassInfo]")
        archive.writestr(f"{mpnet.MODEL}/1_Pooling/config.json", "{}")
        archive.writestr(f"{mpnet.MODEL}/model.safetensors", random.Random(0).randbytes(50_000))
    return buffer.getvalue()


def test_joined_file_reads_and_seeks_like_the_concatenation(tmp_path):
    data = random.Random(1).randbytes(10_000)
    joined = mpnet.JoinedFile(split(data, [1, 4_000, 4_001, 9_999], tmp_path))
    rng = random.Random(2)
    for _ in range(200):
        start, size = rng.randrange(0, 10_050), rng.randrange(0, 3_000)
        assert joined.seek(start) == start
        assert joined.read(size) == data[start : start + size]
    assert joined.seek(-10, io.SEEK_END) == 9_990 and joined.read() == data[-10:]
    joined.close()


def test_model_is_extracted_once_without_desktop_ini(tmp_path, monkeypatch):
    data = fake_model_zip()
    parts = split(data, [len(data) // 3, 2 * len(data) // 3], tmp_path)
    monkeypatch.setattr(mpnet, "part_files", lambda: parts)
    home = tmp_path / "models"
    folder = mpnet.model_dir(home)
    assert (folder / "modules.json").read_text() == "[]"
    assert (folder / "1_Pooling" / "config.json").is_file()
    assert not (folder / "desktop.ini").exists()
    assert [p.name for p in home.iterdir()] == [folder.name]  # no scratch folder left
    (folder / "modules.json").write_text("kept")
    assert mpnet.model_dir(home) == folder
    assert (folder / "modules.json").read_text() == "kept"  # not extracted again


def test_damaged_parts_say_so(tmp_path, monkeypatch):
    data = bytearray(fake_model_zip())
    data[len(data) // 2] ^= 0xFF  # inside the model's compressed bytes: a CRC error
    parts = split(bytes(data), [len(data) // 2], tmp_path)
    monkeypatch.setattr(mpnet, "part_files", lambda: parts)
    with pytest.raises(LeakevalError, match="damaged"):
        mpnet.model_dir(tmp_path / "models")
    assert not any((tmp_path / "models").iterdir())


def test_missing_packages_name_the_install(monkeypatch, tmp_path):
    monkeypatch.setattr(mpnet, "part_files", lambda: None)
    with pytest.raises(LeakevalError, match=r"requirements-mpnet\.txt"):
        mpnet.model_dir(tmp_path)
