"""Text in pictures: the fonts (cached by bytes), measuring, wrapping and eliding."""

from __future__ import annotations

import io
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

from engine.memo import MB, bytes_lru, small

# -- cache sizes -----------------------------------------------------------------------------------
# Every cache of the pictures is bounded by bytes (``engine.memo``): these estimate what an entry holds.

FONT_GLYPHS = 64 * 1024
"""Bytes counted for a loaded font besides its file: FreeType's glyph cache of that size."""


def picture_bytes(value: object) -> int:
    """The pixels of the images a cached sprite holds: an image, or a tuple of images and offsets."""
    if isinstance(value, Image.Image):
        return value.width * value.height * len(value.getbands()) + (768 if value.mode == "P" else 0)
    if isinstance(value, tuple):
        return sum(picture_bytes(part) for part in value)
    if isinstance(value, bytes):
        return len(value)
    return 32


def font_bytes(face: ImageFont.FreeTypeFont) -> int:
    """A loaded font: its file's bytes, which FreeType keeps, and its glyph cache."""
    return len(getattr(face, "font_bytes", b"")) + FONT_GLYPHS


# -- fonts -----------------------------------------------------------------------------------------


@bytes_lru(24 * MB, font_bytes)
def font(size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (shipped in ``render/fonts``) at ``size`` pixels, loaded once per size."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    data = resources.files("render").joinpath("fonts", name).read_bytes()
    return ImageFont.truetype(io.BytesIO(data), size)


@bytes_lru(1 * MB, small)
def text_length(face: ImageFont.FreeTypeFont, text: str) -> float:
    """``face.getlength(text)``, remembered: the header and the footer measure the same texts often."""
    return face.getlength(text)


def wrap(text: str, face: ImageFont.FreeTypeFont, width: float, max_lines: int = 2) -> list[str]:
    """``text`` broken into lines no wider than ``width``; the last line ends in "…" if cut short."""
    lines: list[str] = []
    current = ""
    words = text.split()
    whole = " ".join(words)
    if text_length(face, whole) <= width:
        # Most texts fit on one line: one measure instead of one per word (each about 0.07 ms).
        return [whole] if whole else []
    for i, word in enumerate(words):
        candidate = f"{current} {word}" if current else word
        if text_length(face, candidate) <= width or not current:
            current = candidate
            continue
        if len(lines) == max_lines - 1:
            rest = " ".join([current, *words[i:]])
            while rest and text_length(face, rest + "…") > width:
                rest = rest[:-1].rstrip()
            lines.append(rest + "…")
            return lines
        lines.append(current)
        current = word
    if current:
        lines.append(current)
    return lines


def elide(text: str, face: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` cut to fit ``width``, ending in "…" when cut."""
    text = " ".join(text.split())
    if text_length(face, text) <= width:
        return text
    while text and text_length(face, text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def split_title(text: str) -> tuple[str, str]:
    """A phase sentence "Red to move: 3 and 5 to play" as a title and a capitalised subtitle."""
    title, sep, rest = text.partition(": ")
    if not sep:
        return text, ""
    rest = rest.strip()
    return title, rest[:1].upper() + rest[1:]


@bytes_lru(1 * MB, picture_bytes)
def _glyph(ch: str, size: int) -> bytes:
    """``ch`` drawn alone in the bold font of ``size``, as raw pixels."""
    image = Image.new("L", (2 * size, 2 * size), 0)
    ImageDraw.Draw(image).text((size / 2, size / 2), ch, font=font(size), fill=255)
    return image.tobytes()


NAME_SIZE = 24


def drawable(text: str, size: int = NAME_SIZE) -> str:
    """``text`` without the characters the bold font has no glyph for (they would show as empty
    boxes: the shipped DejaVu fonts have no Chinese or emoji), its spaces tidied."""
    missing = _glyph("\U000f0000", size)  # a private-use character: the font's "no glyph" box
    kept = "".join(ch for ch in text if ch.isspace() or _glyph(ch, size) != missing)
    return " ".join(kept.split())
