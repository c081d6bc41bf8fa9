"""Slide images: a page's charts as PNG and SVG at 1920×1080, for slides and papers.

Plotly renders static images with kaleido, which drives a local Chrome or Chromium; nothing
is downloaded. Each chart is drawn as it is on a 1920×1080 slide (type of at least 27 px).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable

import plotly.graph_objects as go

from leakeval_core.errors import LeakevalError
from leakeval_core.present.style import slide_fig

__all__ = ["SLIDE", "slide_images"]

SLIDE = (1920, 1080)
"""The image size: a 16:9 slide at full HD."""
_SCALE = SLIDE[0] / 1280
"""The slide's type grows as a 1280-pixel slide's would on this screen."""


def slide_images(figures: Iterable[tuple[str, go.Figure]]) -> bytes:
    """A zip of every figure as `NN-name.png` and `NN-name.svg`, each 1920×1080, drawn in
    one session of the browser (starting it is most of the time)."""
    import tempfile
    from pathlib import Path

    import plotly.io as pio

    slides, names = [], []
    for number, (name, figure) in enumerate(figures, start=1):
        slides.append(slide_fig(go.Figure(figure), SLIDE[1] / _SCALE, _SCALE))
        names.append(f"{number:02d}-{re.sub(r'[^A-Za-z0-9]+', '-', name).strip('-').lower()}")
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / f"{n}.{fmt}" for fmt in ("png", "svg") for n in names]
        try:
            pio.write_images(slides * 2, files, width=SLIDE[0], height=SLIDE[1])
        except Exception as exc:  # kaleido's errors share no type of their own
            raise LeakevalError(
                "slide images need Chrome or Chromium on this machine (Debian: apt-get "
                f"install chromium); nothing is downloaded ({exc})"
            ) from None
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in sorted(files):
                archive.write(file, file.name)
    return buffer.getvalue()
