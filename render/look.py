"""The shared colours and the per-seat look of every picture (``SeatStyle``), and the caption a
picture is drawn with (``Caption``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

from engine.protocol import GameView, Outcome

RGB = tuple[int, int, int]
Point = tuple[float, float]

SCALE = 4
"""Supersampling factor of cached sprites."""

# -- palette ---------------------------------------------------------------------------------------

BACKGROUND: RGB = (24, 29, 39)
BOARD: RGB = (33, 40, 53)
TRACK: RGB = (47, 57, 74)
CELL: RGB = (40, 48, 63)
CELL_EDGE: RGB = (74, 87, 108)
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
    clocks: tuple[str, str] = ("", "")
    """Each seat's live-clock reserve as a clock reads it ("1:48"; "" for no live clock)."""
    clock_running: int | None = None
    """The seat whose live clock runs (its reserve is marked)."""
    turn_start: GameView | None = None
    """On a player's own picture of their complete turn that waits for their Confirm: the position
    the turn began from, as they see it. The position drawn already hands the turn over, so the
    header speaks of this one (``header_view``: "White to play 6-4") with "Confirm or undo" under
    it, never of the next player's turn."""


NO_CAPTION = Caption()

CONFIRM_OR_UNDO = "confirm or undo"
"""The header's second line on a complete turn that waits for its player's Confirm."""

View = TypeVar("View", bound=GameView)


def header_view(view: View, caption: Caption) -> View:
    """The position a picture's header speaks of: the start of the turn that waits for its Confirm
    (``Caption.turn_start``) when the caption has one of the same game, else ``view`` itself."""
    start = caption.turn_start
    return start if isinstance(start, type(view)) else view
