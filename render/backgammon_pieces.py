"""The backgammon board's pieces that need nothing of its geometry: which moves the picture marks
(the turn's, and on the board that hands the turn over the opponent's play before it), the cube's
sprites (in play, offered, or out of play in the Crawford game) and how faded each die is."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.backgammon.game import BackgammonState, Phase
from engine.backgammon.plays import Move
from engine.memo import MB, bytes_lru
from render import theme
from render.theme import HIGHLIGHT, MUTED

HIT_RED: theme.RGB = (214, 48, 48)
"""The red of a hit badge, and of the cross on a cube out of play."""


def shown_moves(state: BackgammonState) -> tuple[int, tuple[Move, ...]] | None:
    """The moves the picture marks and whose they are: the play in progress if a checker has moved
    this turn, else the last completed play (if it moved anything)."""
    if state.phase is Phase.PLAY and state.played:
        return (state.turn_seat or 0, tuple(s.move for s in state.played))
    last = state.last_play
    if last is None or not last.moves or state.phase is Phase.OPENING:
        return None
    return (last.seat, last.moves)


PREVIOUS_COLOUR: theme.RGB = (178, 190, 212)
"""The arrows of the opponent's play before a turn whose forced part was played by itself (gold is
the play of the turn)."""


def previous_moves(state: BackgammonState) -> tuple[int, tuple[Move, ...]] | None:
    """On the public board that hands the turn over with its forced part already played, the
    opponent's whole play before it (drawn too, in its own colour), else None."""
    last = state.last_play
    if state.viewer is not None or state.phase is not Phase.PLAY or not state.played:
        return None
    if last is None or not last.moves or last.seat == state.turn_seat:
        return None
    return (last.seat, last.moves)


@bytes_lru(1 * MB, theme.picture_bytes)
def cube_sprite(text: str, size: int, offered: bool) -> Image.Image:
    """The doubling cube showing ``text``; gold-rimmed when ``offered``."""
    pad = 4
    total = size + 2 * pad
    rim = HIGHLIGHT if offered else (190, 184, 170)

    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        box = (pad * s, pad * s, (pad + size) * s, (pad + size) * s)
        d.rounded_rectangle(
            box,
            radius=size * 0.18 * s,
            fill=(244, 241, 232),
            outline=rim,
            width=round((4 if offered else 2) * s),
        )

    sprite = theme.supersampled((total, total), paint)
    face = theme.font(round(size * (0.5 if len(text) < 2 else 0.44)))
    ImageDraw.Draw(sprite).text((total / 2, total / 2), text, font=face, fill=(28, 32, 42), anchor="mm")
    return sprite


@bytes_lru(1 * MB, theme.picture_bytes)
def unavailable_cube_sprite(size: int) -> Image.Image:
    """The cube greyed and crossed out: it cannot be turned in this game (the Crawford game)."""
    pad = 4
    total = size + 2 * pad

    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        box = (pad * s, pad * s, (pad + size) * s, (pad + size) * s)
        d.rounded_rectangle(
            box, radius=size * 0.18 * s, fill=MUTED, outline=(110, 110, 110), width=round(2 * s)
        )
        inset = (pad + size * 0.22) * s, (pad + size * 0.78) * s
        for a, b in ((inset, inset), (inset, inset[::-1])):
            d.line((a[0], b[0], a[1], b[1]), fill=HIT_RED, width=round(4 * s))

    return theme.supersampled((total, total), paint)


USED = 0.3
"""How opaque a die is drawn once used."""


def die_opacities(state: BackgammonState) -> list[float]:
    """For each die drawn (two, or four of a double), 1.0 while it is still to play, ``USED`` once used."""
    if state.dice is None:
        return []
    d1, d2 = state.dice
    if state.phase is not Phase.PLAY:
        return [1.0] * (4 if d1 == d2 else 2)
    if d1 == d2:
        used = 4 - len(state.dice_left)
        return [USED] * used + [1.0] * (4 - used)
    left = list(state.dice_left)
    opacities = []
    for value in (d1, d2):
        if value in left:
            left.remove(value)
            opacities.append(1.0)
        else:
            opacities.append(USED)
    return opacities
