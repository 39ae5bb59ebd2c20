"""What a picture writes, recorded while a test runs: every ``theme.label`` call as the box of the
text's ink (the font's box at the anchor, with the outline) and the text (``record_labels``), and
every text Pillow draws, with its font (``record_rasterised``)."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image, ImageFont

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


Rasterised = list[tuple[ImageFont.FreeTypeFont, str]]


def record_rasterised(monkeypatch: pytest.MonkeyPatch) -> Rasterised:
    """The list every text is added to, with its font, as Pillow turns it into pixels until the test
    ends: ``FreeTypeFont.getmask2``, which ``ImageDraw.text`` calls for each line whichever helper drew
    it (a text cached as a sprite earlier is not drawn again: empty ``engine.memo.CACHES`` first)."""
    seen: Rasterised = []
    rasterise = ImageFont.FreeTypeFont.getmask2

    def recorded(self: ImageFont.FreeTypeFont, text: str, *args: object, **kwargs: object) -> object:
        seen.append((self, text))
        return rasterise(self, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ImageFont.FreeTypeFont, "getmask2", recorded)
    return seen
