"""Cached sprites of the pictures, drawn at ``SCALE`` times their size and reduced (smooth edges that
Pillow's own drawing lacks): stacks, dice, badges, rings and arrows, text."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import Enum

from PIL import Image, ImageDraw

from engine.memo import MB, bytes_lru
from render.look import RGB, SCALE, SHADOW, TEXT, Point, SeatStyle
from render.text import font, picture_bytes, text_length

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
                inner_edge = (
                    cx - half * inner * s,
                    cy - half * inner * s,
                    cx + half * inner * s,
                    cy + half * inner * s,
                )
                if style.shape == "ringed":
                    draw.ellipse(inner_edge, outline=style.light, width=round(1.5 * s))
                    core = half * inner * 0.45 * s
                    draw.ellipse(
                        (cx - core, cy - core, cx + core, cy + core),
                        outline=style.light,
                        width=round(1.5 * s),
                    )
                elif style.shape == "disc":
                    draw.ellipse(inner_edge, outline=style.light, width=round(1.5 * s))
                else:
                    rr = half * inner * s * 2 * 0.24
                    draw.rounded_rectangle(inner_edge, radius=rr, outline=style.light, width=round(1.5 * s))

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
def circle_sprite(radius: float, width: float, colour: RGB, dashes: int = 0) -> Image.Image:
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
