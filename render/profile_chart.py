"""The picture of ``/stats`` in a game with analyses (backgammon): the player's rating after each rated
match (``render.leaderboard``'s chart, unchanged) above their PR in each of their last analysed
matches, so a player sees at a glance whether they are getting better.

600 pixels wide like the rating chart; the PR panel's text is 20 pixels or more, about 13 on a phone
showing the picture 400 pixels wide. A PR is marked by a dot (a gap where a match had no decision
counted), the player's average PR by a dashed line and its value in the panel's corner. Without any
analysed match the panel says so in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import theme
from render.leaderboard import WIDTH, draw_chart, fit, match_ticks
from render.theme import BACKGROUND, BOARD, CELL_EDGE, MUTED, RGB, TEXT, TRACK

PR_HEIGHT, EMPTY_HEIGHT = 290, 150
"""The PR panel's height, with PRs to show and without."""
S = 2
"""Drawing scale: drawn at ``S`` times and reduced, as the rating chart."""
MARGIN = 22
LEFT, RIGHT, TOP, BOTTOM = 70, 572, 96, 248
TITLE_SIZE, SUBTITLE_SIZE, VALUE_SIZE, AXIS_SIZE = 25, 20, 30, 20
PR_COLOUR: RGB = (120, 184, 255)
"""The PR's line and dots: blue, apart from the rating's gold."""
MAX_DOTS = 40


@dataclass(frozen=True, slots=True)
class PrSeries:
    """The PRs to draw: the last analysed matches' PRs, oldest first (None: no decision counted)."""

    prs: Sequence[float | None]
    average: float | None
    """The PR over every analysed match (``ErrorRates.pr``)."""
    first_match: int = 1
    """The number of the first match shown among the player's analysed matches (1: all are shown)."""
    total: int = 0
    """How many analysed matches the player has in all."""


@dataclass(frozen=True, slots=True)
class RatingSeries:
    """The ratings to draw, as ``render.leaderboard.rating_chart`` takes them."""

    ratings: Sequence[float]
    title: str
    subtitle: str = ""
    wins: Sequence[bool] = ()
    first_match: int = 1


def profile_chart(title: str, prs: PrSeries, rating: RatingSeries | None = None) -> bytes:
    """The picture as PNG bytes: the rating chart (when ``rating``) above the PR panel titled ``title``."""
    return theme.encode_png(draw_profile(title, prs, rating), colours=0)


def draw_profile(title: str, prs: PrSeries, rating: RatingSeries | None = None) -> Image.Image:
    """The picture as an RGB image ``WIDTH`` wide (see ``profile_chart``)."""
    panel = draw_pr_panel(title, prs)
    if rating is None:
        return panel
    top = draw_chart(
        rating.ratings,
        title=rating.title,
        subtitle=rating.subtitle,
        wins=rating.wins,
        first_match=rating.first_match,
    )
    image = Image.new("RGB", (WIDTH, top.height + panel.height), BACKGROUND)
    image.paste(top, (0, 0))
    image.paste(panel, (0, top.height))
    return image


def pr_axis(values: Sequence[float]) -> tuple[float, float]:
    """The PR axis ``(high, step)`` from 0: round ticks, at most 5 intervals, every value below ``high``."""
    top = max([*values, 5.0]) * 1.12
    for step in (1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0, 200.0, 500.0):
        if top / step <= 5:
            return step * -(-top // step), step
    return 1000.0 * -(-top // 1000.0), 1000.0


def draw_pr_panel(title: str, series: PrSeries) -> Image.Image:
    """The PR panel alone: a line chart of ``series``, or a sentence when it is empty."""
    shown = [pr for pr in series.prs if pr is not None]
    height = PR_HEIGHT if shown else EMPTY_HEIGHT
    image = Image.new("RGB", (WIDTH * S, height * S), BACKGROUND)
    draw = ImageDraw.Draw(image, "RGBA")
    draw.rounded_rectangle((6 * S, 6 * S, (WIDTH - 6) * S, (height - 6) * S), radius=14 * S, fill=BOARD)
    labels = _plot(draw, series) if shown else []
    image = image.resize((WIDTH, height), Image.Resampling.LANCZOS)
    for xy, text, anchor in labels:
        theme.label(image, xy, text, AXIS_SIZE, MUTED, anchor=anchor, bold=False, stroke=0)
    value = "" if series.average is None else f"{series.average:.1f}"
    room = WIDTH - 2 * MARGIN - theme.font(VALUE_SIZE).getlength(value) - 16
    theme.label(image, (MARGIN, 16), fit(title, TITLE_SIZE, room), TITLE_SIZE, TEXT, stroke=0, cache=False)
    if value:
        theme.label(image, (WIDTH - MARGIN, 13), value, VALUE_SIZE, PR_COLOUR, anchor="ra", stroke=0)
    lines = [pr_subtitle(series)] if shown else list(EMPTY_WORDS)
    for n, line in enumerate(lines):
        text = fit(line, SUBTITLE_SIZE, WIDTH - 2 * MARGIN, bold=False)
        theme.label(
            image, (MARGIN, 52 + 30 * n), text, SUBTITLE_SIZE, MUTED, bold=False, stroke=0, cache=False
        )
    return image


EMPTY_WORDS = ("No analysed match yet.", "Each backgammon match is analysed as it ends.")


def pr_subtitle(series: PrSeries) -> str:
    count = len(series.prs)
    if series.first_match == 1:
        return f"{count} analysed match{'es' if count != 1 else ''} · lower is better"
    return f"the last {count} of {series.total} analysed matches · lower is better"


def _plot(draw: ImageDraw.ImageDraw, series: PrSeries) -> list[tuple[tuple[float, float], str, str]]:
    """Grid, average, line and dots of the PRs; returns the axis labels to write after reducing."""
    prs = list(series.prs)
    high, step = pr_axis([pr for pr in prs if pr is not None])
    labels: list[tuple[tuple[float, float], str, str]] = []

    def x_of(i: int) -> float:
        return (LEFT + (RIGHT - LEFT) * (i / (len(prs) - 1) if len(prs) > 1 else 0.5)) * S

    def y_of(value: float) -> float:
        return (BOTTOM - (BOTTOM - TOP) * value / high) * S

    for n in range(round(high / step) + 1):
        y = y_of(n * step)
        draw.line((LEFT * S, y, RIGHT * S, y), fill=TRACK, width=S)
        labels.append(((LEFT - 10, y / S), f"{n * step:.0f}", "rm"))
    if series.average is not None:
        _dashed(draw, y_of(min(series.average, high)), CELL_EDGE)
    for i in match_ticks(series.first_match, len(prs) - 1) if len(prs) > 1 else [0]:
        x = x_of(i)
        draw.line((x, BOTTOM * S, x, (BOTTOM + 5) * S), fill=CELL_EDGE, width=S)
        labels.append(((x / S, BOTTOM + 8), str(series.first_match + i), "ma"))
    run: list[tuple[float, float]] = []
    for i, pr in enumerate([*prs, None]):
        if pr is not None:
            run.append((x_of(i), y_of(pr)))
            continue
        if len(run) > 1:
            draw.line(run, fill=PR_COLOUR, width=3 * S, joint="curve")
        run = []
    if len(prs) <= MAX_DOTS or len(prs) == 1:
        r = 5 * S
        for i, pr in enumerate(prs):
            if pr is not None:
                x, y = x_of(i), y_of(pr)
                draw.ellipse((x - r, y - r, x + r, y + r), fill=PR_COLOUR, outline=BOARD, width=S)
    return labels


def _dashed(draw: ImageDraw.ImageDraw, y: float, colour: RGB) -> None:
    x = LEFT * S
    while x < RIGHT * S:
        draw.line((x, y, min(x + 8 * S, RIGHT * S), y), fill=colour, width=2 * S)
        x += 14 * S
