"""Where things go on the space board: its size, the ring, each sector's counters and unit counts
(``counter_places``) and each planet's name (``NAMES``), apart from the drawing (``render.space``) so
that both the picture and the tests that check nothing covers anything read one layout."""

from __future__ import annotations

import math
from typing import NamedTuple

from engine.space.board import CYGNUS, EARTH, FORCE, NIMROD, PLANET_X, PLANETS, SCRAP, SECTORS, owner
from render.theme import Point

NAME_ROOM = 32
"""Above the ring, under the header: the line of Planet X's name, over its number."""
EARTH_ROOM = 26
"""Under the ring: the line of Earth's name, under its number (the fight's lines come after it)."""
WIDTH, HEIGHT = 800, 1250 + NAME_ROOM + EARTH_ROOM
"""Taller than wide: under the ring the fight's lines, the panels and the footer (phones scroll;
the width is what scales the picture down)."""
HEADER = 100
CENTER: Point = (WIDTH / 2, HEADER + NAME_ROOM + 376)
"""The ring's middle, under the header and Planet X's name."""
FACE_R = 372
"""The board face round the ring; the sectors' numbers sit between the ring and its edge."""
RING_R = 296
"""The ring of sectors, through their middles."""
SECTOR_R, PLANET_R = 27, 37
LABEL_R = RING_R + PLANET_R + 14
"""How far from the centre the planets' numbers are written (outside the ring, in bold)."""
COUNTER_R = 21
"""A counter's radius: wide enough for a two-digit force total in the board's smallest size."""
PAIR_R = RING_R - 54
"""Where both sides share a sector (before its fight), how far from the centre the Terrans' counter
sits: one counter inside the Empire's, full size, so each total stays readable."""
COUNT_IN = 55
"""How far inside the ring a lone side's unit count sits: clear of its counter's corners where the
ring runs slantwise (a square counter fills them)."""
PAIR_COUNT_IN = 50
"""The same for the first count of a shared sector, from the inner counter (a single layer: shallower)."""
COUNT_STEP = 26
"""From one unit count to the next when both sides of a sector have one."""
SIDE_COUNT_DY = 28
"""A shared side planet's two counts: this far over and under the middle of its planet, where its
name is."""
MAX_LAYERS = 3
"""The most counters drawn in a stack (the count says how many units): taller stacks would reach
the next sector's count where the ring runs slantwise."""
SIDE_PLANETS = frozenset({NIMROD, CYGNUS})
"""The planets where the ring runs up and down (left and right), whose names are inside the ring."""


class NamePlace(NamedTuple):
    """Where a planet's name is written: the point and Pillow's text anchor there."""

    at: Point
    anchor: str


OUTER_NAME_R = LABEL_R + 2 + 33
"""Planet X's and Earth's names: outside the ring, past their numbers (over the top one, under the
bottom one), where nothing else is drawn."""
SIDE_NAME_R = RING_R - 104
"""Nimrod's and Cygnus-7's names: inside the ring, level with their planet, beginning (ending) this
far from the centre, just past the arrows along the ring and the planet's unit count; a shared
planet's two counts go over and under the name (``SIDE_COUNT_DY``)."""


def angle(sector: float) -> float:
    """Degrees clockwise from twelve o'clock: sector 1 at the bottom, numbers growing clockwise."""
    return 180 + (sector - 1) * 360 / SECTORS


def position(sector: float, radius: float = RING_R) -> Point:
    a = math.radians(angle(sector))
    return (CENTER[0] + radius * math.sin(a), CENTER[1] - radius * math.cos(a))


NAMES: dict[int, NamePlace] = {
    EARTH: NamePlace(position(EARTH, OUTER_NAME_R), "mm"),
    PLANET_X: NamePlace(position(PLANET_X, OUTER_NAME_R), "mm"),
    NIMROD: NamePlace((CENTER[0] - SIDE_NAME_R, CENTER[1]), "lm"),
    CYGNUS: NamePlace((CENTER[0] + SIDE_NAME_R, CENTER[1]), "rm"),
}
"""Each planet's name beside its own sector: Planet X's over its number at the top, Earth's under
its number at the bottom, Nimrod's and Cygnus-7's inside the ring level with them (outside, the
picture's edge leaves no room for a word)."""


def sector_forces(positions: tuple[int, ...]) -> dict[int, list[tuple[int, int]]]:
    """Per occupied sector, [(units, force total) of the Empire, (units, force total) of the
    Terrans], (0, 0) for a side that is absent."""
    found: dict[int, list[tuple[int, int]]] = {}
    for u, where in enumerate(positions):
        if where == SCRAP:
            continue
        sides = found.setdefault(where, [(0, 0), (0, 0)])
        n, f = sides[owner(u)]
        sides[owner(u)] = (n + 1, f + FORCE[u])
    return found


class Placed(NamedTuple):
    """Where one side's counter of a sector goes, and its unit count."""

    seat: int
    layers: int
    total: int
    face: Point
    """The middle of the top counter's face."""
    count_text: str
    """ "x3" under it, or "" for a lone unit."""
    count_at: Point


def counter_places(positions: tuple[int, ...]) -> list[Placed]:
    """Every sector's counters: a lone side's on the sector, its count inside the ring under it.
    Where both sides share a sector (before its fight), the Empire's stays on the ring and the
    Terrans' goes one counter further in, so neither covers a neighbouring sector; the two counts
    further in still, one after the other (the Empire's first; at Nimrod and Cygnus-7 one over and
    one under the planet's name)."""
    placed: list[Placed] = []
    for sector, sides in sector_forces(positions).items():
        present = [seat for seat in (0, 1) if sides[seat][0]]
        shared = len(present) == 2
        counts = [f"x{sides[seat][0]}" if sides[seat][0] > 1 else "" for seat in present]
        inset = RING_R - max(COUNT_IN, _radius_of(sector) + 12)
        below = position(sector, PAIR_R - PAIR_COUNT_IN if shared else inset)
        step = _count_step(sector)
        if shared and sector in SIDE_PLANETS:
            # Over and under the planet's name, which is level with the planet.
            below, step = (below[0], below[1] - SIDE_COUNT_DY), (0.0, 2.0 * SIDE_COUNT_DY)
        written = 0
        for i, seat in enumerate(present):
            n, force = sides[seat]
            face = position(sector, PAIR_R if shared and i == 1 else RING_R)
            at = (below[0] + step[0] * written, below[1] + step[1] * written)
            written += bool(counts[i])
            placed.append(Placed(seat, 1 if shared else min(n, MAX_LAYERS), force, face, counts[i], at))
    return placed


def _count_step(sector: int) -> Point:
    """From a shared sector's first unit count to its second: towards the centre where the ring
    runs across (the counts one under the other), straight up or down where it runs up and down,
    away from the middle's row (where the side planets' names are)."""
    x, y = position(sector)
    dx, dy = CENTER[0] - x, CENTER[1] - y
    if abs(dy) >= abs(dx):
        # One line further down (or up), along the radius.
        down = COUNT_STEP if dy >= 0 else -COUNT_STEP
        return (dx / abs(dy) * COUNT_STEP, down)
    return (0.0, -COUNT_STEP if dy > 0 else COUNT_STEP)


def _radius_of(sector: int) -> int:
    return PLANET_R if sector in PLANETS else SECTOR_R
