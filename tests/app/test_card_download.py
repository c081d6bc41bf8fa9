"""The Leakage audit page offers the contamination card that `leakeval card` writes."""

from __future__ import annotations

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from leakeval_core.cli import main
from tests.app.apptest import widget


@pytest.fixture
def downloads(monkeypatch):
    """What the page hands Streamlit to download, by file name."""
    handed: dict[str, bytes] = {}
    keep = MemoryMediaFileStorage.load_and_get_id

    def spy(self, path_or_data, mimetype, kind, filename=None):
        data = path_or_data.encode() if isinstance(path_or_data, str) else path_or_data
        handed[filename] = data
        return keep(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    return handed


@pytest.mark.parametrize("measure", [None, "P_1"])
def test_the_audit_page_offers_the_cards_of_the_command_line(
    open_app, real_audit, tmp_path, downloads, capsys, measure
):
    """With the sidebar's settings: the card's command carries them as flags."""
    at = open_app(real_audit.parent, tmp_path / "cache", "app_pages/audit.py")
    flags = []
    if measure is not None:
        widget(at.sidebar.selectbox, "measure").set_value(measure).run()
        assert not at.exception, [e.value for e in at.exception]
        flags = ["--measure", measure]
    labels = [d.proto.label for d in at.get("download_button")]
    assert "Contamination card (Markdown)" in labels and "Card's figures (JSON)" in labels
    out = tmp_path / "cli" / "card.md"
    out.parent.mkdir()
    assert main(["card", str(real_audit), *flags, "--out", str(out)]) == 0
    capsys.readouterr()
    assert downloads["card.md"].decode() == out.read_text()
    assert downloads["card.json"].decode() == out.with_suffix(".json").read_text()
    assert f"leakeval card {real_audit} {' '.join(flags)}".strip() in out.read_text()
