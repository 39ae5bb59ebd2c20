"""The rating chart of ``/stats``: a player's rating after each rated match, as a small line chart.

600 x 300 pixels in the board pictures' palette, drawn at twice the size and reduced for smooth
lines. Text is large enough to read when Discord shows the picture 400 pixels wide on a phone.
Wins and losses are marked by shape as well as colour (a filled dot for a win, a ring for a loss),
so the chart reads for colour-blind players too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from render import theme
from render.theme import BACKGROUND, BOARD, CELL_EDGE, HIGHLIGHT, MUTED, RGB, TEXT, TRACK

WIDTH, HEIGHT = 600, 300
S = 2
"""Drawing scale: everything is drawn at ``S`` times and reduced."""

MARGIN = 22
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 70, 572, 92, 260
TITLE_SIZE, SUBTITLE_SIZE, VALUE_SIZE, AXIS_SIZE = 25, 17, 30, 18
WIN: RGB = (96, 204, 130)
LOSS: RGB = (255, 116, 108)
BASELINE = 1500.0
MAX_DOTS = 40
"""Beyond this many matches the dots would touch: only the line is drawn."""


def rating_chart(
    ratings: Sequence[float],
    *,
    title: str,
    subtitle: str = "",
    wins: Sequence[bool] = (),
    first_match: int = 1,
) -> bytes:
    """The chart as PNG bytes.

    ``ratings[0]`` is the rating before match number ``first_match``, ``ratings[i]`` the rating after
    match ``first_match + i - 1``; ``wins[i]`` says whether that match (``ratings[i + 1]``) was won.
    """
    return theme.encode_png(
        draw_chart(ratings, title=title, subtitle=subtitle, wins=wins, first_match=first_match),
        colours=0,  # a palette would band the gradient under the line; the picture is small anyway
    )


def draw_chart(
    ratings: Sequence[float],
    *,
    title: str,
    subtitle: str = "",
    wins: Sequence[bool] = (),
    first_match: int = 1,
) -> Image.Image:
    """The chart as an RGB image of ``WIDTH`` x ``HEIGHT`` (see ``rating_chart``)."""
    if not ratings:
        raise ValueError("a rating chart needs at least one rating")
    values = list(ratings) if len(ratings) > 1 else [ratings[0], ratings[0]]
    image = Image.new("RGB", (WIDTH * S, HEIGHT * S), BACKGROUND)
    draw = ImageDraw.Draw(image, "RGBA")
    draw.rounded_rectangle((6 * S, 6 * S, (WIDTH - 6) * S, (HEIGHT - 6) * S), radius=14 * S, fill=BOARD)

    low, high, step = axis_range(values)
    # Axis labels are written after reducing, at their final size, where font hinting keeps them crisp.
    labels: list[tuple[tuple[float, float], str, int, str]] = []

    def x_of(i: int) -> float:
        return (PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * i / (len(values) - 1)) * S

    def y_of(value: float) -> float:
        return (PLOT_BOTTOM - (PLOT_BOTTOM - PLOT_TOP) * (value - low) / (high - low)) * S

    # Grid and the rating axis.
    for n in range(round((high - low) / step) + 1):
        tick = low + n * step
        y = y_of(tick)
        draw.line((PLOT_LEFT * S, y, PLOT_RIGHT * S, y), fill=TRACK, width=S)
        labels.append(((PLOT_LEFT - 10, y / S), f"{tick:.0f}", AXIS_SIZE, "rm"))
    if low < BASELINE < high:
        _dashed(draw, y_of(BASELINE), CELL_EDGE)

    # Match numbers along the bottom.
    for i in match_ticks(first_match - 1, len(values) - 1):
        x = x_of(i)
        draw.line((x, PLOT_BOTTOM * S, x, (PLOT_BOTTOM + 5) * S), fill=CELL_EDGE, width=S)
        labels.append(((x / S, PLOT_BOTTOM + 8), str(first_match - 1 + i), AXIS_SIZE, "ma"))

    points = [(x_of(i), y_of(v)) for i, v in enumerate(values)]
    _fill_under(image, points)
    draw.line(points, fill=HIGHLIGHT, width=3 * S, joint="curve")
    if len(values) - 1 <= MAX_DOTS:
        _draw_results(draw, points[1:], wins)
    last_x, last_y = points[-1]
    r = 8 * S
    draw.ellipse((last_x - r, last_y - r, last_x + r, last_y + r), outline=HIGHLIGHT, width=2 * S)

    image = image.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)
    for xy, text, size, anchor in labels:
        theme.label(image, xy, text, size, MUTED, anchor=anchor, bold=False, stroke=0)
    _draw_header(image, ratings, title, subtitle)
    return image


def _draw_results(
    draw: ImageDraw.ImageDraw, points: Sequence[tuple[float, float]], wins: Sequence[bool]
) -> None:
    """A mark on each match's point: a filled dot for a win (or a match not said), a ring for a loss."""
    r = 5 * S
    for i, (x, y) in enumerate(points):
        if i >= len(wins) or wins[i]:
            draw.ellipse((x - r, y - r, x + r, y + r), fill=WIN, outline=BOARD, width=S)
        else:
            draw.ellipse((x - r, y - r, x + r, y + r), fill=BOARD, outline=LOSS, width=round(2.5 * S))


def _draw_header(image: Image.Image, ratings: Sequence[float], title: str, subtitle: str) -> None:
    """The title and subtitle on the left, the current rating and the change on the right."""
    current = f"{ratings[-1]:.1f}"
    value_width = theme.font(VALUE_SIZE).getlength(current)
    room = WIDTH - 2 * MARGIN - value_width - 16
    theme.label(image, (MARGIN, 16), fit(title, TITLE_SIZE, room), TITLE_SIZE, TEXT, stroke=0, cache=False)
    theme.label(image, (WIDTH - MARGIN, 13), current, VALUE_SIZE, HIGHLIGHT, anchor="ra", stroke=0)
    if subtitle:
        text = fit(subtitle, SUBTITLE_SIZE, room, bold=False)
        theme.label(image, (MARGIN, 49), text, SUBTITLE_SIZE, MUTED, bold=False, stroke=0, cache=False)
    if len(ratings) > 1:
        change = ratings[-1] - ratings[0]
        sign, colour = ("+", WIN) if change >= 0 else ("\u2212", LOSS)
        theme.label(
            image,
            (WIDTH - MARGIN, 49),
            f"{sign}{abs(change):.1f}",
            SUBTITLE_SIZE,
            colour,
            anchor="ra",
            stroke=0,
        )


def fit(text: str, size: int, width: float, bold: bool = True) -> str:
    """``text`` cut short with "…" so that it is no wider than ``width`` at ``size``."""
    face = theme.font(size, bold)
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _fill_under(image: Image.Image, points: Sequence[tuple[float, float]]) -> None:
    """A gold wash under the line, strongest near the line and fading towards the bottom."""
    bottom = PLOT_BOTTOM * S
    top = min(y for _, y in points)
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).polygon([(points[0][0], bottom), *points, (points[-1][0], bottom)], fill=255)
    height = max(1, round(bottom - top))
    ramp = Image.linear_gradient("L").resize((1, height)).point(lambda v: 70 - v * 62 // 255)
    fade = Image.new("L", image.size, 0)
    fade.paste(ramp.resize((image.width, height)), (0, round(top)))
    alpha = Image.composite(fade, mask, mask)
    image.paste(Image.new("RGB", image.size, HIGHLIGHT), (0, 0), alpha)


def _dashed(draw: ImageDraw.ImageDraw, y: float, colour: RGB) -> None:
    x = PLOT_LEFT * S
    while x < PLOT_RIGHT * S:
        draw.line((x, y, min(x + 8 * S, PLOT_RIGHT * S), y), fill=colour, width=2 * S)
        x += 14 * S


def axis_range(values: Sequence[float]) -> tuple[float, float, float]:
    """A rating axis ``(low, high, step)``: round ticks, at most 6 intervals, every value inside with
    some margin."""
    lo, hi = min(values), max(values)
    spread = max(hi - lo, 20.0)
    middle = (lo + hi) / 2
    lo, hi = middle - spread * 0.56, middle + spread * 0.56
    magnitude = 10 ** math.floor(math.log10(spread / 6))
    for step in (m * magnitude for m in (1, 2, 2.5, 5, 10, 20, 25, 50)):
        low, high = math.floor(lo / step) * step, math.ceil(hi / step) * step
        if (high - low) / step <= 6:
            return low, high, step
    raise AssertionError("unreachable: a step of 50 times spread / 6 always fits")


def match_ticks(start: int, matches: int) -> list[int]:
    """Indexes along the bottom to label (0 = ``start``, ``matches`` = after the last match): every
    one for a few matches, else the ends and round match numbers between them."""
    if matches <= 12:
        return list(range(matches + 1))
    step = next(s for s in (2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000) if matches / s <= 7)
    inner = [n - start for n in range((start // step + 1) * step, start + matches, step)]
    inner = [i for i in inner if i >= step * 0.4 and matches - i >= step * 0.4]
    return [0, *inner, matches]
