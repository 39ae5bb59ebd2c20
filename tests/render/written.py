"""Where a picture writes its words: every ``theme.label`` call while a test runs, recorded as the box
of the text's ink (the font's box at the anchor, with the outline) and the text."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

from render import theme

Box = tuple[int, int, int, int]
Written = list[tuple[Box, str]]


def record_labels(monkeypatch: pytest.MonkeyPatch) -> Written:
    """The list every label is added to (``theme.label`` still draws it) until the test ends."""
    written: Written = []
    label = theme.label

    def recorded(
        image: Image.Image, xy: tuple[float, float], text: str, size: int, *args: Any, **kw: Any
    ) -> None:
        bold, stroke, anchor = kw.get("bold", True), kw.get("stroke", 2), kw.get("anchor", "la")
        left, top, right, bottom = theme.font(size, bold).getbbox(text, anchor=anchor, stroke_width=stroke)
        x, y = round(xy[0]), round(xy[1])
        written.append(((x + left, y + top, x + right, y + bottom), text))
        label(image, xy, text, size, *args, **kw)

    monkeypatch.setattr(theme, "label", recorded)
    return written
