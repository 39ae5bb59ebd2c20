"""The shared look of every board picture: palette, fonts and drawing helpers.

Shapes are drawn at ``SCALE`` times their size and reduced, which gives smooth edges that Pillow's
own drawing lacks; every such sprite is cached, so a board picture mostly pastes ready images and
draws a little text. Seat colours never stand alone: each seat's ``SeatStyle`` has a shape as well
(ring: Red tokens round, Blue tokens square), and text names the seat wherever it matters, so the
picture reads for colour-blind players too. The theme holds no seat of its own: each game's renderer
module declares its two ``SeatStyle`` values (``SEATS``), registered in ``render.SEAT_STYLES``.
"""

from __future__ import annotations

import io
import math
import struct
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from typing import Literal, cast

from PIL import Image, ImageDraw, ImageFont

from engine.memo import MB, bytes_lru, small
from engine.protocol import Outcome

RGB = tuple[int, int, int]
Point = tuple[float, float]

SCALE = 4
"""Supersampling factor of cached sprites."""

# -- palette ---------------------------------------------------------------------------------------

BACKGROUND: RGB = (24, 29, 39)
BOARD: RGB = (33, 40, 53)
TRACK: RGB = (47, 57, 74)
SPACE: RGB = (40, 48, 63)
SPACE_EDGE: RGB = (74, 87, 108)
TEXT: RGB = (236, 239, 244)
MUTED: RGB = (146, 157, 175)
SHADOW: RGB = (12, 15, 21)
HIGHLIGHT: RGB = (246, 196, 69)
"""Gold: the actions of the turn and the winning spaces."""


@dataclass(frozen=True, slots=True)
class SeatStyle:
    """How one seat of a game is drawn. ``shape`` is the cue that does not depend on seeing colour.

    The seat's name is the game's (``Variant.seat_names``); this is only its look.
    """

    fill: RGB
    dark: RGB
    light: RGB
    text: RGB
    """The seat's colour for text and marks on the dark background (lighter than ``fill``)."""
    shape: Literal["disc", "square", "ringed"]
    """"disc" and "square" tokens; "ringed": a disc whose face carries a second, inner ring."""

    @property
    def hex(self) -> int:
        """``fill`` as one 0xRRGGBB number (an embed's colour)."""
        r, g, b = self.fill
        return r << 16 | g << 8 | b


@dataclass(frozen=True, slots=True)
class Caption:
    """What a board picture shows that is not in the position: who plays each seat and how the match
    ended when it did not end on the board (a resignation, a timeout). The shared header draws it
    (``draw_header``), so a game's renderer only passes it on.

    ``names`` are plain display names per seat ("" for none); they are elided to fit.
    """

    names: tuple[str, str] = ("", "")
    ending: Outcome | None = None


NO_CAPTION = Caption()


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


def canvas_bytes(canvas: PaletteCanvas) -> int:
    """A :class:`PaletteCanvas`: its background, its bands raw and compressed, its recent bands."""
    return canvas.size_in_bytes()


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


# -- sprites ---------------------------------------------------------------------------------------


def supersampled(size: tuple[int, int], paint: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    """An RGBA image of ``size`` painted by ``paint(draw, scale)`` at ``SCALE`` times and reduced."""
    big = Image.new("RGBA", (size[0] * SCALE, size[1] * SCALE), (0, 0, 0, 0))
    paint(ImageDraw.Draw(big), SCALE)
    return big.reduce(SCALE)


def supersampled_mask(
    size: tuple[int, int], paint: Callable[[ImageDraw.ImageDraw, int], None]
) -> Image.Image:
    """Like ``supersampled`` but a one-band coverage mask (paint with fill 255): 4 times less to
    reduce than RGBA, for large sprites of one or two flat colours."""
    big = Image.new("L", (size[0] * SCALE, size[1] * SCALE), 0)
    paint(ImageDraw.Draw(big), SCALE)
    return big.reduce(SCALE)


def tinted(layers: Sequence[tuple[RGB, Image.Image]]) -> Image.Image:
    """An RGBA sprite from coverage masks, each painted in its colour over the ones before."""
    base_colour, base = layers[0]
    sprite = Image.new("RGBA", base.size, (*base_colour, 0))
    sprite.putalpha(base)
    for colour, mask in layers[1:]:
        sprite.paste(Image.new("RGBA", base.size, (*colour, 255)), (0, 0), mask)
    return sprite


def faded(sprite: Image.Image, opacity: float) -> Image.Image:
    """``sprite`` with its alpha multiplied by ``opacity``."""
    out = sprite.copy()
    alpha = out.getchannel("A").point(lambda a: int(a * opacity))
    out.putalpha(alpha)
    return out


def paste(image: Image.Image, sprite: Image.Image, center: Point) -> None:
    """Paste an RGBA ``sprite`` centred on ``center``."""
    x = round(center[0] - sprite.width / 2)
    y = round(center[1] - sprite.height / 2)
    image.paste(sprite, (x, y), sprite)


def _shape(
    draw: ImageDraw.ImageDraw, shape: str, box: Sequence[float], fill: RGB, outline: RGB, width: int
) -> None:
    if shape in ("disc", "ringed"):
        draw.ellipse(list(box), fill=fill, outline=outline, width=width)
    else:
        radius = (box[2] - box[0]) * 0.24
        draw.rounded_rectangle(list(box), radius=radius, fill=fill, outline=outline, width=width)


STACK_STEP = 0.17
"""Vertical offset between two drawn tokens of a stack, as a fraction of the token radius."""


@bytes_lru(2 * MB, picture_bytes)
def stack_sprite(style: SeatStyle, radius: int, layers: int) -> Image.Image:
    """``layers`` tokens drawn in ``style`` seen slightly from above, the top token's face centred high.

    The sprite is ``2 * radius + pad`` wide; its height grows with ``layers`` by ``STACK_STEP``.
    """
    # A square token looks as heavy as a disc at a slightly smaller size.
    half = radius * 0.9 if style.shape == "square" else radius
    step = radius * STACK_STEP
    thick = radius * 0.16
    pad = 4
    width = 2 * radius + 2 * pad
    height = round(2 * radius + 2 * pad + thick + step * (layers - 1))

    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        cx = width / 2 * s
        for i in range(layers):
            # i = 0 is the bottom token.
            cy = (pad + radius + step * (layers - 1 - i)) * s
            side = (cx - half * s, cy - half * s + thick * s, cx + half * s, cy + half * s + thick * s)
            _shape(draw, style.shape, side, style.dark, SHADOW, max(1, s))
            face = (cx - half * s, cy - half * s, cx + half * s, cy + half * s)
            _shape(draw, style.shape, face, style.fill, style.dark, round(1.5 * s))
            if i == layers - 1:
                inner = 0.72
                ring = (
                    cx - half * inner * s,
                    cy - half * inner * s,
                    cx + half * inner * s,
                    cy + half * inner * s,
                )
                if style.shape == "ringed":
                    draw.ellipse(ring, outline=style.light, width=round(1.5 * s))
                    core = half * inner * 0.45 * s
                    draw.ellipse(
                        (cx - core, cy - core, cx + core, cy + core),
                        outline=style.light,
                        width=round(1.5 * s),
                    )
                elif style.shape == "disc":
                    draw.ellipse(ring, outline=style.light, width=round(1.5 * s))
                else:
                    rr = half * inner * s * 2 * 0.24
                    draw.rounded_rectangle(ring, radius=rr, outline=style.light, width=round(1.5 * s))

    return supersampled((width, height), paint)


def draw_stack(
    image: Image.Image,
    center: Point,
    style: SeatStyle,
    count: int,
    radius: int,
    number_size: int = 0,
    max_layers: int = 4,
) -> None:
    """A stack of ``count`` tokens in ``style`` centred on ``center``, its count written on the top.

    ``number_size`` 0 leaves the count out (a token used as an icon).
    """
    layers = max(1, min(count, max_layers))
    sprite = stack_sprite(style, radius, layers)
    if not number_size:
        paste(image, sprite, center)
        return
    # Pasting rounds the corner; the top face sits at that corner plus pad + radius. The count is
    # put on the stack's sprite once per look and place (one paste instead of two).
    x0, y0 = round(center[0] - sprite.width / 2), round(center[1] - sprite.height / 2)
    counted = numbered_stack_sprite(style, radius, layers, str(count), number_size, round(center[0]) - x0)
    if counted is not None:
        image.paste(counted, (x0, y0), counted)
        return
    paste(image, sprite, center)
    number(image, (center[0], y0 + 4 + radius), str(count), number_size)


@bytes_lru(4 * MB, picture_bytes)
def numbered_stack_sprite(
    style: SeatStyle, radius: int, layers: int, text: str, size: int, middle: int
) -> Image.Image | None:
    """``stack_sprite`` with ``text`` written as ``number`` does, centred ``middle`` pixels from the
    sprite's left edge on the top face; ``None`` if the text would not fit on the sprite."""
    sprite = stack_sprite(style, radius, layers)
    ink, left, top = text_sprite(text, size, TEXT, True, max(2, size // 10), "mm")
    x, y = middle + left, 4 + radius + top
    if x < 0 or y < 0 or x + ink.width > sprite.width or y + ink.height > sprite.height:
        return None
    counted = sprite.copy()
    counted.alpha_composite(ink, (x, y))
    return counted


@bytes_lru(6 * MB, picture_bytes)
def text_sprite(
    text: str, size: int, fill: RGB, bold: bool, stroke: int, anchor: str
) -> tuple[Image.Image, int, int]:
    """``text`` as an RGBA sprite with an optional dark outline, and its offset from the anchor point.

    Outlined text is the slowest thing a board picture draws, so each distinct short text (a count,
    a space number, a phase title) is rendered once and then only pasted.
    """
    face = font(size, bold)
    box = face.getbbox(text, anchor=anchor, stroke_width=stroke)
    left, top, right, bottom = math.floor(box[0]), math.floor(box[1]), math.ceil(box[2]), math.ceil(box[3])
    size_px = (max(1, right - left), max(1, bottom - top))
    origin = (-left, -top)
    layers: list[tuple[RGB, Image.Image]] = []
    for colour, width in ((SHADOW, stroke), (fill, 0)) if stroke else ((fill, 0),):
        mask = Image.new("L", size_px, 0)
        ImageDraw.Draw(mask).text(origin, text, font=face, fill=255, anchor=anchor, stroke_width=width)
        layers.append((colour, mask))
    return tinted(layers), left, top


sentence_sprite = bytes_lru(4 * MB, picture_bytes)(text_sprite.__wrapped__)
"""``text_sprite`` for sentences (``label(..., cache=False)``), with a cache of its own."""


def label(
    image: Image.Image,
    xy: Point,
    text: str,
    size: int,
    fill: RGB = TEXT,
    anchor: str = "la",
    bold: bool = True,
    stroke: int = 2,
    cache: bool = True,
) -> None:
    """A line of text at ``xy`` (placed by a Pillow ``anchor``); ``stroke`` is a dark outline.

    ``cache=False`` for text that repeats less (a sentence about the latest action): it is kept in a
    cache of its own, so it does not push the short texts out of theirs.
    """
    sprites = text_sprite if cache else sentence_sprite
    sprite, left, top = sprites(text, size, fill, bold, stroke, anchor)
    x, y = round(xy[0]) + left, round(xy[1]) + top
    if image.mode == "RGBA":
        image.alpha_composite(sprite, (x, y))
    else:
        image.paste(sprite, (x, y), sprite)


def number(image: Image.Image, center: Point, text: str, size: int, fill: RGB = TEXT) -> None:
    """Bold text centred on ``center`` with a dark outline, legible on any token or die."""
    label(image, center, text, size, fill, anchor="mm", stroke=max(2, size // 10))


# -- dice ------------------------------------------------------------------------------------------


class DieStyle(Enum):
    WHITE = "white"
    BLACK = "black"
    """The modifier die: black with white pips and a light rim, unlike any white die."""


_DIE_COLOURS: dict[DieStyle, tuple[RGB, RGB, RGB]] = {
    # body, pips, rim
    DieStyle.WHITE: ((244, 241, 232), (28, 32, 42), (190, 184, 170)),
    DieStyle.BLACK: ((16, 17, 20), (246, 246, 246), (168, 176, 190)),
}

_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    0: (),
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}


def die_colours(style: DieStyle | SeatStyle) -> tuple[RGB, RGB, RGB]:
    """Body, pips and rim: a plain die, or a seat's die in its colour with white pips."""
    if isinstance(style, SeatStyle):
        return style.fill, (255, 255, 255), style.dark
    return _DIE_COLOURS[style]


@bytes_lru(3 * MB, picture_bytes)
def die_sprite(value: int, size: int, style: DieStyle | SeatStyle, opacity: float = 1.0) -> Image.Image:
    """A die face showing ``value`` (0: blank) as a ``size`` pixel rounded square, with a shadow."""
    if opacity < 1.0:
        return faded(die_sprite(value, size, style), opacity)
    body, pip, rim = die_colours(style)
    pad = max(3, size // 12)
    total = size + 2 * pad

    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        x0 = y0 = pad * s
        x1 = y1 = (pad + size) * s
        shadow_off = max(2, size // 20) * s
        draw.rounded_rectangle(
            (x0 + shadow_off / 2, y0 + shadow_off, x1 + shadow_off / 2, y1 + shadow_off),
            radius=size * 0.2 * s,
            fill=(0, 0, 0, 110),
        )
        draw.rounded_rectangle(
            (x0, y0, x1, y1), radius=size * 0.2 * s, fill=body, outline=rim, width=round(size * 0.05 * s)
        )
        c = (pad + size / 2) * s
        spread = size * 0.26 * s
        r = size * 0.09 * s
        for dx, dy in _PIPS[value]:
            px, py = c + dx * spread, c + dy * spread
            draw.ellipse((px - r, py - r, px + r, py + r), fill=pip)

    return supersampled((total, total), paint)


def draw_die(
    image: Image.Image,
    center: Point,
    value: int,
    size: int,
    style: DieStyle | SeatStyle,
    opacity: float = 1.0,
) -> None:
    """A die centred on ``center``; ``opacity`` below 1 dims a die already used."""
    paste(image, die_sprite(value, size, style, round(opacity, 2)), center)


# -- marks -----------------------------------------------------------------------------------------


@bytes_lru(1 * MB, picture_bytes)
def badge_sprite(text: str, size: int, fill: RGB, ink: RGB = TEXT) -> Image.Image:
    """A pill with ``text`` (a count such as "+2" or "−1") in ``ink`` on ``fill``."""
    face = font(size)
    text_w = text_length(face, text)
    height = round(size * 1.35)
    width = round(max(text_w + size * 0.9, height))
    pad = 3

    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        draw.rounded_rectangle(
            (pad * s, pad * s, (pad + width) * s, (pad + height) * s),
            radius=height / 2 * s,
            fill=fill,
            outline=SHADOW,
            width=round(2.5 * s),
        )

    sprite = supersampled((width + 2 * pad, height + 2 * pad), paint)
    ImageDraw.Draw(sprite).text((pad + width / 2, pad + height / 2), text, font=face, fill=ink, anchor="mm")
    return sprite


@bytes_lru(2 * MB, picture_bytes)
def ring_sprite(radius: float, width: float, colour: RGB, dashes: int = 0) -> Image.Image:
    """A circle outline of ``radius`` (to the middle of the line); ``dashes`` > 0 breaks it up."""
    half = math.ceil(radius + width)
    size = 2 * half + 2

    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        c = size / 2 * s
        box = (
            c - (radius + width / 2) * s,
            c - (radius + width / 2) * s,
            c + (radius + width / 2) * s,
            c + (radius + width / 2) * s,
        )
        if dashes <= 0:
            draw.ellipse(box, outline=colour, width=round(width * s))
            return
        span = 360 / dashes
        for i in range(dashes):
            start = i * span - 90
            draw.arc(box, start, start + span * 0.6, fill=colour, width=round(width * s))

    return supersampled((size, size), paint)


@bytes_lru(1 * MB, picture_bytes)
def cross_sprite(size: int, colour: RGB, width: float) -> Image.Image:
    """An X of ``size`` pixels in ``colour`` with a dark outline: a stack knocked out."""
    total = size + round(2 * width) + 4

    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        off = (total - size) / 2 * s
        a, b = off, off + size * s
        for ink, w in ((SHADOW, width + 4), (colour, width)):
            draw.line((a, a, b, b), fill=ink, width=round(w * s))
            draw.line((a, b, b, a), fill=ink, width=round(w * s))
            r = w / 2 * s
            for x, y in ((a, a), (b, b), (a, b), (b, a)):
                draw.ellipse((x - r, y - r, x + r, y + r), fill=ink)

    return supersampled((total, total), paint)


def arrow_points(
    center: Point, radius: float, start_deg: float, end_deg: float, step_deg: float = 2.0
) -> list[Point]:
    """Points of an arc of ``radius`` around ``center``, angles clockwise from twelve o'clock."""
    n = max(2, math.ceil(abs(end_deg - start_deg) / step_deg) + 1)
    points: list[Point] = []
    for i in range(n):
        a = math.radians(start_deg + (end_deg - start_deg) * i / (n - 1))
        points.append((center[0] + radius * math.sin(a), center[1] - radius * math.cos(a)))
    return points


def arc_arrow_sprite(
    center: Point,
    radius: float,
    start_deg: float,
    end_deg: float,
    colour: RGB,
    width: float,
    heads: tuple[bool, bool] = (False, True),
    dashed: bool = False,
) -> tuple[Image.Image, tuple[int, int]]:
    """An arrow along the circle of ``radius`` round ``center``, outlined in dark.

    Angles are degrees clockwise from twelve o'clock; the arrow runs from ``start_deg`` to
    ``end_deg`` (clockwise when ``end_deg`` is larger) with heads at the chosen ends. Returns the
    sprite and the canvas position of its top-left corner. Pillow draws the arc itself, which is
    several times faster than a polyline at the supersampled size.
    """
    head = width * 3.2
    direction = 1.0 if end_deg >= start_deg else -1.0
    head_deg = math.degrees(head / radius)
    body = (
        start_deg + direction * head_deg if heads[0] else start_deg,
        end_deg - direction * head_deg if heads[1] else end_deg,
    )
    points = arrow_points(center, radius, start_deg, end_deg, step_deg=3.0)
    margin = head + width + 6
    left = math.floor(min(p[0] for p in points) - margin)
    top = math.floor(min(p[1] for p in points) - margin)
    right = math.ceil(max(p[0] for p in points) + margin)
    bottom = math.ceil(max(p[1] for p in points) + margin)

    def at(deg: float, r: float, s: int) -> tuple[float, float]:
        a = math.radians(deg)
        return ((center[0] + r * math.sin(a) - left) * s, (center[1] - r * math.cos(a) - top) * s)

    spans: list[tuple[float, float]] = [(min(body), max(body))]
    if dashed:
        on, off = math.degrees(width * 2.6 / radius), math.degrees(width * 1.7 / radius)
        lo, hi = spans[0]
        spans = []
        while lo < hi:
            spans.append((lo, min(hi, lo + on)))
            lo += on + off
    triangles: list[tuple[float, float]] = []  # (tip angle, base angle)
    if heads[1]:
        triangles.append((end_deg, body[1]))
    if heads[0]:
        triangles.append((start_deg, body[0]))

    def layer(w: float) -> Callable[[ImageDraw.ImageDraw, int], None]:
        def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
            cx, cy = (center[0] - left) * s, (center[1] - top) * s
            outer = radius + w / 2
            box = (cx - outer * s, cy - outer * s, cx + outer * s, cy + outer * s)
            for lo, hi in spans:
                draw.arc(box, lo - 90, hi - 90, fill=255, width=round(w * s))
                for deg in (lo, hi):
                    x, y = at(deg, radius, s)
                    r = w / 2 * s
                    draw.ellipse((x - r, y - r, x + r, y + r), fill=255)
            grow = (w - width) / 2
            for tip, base in triangles:
                # The outline's head is the same triangle, grown by the outline's width.
                tip_deg = tip + math.degrees(grow / radius) * (direction if tip == end_deg else -direction)
                wing = head * 0.62 + grow
                draw.polygon(
                    [at(tip_deg, radius, s), at(base, radius + wing, s), at(base, radius - wing, s)], fill=255
                )

        return paint

    size = (right - left, bottom - top)
    sprite = tinted(
        [(SHADOW, supersampled_mask(size, layer(width + 4))), (colour, supersampled_mask(size, layer(width)))]
    )
    return sprite, (left, top)


# -- header --------------------------------------------------------------------------------------

NAME_SIZE = 24
MAX_NAME_WIDTH = 190
"""The most width one player's name takes on the header: about 14 letters."""
MIN_NAME_WIDTH = 60
"""The least width a name is drawn in (about 4 letters and "…")."""


def draw_header(
    image: Image.Image,
    seats: tuple[SeatStyle, SeatStyle],
    seat: int | None,
    phase_text: str,
    turn_number: int,
    caption: Caption = NO_CAPTION,
    width: int = 0,
) -> None:
    """The top of every board picture, 100 pixels high, across ``width`` (0: the image's width).

    First line: a token of the seat concerned and the title (whose turn, or who won), and on the
    right "turn N" (the number the message shows too). Second line: the rest of ``phase_text`` (what
    to do, or how the game was won) and on the right each player's name beside a token of their
    seat (after the title instead when the second line has no room). An
    ending in ``caption`` (a resignation, a timeout) replaces the phase: "Blue wins" / "Red resigned".
    """
    width = width or image.width
    if caption.ending is not None:
        seat = caption.ending.winner
        phase_text = caption.ending.description
    title, subtitle = split_title(phase_text.rstrip("."))
    x = 28.0
    if seat is not None:
        draw_stack(image, (44, 40), seats[seat], 1, 17)
        x = 74
    colour = seats[seat].text if seat is not None else TEXT
    title_face = font(32)
    turn_room = text_length(font(NAME_SIZE, bold=False), f"turn {turn_number}") + 22 if turn_number else 0
    title = elide(title, title_face, width - x - 28 - turn_room)
    label(image, (x, 40), title, 32, colour, anchor="lm")
    # The right side, drawn from the right edge leftwards, as far as the title leaves room.
    room_left = x + text_length(title_face, title) + 28
    right = width - 28.0
    if turn_number:
        text = f"turn {turn_number}"
        label(image, (right, 40), text, NAME_SIZE, MUTED, anchor="rm", bold=False)
        right -= text_length(font(NAME_SIZE, bold=False), text) + 22
    face = font(NAME_SIZE)
    names = [(s, drawable(n)) for s, n in ((1, caption.names[1]), (0, caption.names[0]))]
    names = [(s, n) for s, n in names if n]
    icon = 28 + 18  # a token, its gap before the name and the gap after it

    def each(room: float) -> float:
        return min(MAX_NAME_WIDTH, room / max(1, len(names)) - icon)

    # The names go to the right of the second line, after the subtitle (which they never cut
    # short), while each keeps about 8 letters there; else where they have more room, that line or
    # after the title; with too little room on both, they are left out (the message names them).
    sub_face = font(24, bold=False)
    subtitle = elide(subtitle, sub_face, width - 56)
    second = width - 28.0 - (text_length(sub_face, subtitle) + 28 if subtitle else 0) - 28
    y = 80 if each(second) >= min(MAX_NAME_WIDTH, 110) or each(second) >= each(right - room_left) else 40
    fit = each(right - room_left) if y == 40 else each(second)
    if y == 80:
        right = width - 28.0
    if names and fit >= MIN_NAME_WIDTH:
        for s, name in names:
            text = elide(name, face, fit)
            label(image, (right, y), text, NAME_SIZE, seats[s].text, anchor="rm")
            right -= text_length(face, text) + 8
            draw_stack(image, (right - 11, y), seats[s], 1, 12)
            right -= icon
    if subtitle:
        label(image, (28, 80), subtitle, 24, TEXT, anchor="lm", bold=False)


@bytes_lru(1 * MB, picture_bytes)
def _glyph(ch: str, size: int) -> bytes:
    """``ch`` drawn alone in the bold font of ``size``, as raw pixels."""
    image = Image.new("L", (2 * size, 2 * size), 0)
    ImageDraw.Draw(image).text((size / 2, size / 2), ch, font=font(size), fill=255)
    return image.tobytes()


def drawable(text: str, size: int = NAME_SIZE) -> str:
    """``text`` without the characters the bold font has no glyph for (they would show as empty
    boxes: the shipped DejaVu fonts have no Chinese or emoji), its spaces tidied."""
    missing = _glyph("\U000f0000", size)  # a private-use character: the font's "no glyph" box
    kept = "".join(ch for ch in text if ch.isspace() or _glyph(ch, size) != missing)
    return " ".join(kept.split())


# -- output ----------------------------------------------------------------------------------------


def palette_entries(base: Sequence[RGB], pictures: Iterable[Image.Image], size: int = 256) -> list[RGB]:
    """The colours of a fixed palette for ``encode_png``: the ``base`` colours exactly (the flat
    colours of the theme, the seats and the dice), then up to ``size`` entries in all, chosen by
    octree from the colours of ``pictures`` (sample pictures: their anti-aliased edges and blends).

    Each colour of the pictures counts by the logarithm of how often it occurs, so the edge colours
    get entries and the big flat areas do not take them all. Pillow maps a pixel to the palette
    through a cache of 64 levels per channel, so an entry that falls in the same cell as a base
    colour (or near its cell's corner, which the cache looks up) would take that base colour's pixels:
    such entries are dropped until every base colour maps to itself.
    """
    base = list(dict.fromkeys(base))
    counts: dict[RGB, int] = {}
    for picture in pictures:
        for n, colour in picture.convert("RGB").getcolors(1 << 24) or ():
            rgb = cast(RGB, colour)
            counts[rgb] = counts.get(rgb, 0) + n

    def cell(c: RGB) -> RGB:
        return (c[0] >> 2, c[1] >> 2, c[2] >> 2)

    taken = {cell(c) for c in base}
    rest = [c for c in counts if cell(c) not in taken]
    chosen: list[RGB] = []
    if rest and size > len(base):
        weighted = [c for c in rest for _ in range(1 + counts[c].bit_length())]
        strip = Image.new("RGB", (len(weighted), 1))
        strip.putdata(weighted)
        reduced = strip.quantize(size - len(base), method=Image.Quantize.FASTOCTREE)
        flat = (reduced.getpalette() or [])[: 3 * (size - len(base))]
        found = [cast(RGB, tuple(flat[i : i + 3])) for i in range(0, len(flat) - 2, 3)]
        chosen = list(dict.fromkeys(c for c in found if cell(c) not in taken))
    chosen = chosen[: size - len(base)]
    while True:
        mapped = _mapped(base + chosen, base)
        thieves = {i - len(base) for i in mapped if i >= len(base)}
        if not thieves:
            break
        chosen = [c for i, c in enumerate(chosen) if i not in thieves]
    if mapped != list(range(len(base))):
        raise ValueError("two base colours of the palette are too close to tell apart")
    return base + chosen


def _mapped(entries: Sequence[RGB], colours: Sequence[RGB]) -> list[int]:
    """The palette index Pillow maps each of ``colours`` to, with the palette ``entries``."""
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for c in entries for v in c])
    check = Image.new("RGB", (len(colours), 1))
    check.putdata(list(colours))
    return list(check.quantize(palette=palette, dither=Image.Dither.NONE).tobytes())


def palette_image(entries: Sequence[RGB], exact: Sequence[RGB] = ()) -> Image.Image:
    """The palette ``entries`` as a one-pixel "P" image for ``encode_png`` and ``PaletteCanvas``;
    ``ValueError`` unless each of the ``exact`` colours maps to its own entry."""
    if len(entries) > 256:
        raise ValueError("a palette has at most 256 colours")
    wrong = [c for c, i in zip(exact, _mapped(entries, exact), strict=True) if entries[i] != c]
    if wrong:
        raise ValueError(f"the palette does not keep these colours exact: {wrong}")
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for c in entries for v in c])
    return palette


def encode_png(
    image: Image.Image, colours: int = 256, compress_level: int = 3, palette: Image.Image | None = None
) -> bytes:
    """PNG bytes of ``image``, reduced to a palette of ``colours`` (0: keep full colour).

    A board picture holds few colours besides its anti-aliased edges, so a 256-colour palette looks
    the same and makes the file about a third as big and faster to compress. With a fixed
    ``palette`` (see ``palette_image``, one per game) each pixel is only looked up, which is
    several times faster than choosing a palette per picture (measured with ``bench/render.py``:
    ~1 ms against ~5 ms for an 800 x 900 board); ``colours`` is then ignored. ``compress_level`` 1
    (what the board pictures use) makes the file about a tenth bigger than 3 and is the fastest.
    """
    out = io.BytesIO()
    if palette is not None:
        image = image.quantize(palette=palette, dither=Image.Dither.NONE)
    elif colours:
        image = image.quantize(colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    image.save(out, format="PNG", compress_level=compress_level)
    return out.getvalue()


PNG_BAND = 64
"""Rows per independently compressed band of ``PaletteCanvas``."""

RECENT_BANDS_BYTES = 2 * MB
"""Bytes of drawn bands (raw and compressed) whose compressed bytes a ``PaletteCanvas`` remembers
(as many bands as fit, counting each twice its raw size: about 18 of the ring board's 55 KB bands)."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _adler32_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 checksum of two pieces of data one after the other, from each one's checksum
    and the second's ``length`` (zlib's ``adler32_combine``, which Python's ``zlib`` lacks)."""
    base = 65521
    rem = length % base
    low = first & 0xFFFF
    high = (rem * low) % base
    low = (low + (second & 0xFFFF) + base - 1) % base
    high = (high + (first >> 16) + (second >> 16) + base - rem) % base
    return low | high << 16


class PaletteCanvas:
    """Fast PNG output for pictures drawn over one fixed background with one fixed palette.

    The pictures are drawn on a canvas one pixel wider than the picture (``new_image``), whose last
    column stays at palette index 0: in the bytes of the quantized canvas that column sits where
    PNG puts the filter byte of the next row (0, "none"), so those bytes are the PNG's image data as
    they are. The data is deflated (level 1, zlib's run-length strategy, the fastest measured here)
    in bands of ``PNG_BAND`` rows, each on its own (a full flush between them), so a band that
    equals the background's is not compressed again: its compressed bytes are kept from the
    background, and a band that equals one of a recent picture's takes its compressed bytes from
    ``RECENT_BANDS_BYTES``. The stream's Adler-32 is put together from each band's. Smaller bands would be
    skipped more often, but each costs a flush and a fresh compressor, which measured slower (ring
    board: 15 bands, about one in seven untouched).
    """

    def __init__(self, background: Image.Image, palette: Image.Image) -> None:
        if background.mode != "RGB":
            raise ValueError("the background must be an RGB image")
        self.size = background.size
        self.palette = palette
        entries = palette.getpalette() or []
        self._index0 = cast(RGB, tuple(entries[:3]))
        probe = Image.new("RGB", (1, 1), self._index0).quantize(palette=palette, dither=Image.Dither.NONE)
        if probe.tobytes() != b"\x00":
            raise ValueError("the palette's first colour does not map to index 0")
        wide = Image.new("RGB", (self.size[0] + 1, self.size[1]), self._index0)
        wide.paste(background, (0, 0))
        self.background = wide
        self._row = self.size[0] + 1
        self._band_bytes = self._row * PNG_BAND
        data = self._data(wide)
        self._bands = [data[i : i + self._band_bytes] for i in range(0, len(data), self._band_bytes)]
        self._compressed = [self._deflate(b) for b in self._bands]
        self._adlers = [zlib.adler32(b) for b in self._bands]
        self._recent: dict[tuple[int, int], tuple[bytes, bytes]] = {}
        # A band's raw bytes and its compressed bytes (never more than the raw ones at level 1 with
        # Z_RLE, for this kind of picture, plus a few bytes): so many bands fit in the budget.
        self._recent_kept = max(1, RECENT_BANDS_BYTES // (2 * self._band_bytes + 64))
        width, height = self.size
        header = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
        self._head = b"\x89PNG\r\n\x1a\n" + header + _chunk(b"PLTE", bytes(entries))

    def new_image(self) -> Image.Image:
        """A fresh copy of the (wide) background to draw on."""
        return self.background.copy()

    def _data(self, wide: Image.Image) -> bytes:
        raw = wide.quantize(palette=self.palette, dither=Image.Dither.NONE).tobytes()
        return b"\x00" + raw[:-1]

    @staticmethod
    def _deflate(band: bytes) -> bytes:
        squeeze = zlib.compressobj(1, zlib.DEFLATED, -15, 8, zlib.Z_RLE)
        return squeeze.compress(band) + squeeze.flush(zlib.Z_FULL_FLUSH)

    def _deflated(self, index: int, adler: int, band: bytes) -> bytes:
        """``_deflate(band)`` for band ``index``, remembered: consecutive pictures of a game differ in
        a few spaces, so a band often equals one of a recent picture (a third of the drawn bands of
        ``bench/render.py``). Its checksum finds it and its bytes are compared, so a hit is exact.

        No lock (a render pool forks workers while the parent may draw): each step is one atomic
        operation on a dict, and a race between threads costs at most a miss."""
        key = (index, adler)
        found = self._recent.pop(key, None)
        if found is None or found[0] != band:
            found = (band, self._deflate(band))
        self._recent[key] = found  # newest last: the dict's order is the order of use
        while len(self._recent) > self._recent_kept:
            try:
                del self._recent[next(iter(self._recent))]
            except (KeyError, RuntimeError, StopIteration):
                break
        return found[1]

    def size_in_bytes(self) -> int:
        """What this canvas holds: its background, its bands raw and compressed, its recent bands."""
        width, height = self.background.size
        held = sum(len(b) for b in self._bands) + sum(len(c) for c in self._compressed)
        return width * height * 3 + held + RECENT_BANDS_BYTES

    def encode(self, image: Image.Image) -> bytes:
        """PNG bytes of ``image`` (a canvas from ``new_image``), cropped to the picture's size."""
        if image.size != self.background.size:
            raise ValueError("the image was not made by this canvas")
        image.paste(self._index0, (self.size[0], 0, self.size[0] + 1, self.size[1]))
        # The image data is a 0 (the first row's filter byte) and then the indices but their last
        # byte: each band is sliced from the indices straight away, not from a copy of them all.
        raw = image.quantize(palette=self.palette, dither=Image.Dither.NONE).tobytes()
        step = self._band_bytes
        parts = list(self._compressed)
        checksum = 1
        for i, known in enumerate(self._bands):
            band = (
                b"\x00" + raw[: step - 1] if i == 0 else raw[i * step - 1 : min((i + 1) * step, len(raw)) - 1]
            )
            if band == known:
                adler = self._adlers[i]
            else:
                adler = zlib.adler32(band)
                parts[i] = self._deflated(i, adler, band)
            checksum = _adler32_combine(checksum, adler, len(band))
        stream = b"".join([b"\x78\x01", *parts, b"\x03\x00", struct.pack(">I", checksum)])
        return self._head + _chunk(b"IDAT", stream) + _chunk(b"IEND", b"")


def palette_module(game: str, entries: list[RGB]) -> str:
    """The text of the module ``render/<game>_palette.py`` holding the fixed palette ``entries``."""
    data = bytes(v for c in entries for v in c).hex()
    lines = [f'    "{data[i : i + 96]}"' for i in range(0, len(data), 96)]
    return (
        f'"""The fixed palette of the {game} pictures, written by ``python -m render palette --game {game}``\n'
        f'from ``render.{game}.build_palette()``: do not edit by hand."""\n\n'
        "PALETTE_HEX = (\n" + "\n".join(lines) + "\n)\n"
    )
