"""The board of ``space``: 28 sectors in a ring, four planets, and each side's 15 units.

Seat 0 is the Evil Empire (it moves first, counterclockwise, home Planet X = 15); seat 1 is the
Terran Defense Force (clockwise, home Earth = 1). Units are numbered 0..29: ``seat * 15 + i``, the
``i`` in order of decreasing force, and written ``E1``..``E15`` / ``T1``..``T15``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SECTORS = 28
UNITS_PER_SIDE = 15
SCRAP = 0
"""The position of a destroyed unit: the scrap heap."""

EARTH, NIMROD, PLANET_X, CYGNUS = 1, 8, 15, 22
PLANETS = (EARTH, NIMROD, PLANET_X, CYGNUS)
PLANET_NAMES = {EARTH: "Earth", NIMROD: "Nimrod", PLANET_X: "Planet X", CYGNUS: "Cygnus-7"}

SIDES = ("Evil Empire", "Terran Defense Force")
SHORT = ("Empire", "Terrans")
PREFIX = ("E", "T")
HOMEWORLD = (PLANET_X, EARTH)
DIRECTION = (-1, 1)
"""Empire units move counterclockwise (decreasing numbers), Terran units clockwise."""


@dataclass(frozen=True, slots=True)
class UnitType:
    count: int
    force: int
    name: str


UNIT_TYPES: tuple[tuple[UnitType, ...], tuple[UnitType, ...]] = (
    (
        UnitType(1, 5, "Vindicator"),
        UnitType(2, 4, "Star Cruisers"),
        UnitType(3, 3, "Imperial Enforcers"),
        UnitType(4, 2, "Robot Drones"),
        UnitType(5, 1, "Clone Troopers"),
    ),
    (
        UnitType(1, 5, "Sol-1"),
        UnitType(2, 4, "Stellar Navy"),
        UnitType(3, 3, "Space Marines"),
        UnitType(4, 2, "Solar Scouts"),
        UnitType(5, 1, "Planetary Patrol"),
    ),
)


def _expand(types: Sequence[UnitType]) -> tuple[UnitType, ...]:
    return tuple(t for t in types for _ in range(t.count))


_UNIT_TYPE: tuple[UnitType, ...] = _expand(UNIT_TYPES[0]) + _expand(UNIT_TYPES[1])
FORCE: tuple[int, ...] = tuple(t.force for t in _UNIT_TYPE)
"""The force value of each unit id."""


def owner(unit: int) -> int:
    return unit // UNITS_PER_SIDE


def units_of(seat: int) -> range:
    return range(seat * UNITS_PER_SIDE, (seat + 1) * UNITS_PER_SIDE)


def unit_label(unit: int) -> str:
    """``E1``..``E15``, ``T1``..``T15``: the notation of a unit."""
    return f"{PREFIX[owner(unit)]}{unit % UNITS_PER_SIDE + 1}"


def unit_name(unit: int) -> str:
    """A unit in words: "Star Cruisers E2 (force 4)"."""
    return f"{_UNIT_TYPE[unit].name} {unit_label(unit)} (force {FORCE[unit]})"


def parse_unit(text: str) -> int | None:
    """The unit id of a label such as ``t3``, or ``None``."""
    text = text.strip().upper()
    if len(text) < 2 or text[0] not in PREFIX or not text[1:].isdigit():
        return None
    n = int(text[1:])
    if not 1 <= n <= UNITS_PER_SIDE:
        return None
    return PREFIX.index(text[0]) * UNITS_PER_SIDE + n - 1


def step(sector: int, steps: int) -> int:
    """The sector ``steps`` clockwise from ``sector`` (negative: counterclockwise); 28 is followed by 1."""
    return (sector - 1 + steps) % SECTORS + 1


def sector_name(sector: int) -> str:
    if sector in PLANET_NAMES:
        return f"{sector} ({PLANET_NAMES[sector]})"
    return str(sector)


def initial_positions() -> tuple[int, ...]:
    return tuple(HOMEWORLD[owner(u)] for u in range(2 * UNITS_PER_SIDE))


def controller(positions: Sequence[int], sector: int) -> int | None:
    """The seat that controls ``sector`` (own units there, no enemy units), or ``None``."""
    present = {owner(u) for u, where in enumerate(positions) if where == sector}
    return present.pop() if len(present) == 1 else None


def on_board(positions: Sequence[int], seat: int) -> list[int]:
    return [u for u in units_of(seat) if positions[u] != SCRAP]


def contested(positions: Sequence[int]) -> list[int]:
    """The sectors holding units of both sides, in increasing number."""
    both = set(positions[:UNITS_PER_SIDE]) & set(positions[UNITS_PER_SIDE:])
    both.discard(SCRAP)
    return sorted(both)
