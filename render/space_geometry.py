"""Where things go on the space board: its size, the ring, and each sector's counters and unit
counts (``counter_places``), apart from the drawing (``render.space``) so that both the picture and
the tests that check nothing covers anything read one layout."""

from __future__ import annotations

import math
from typing import NamedTuple

from engine.space.board import FORCE, PLANETS, SCRAP, SECTORS, owner
from render.theme import Point

WIDTH, HEIGHT = 800, 1250
"""Taller than wide: under the ring the fight's lines, the panels and the footer (phones scroll;
the width is what scales the picture down)."""
HEADER = 100
CENTER: Point = (WIDTH / 2, HEADER + 376)
"""The ring's middle, under the header."""
FACE_R = 372
"""The board face round the ring; the sectors' numbers sit between the ring and its edge."""
RING_R = 296
"""The ring of sectors, through their middles."""
SECTOR_R, PLANET_R = 27, 37
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
MAX_LAYERS = 3
"""The most counters drawn in a stack (the count says how many units): taller stacks would reach
the next sector's count where the ring runs slantwise."""


def angle(sector: float) -> float:
    """Degrees clockwise from twelve o'clock: sector 1 at the bottom, numbers growing clockwise."""
    return 180 + (sector - 1) * 360 / SECTORS


def position(sector: float, radius: float = RING_R) -> Point:
    a = math.radians(angle(sector))
    return (CENTER[0] + radius * math.sin(a), CENTER[1] - radius * math.cos(a))


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
    further in still, one under the other (the Empire's first)."""
    placed: list[Placed] = []
    for sector, sides in sector_forces(positions).items():
        present = [seat for seat in (0, 1) if sides[seat][0]]
        shared = len(present) == 2
        counts = [f"x{sides[seat][0]}" if sides[seat][0] > 1 else "" for seat in present]
        inset = RING_R - max(COUNT_IN, _radius_of(sector) + 12)
        below = position(sector, PAIR_R - PAIR_COUNT_IN if shared else inset)
        step = _count_step(sector)
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
    runs across (the counts one under the other), straight down or up where it runs up and down
    (further in they would reach the side planets' names)."""
    x, y = position(sector)
    dx, dy = CENTER[0] - x, CENTER[1] - y
    down = COUNT_STEP if dy >= 0 else -COUNT_STEP
    if abs(dy) >= abs(dx):
        # One line further down (or up), along the radius.
        return (dx / abs(dy) * COUNT_STEP, down)
    return (0.0, down)


def _radius_of(sector: int) -> int:
    return PLANET_R if sector in PLANETS else SECTOR_R
