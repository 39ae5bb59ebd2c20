"""The pig board: each player's score on a bar to 30, the last die and the turn's total.

No fixed palette file: the ``BoardPicture`` leaves ``palette_hex`` out and builds its palette when
first drawn (``render.picture``).
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.pig import GOAL, PigState
from render import theme
from render.picture import BoardPicture
from render.theme import MUTED, TEXT, Caption, SeatStyle

WIDTH, HEIGHT = 640, 340
HEADER = 100
BAR = (40, 160, 600, 196)
"""The left, top, right and bottom of the first score bar; the second is 70 pixels lower."""
BAR_GAP = 70

PINK = SeatStyle(
    fill=(232, 110, 170), dark=(128, 40, 90), light=(255, 180, 215), text=(255, 150, 200), shape="disc"
)
TEAL = SeatStyle(
    fill=(40, 170, 160), dark=(16, 84, 80), light=(140, 225, 215), text=(110, 215, 205), shape="square"
)
SEATS: tuple[SeatStyle, SeatStyle] = (PINK, TEAL)
"""Seat 0 (Pink) and seat 1 (Teal)."""


def base_colours() -> list[theme.RGB]:
    """The flat colours of the picture, the background first."""
    return [theme.BACKGROUND, theme.TRACK, TEXT, MUTED, *(seat.fill for seat in SEATS)]


def _background() -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), theme.BACKGROUND)
    draw = ImageDraw.Draw(image)
    for seat in (0, 1):
        left, top, right, bottom = BAR
        draw.rectangle((left, top + seat * BAR_GAP, right, bottom + seat * BAR_GAP), fill=theme.TRACK)
    return image


def _paint(image: Image.Image, state: PigState, caption: Caption) -> None:
    seat = state.result.winner if state.result is not None else state.turn
    theme.draw_header(image, SEATS, seat, state.phase_text, state.turn_number, caption)
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = BAR
    for s in (0, 1):
        score = state.scores[s] + (state.total if s == state.seat else 0)
        width = (right - left) * min(score, GOAL) // GOAL
        y = s * BAR_GAP
        if width:
            draw.rectangle((left, top + y, left + width, bottom + y), fill=SEATS[s].fill)
        draw.text((left, top + y - 24), f"{state.scores[s]}", fill=TEXT, font=theme.font(20))
    if state.die is not None:
        theme.draw_die(image, (WIDTH - 60, HEIGHT - 40), state.die, 44, SEATS[state.seat])
    if state.last:
        draw.text((left, HEIGHT - 52), state.last, fill=MUTED, font=theme.font(20, bold=False))


PICTURE = BoardPicture("pig", PigState, "pig states", _background, _paint, base_colours)
render = PICTURE.render
