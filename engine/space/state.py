"""The fields of a space position and what they say: phases, records of moves and fights, the
working copy ``Table`` (see ``engine/space/game.py`` for the design)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from operator import attrgetter
from typing import Any, NamedTuple, cast

from engine.protocol import (
    Action,
    EndReason,
    JSONDict,
    Outcome,
)
from engine.space import cards as C
from engine.space.board import (
    DIRECTION,
    HOMEWORLD,
    PLANETS,
    SCRAP,
    UNITS_PER_SIDE,
    owner,
)
from engine.space.must_use import max_dice

SCHEMA = 1
BASE_HAND_LIMIT = 6
START_HAND = 5
DRAWS_PER_TURN = 2


class Phase(Enum):
    SHUFFLE = "shuffle"  # chance: the vortex becomes the new deck
    DISCARD = "discard"  # the player on turn discards down to the hand limit
    ESPIONAGE = "espionage"  # response window of the player not on turn
    ROLL = "roll"  # Hyper Jump or "roll"
    DICE = "dice"  # chance: the roll
    ROLL_CARDS = "roll-cards"  # Battle Computers, Ion Thrusters, Warp Overdrive, Maximum Burn
    REROLL = "reroll"  # chance: Battle Computers' die
    BUILD = "build"
    JAM = "jam"  # response window of the player not on turn
    MOVE = "move"
    ATTACK = "attack"  # the attacker's cards in the current fight
    DEFEND = "defend"  # response window: the defender's cards
    FIGHT_DIE = "fight-die"  # chance: +1D6 of Surprise Attack or Ambush
    KEEP = "keep"  # the fight's winner chooses the units to keep
    OVER = "over"

    # Members are singletons: hash them by identity in C (``Enum.__hash__`` is a Python call, and
    # the phase sets below are asked on every action).
    __hash__ = object.__hash__


class SpaceWin(EndReason):
    """The ways a game of space is won."""

    ALL_PLANETS = "all-planets"
    NO_UNITS = "no-units"


SECRET_PHASES = frozenset(
    {
        Phase.DISCARD,
        Phase.ESPIONAGE,
        Phase.ROLL,
        Phase.ROLL_CARDS,
        Phase.BUILD,
        Phase.JAM,
        Phase.MOVE,
        Phase.ATTACK,
        Phase.DEFEND,
    }
)
"""Phases whose decision depends on the deciding seat's hand (``secret_decision``)."""

WINDOW_PHASES = frozenset({Phase.ESPIONAGE, Phase.JAM, Phase.DEFEND})
"""Response windows: decisions of the player not on turn that ``pass`` declines (``window_pass``)."""

CHANCE_PHASES = frozenset({Phase.SHUFFLE, Phase.DICE, Phase.REROLL, Phase.FIGHT_DIE})

OWN_TURN_PHASES = frozenset(
    {Phase.DISCARD, Phase.ROLL, Phase.ROLL_CARDS, Phase.BUILD, Phase.MOVE, Phase.ATTACK}
)
"""Phases of the player on turn in which Major Offensive may be played."""


def hand_limit(positions: Sequence[int], seat: int) -> int:
    """6, +1 per controlled Nimrod / Cygnus-7, -2 without control of the own homeworld."""
    first = seat * UNITS_PER_SIDE
    other = (1 - seat) * UNITS_PER_SIDE
    own = set(positions[first : first + UNITS_PER_SIDE])
    enemy = set(positions[other : other + UNITS_PER_SIDE])
    limit = BASE_HAND_LIMIT
    home = HOMEWORLD[seat]
    if home not in own or home in enemy:
        limit -= 2
    for planet in _BONUS_PLANETS:
        if planet in own and planet not in enemy:
            limit += 1
    return limit


_BONUS_PLANETS = tuple(p for p in PLANETS if p not in HOMEWORLD)
"""Nimrod and Cygnus-7: +1 card each to the hand limit of the side that controls it."""


class LastEvent(NamedTuple):
    """What the last action did, in words: ``text`` for everyone, ``own`` per seat where that seat
    reads more ("You drew Hyper Jump and Espionage"; "" where it reads ``text``). A named tuple:
    made several times in every action, so made cheaply."""

    seat: int | None
    text: str
    own: tuple[str, str] = ("", "")

    def for_viewer(self, viewer: int | None) -> str:
        if viewer is not None and self.own[viewer]:
            return self.own[viewer]
        return self.text

    def to_json(self) -> JSONDict:
        return {"seat": self.seat, "text": self.text, "own": list(self.own)}


class MoveRecord(NamedTuple):
    """One unit's move in the turn: ``number`` is the move's place in the turn (1, 2, ...; the
    units of one Strategic Move share it), ``how`` is ``"die"`` for a plain move or the key of the
    card that moved it (``strategic-move``, ``space-combat-tactics`` backwards,
    ``defend-the-homeworld`` straight home), ``die`` the value used (0 for Defend the Homeworld).
    A named tuple: made on every move, so made cheaply."""

    number: int
    unit: int
    source: int
    target: int
    die: int
    how: str = "die"

    def to_json(self) -> list[Any]:
        return list(self)


class FightRecord(NamedTuple):
    """A fight's result: where, the attacker (the player on turn), both totals (units and cards),
    the winner, the units destroyed (the loser's all, then the winner's beyond those kept) and the
    units the winner kept (empty until it has chosen: ``settled``)."""

    turn: int
    sector: int
    attacker: int
    attack: int
    defense: int
    winner: int
    destroyed: tuple[int, ...]
    kept: tuple[int, ...] = ()
    settled: bool = False

    def destroyed_of(self, seat: int) -> tuple[int, ...]:
        return tuple(u for u in self.destroyed if owner(u) == seat)

    def to_json(self) -> JSONDict:
        return {
            "turn": self.turn,
            "sector": self.sector,
            "attacker": self.attacker,
            "attack": self.attack,
            "defense": self.defense,
            "winner": self.winner,
            "destroyed": list(self.destroyed),
            "kept": list(self.kept),
            "settled": self.settled,
        }


@dataclass(slots=True, unsafe_hash=True)
class Table:
    """Every field of a space position, declared once. Mutable: the working copy while one action
    is applied. ``SpaceState`` is the same fields frozen (see the module docstring).

    ``positions``: the sector (1..28) of each unit id, 0 for the scrap heap. ``deck``: card ids in
    draw order (secret). ``hands``: each seat's card ids, sorted (secret). ``vortex``: the discard
    pile in the order played. ``dice``/``bonus``: the roll (2 or 3 dice) and the cards' additions;
    ``dice_left``: indices of dice not used yet. ``moved``: (unit, dice used, stopped on an enemy)
    for the units moved this turn. ``spy``: (spying seat, the hand it saw) after Espionage.
    ``turn_moves``: the moves since the last roll, in order (the whole turn until the next player
    rolls). ``last_fight``: the latest fight's record, until the next roll.
    """

    positions: tuple[int, ...]
    deck: tuple[int, ...]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    vortex: tuple[int, ...]
    phase: Phase
    turn_seat: int
    turn_number: int = 0
    to_draw: tuple[int, int] = (0, 0)
    dice: tuple[int, ...] = ()
    bonus: tuple[int, ...] = ()
    dice_left: tuple[int, ...] = ()
    hyper: bool = False
    builds: int = 0
    reroll: int = -1
    moved: tuple[tuple[int, int, bool], ...] = ()
    jammed: tuple[int, ...] = ()
    fight_sector: int = 0
    attack_bonus: int = 0
    defense_bonus: int = 0
    die_for: int = -1
    keep_seat: int = -1
    keep_difference: int = 0
    extra_turns: int = 0
    spy: tuple[int, tuple[int, ...]] | None = None
    turn_moves: tuple[MoveRecord, ...] = ()
    last_fight: FightRecord | None = None
    last: LastEvent | None = None
    result: Outcome | None = None
    listed: tuple[Action, ...] | None = field(default=None, init=False, compare=False, repr=False)
    """The legal actions once listed (a cache of the frozen state, not part of the position)."""

    # -- reading the position (the working copy reads itself too) -------------------------------------

    def hand_kinds(self, seat: int) -> list[int]:
        return [c // C.COPIES for c in self.hands[seat]]

    def holds(self, seat: int, kind: int) -> bool:
        return any(c // C.COPIES == kind for c in self.hands[seat])

    def die_value(self, index: int) -> int:
        return self.dice[index] + self.bonus[index]

    def doubles(self) -> bool:
        return len(self.dice) >= 2 and self.dice[0] == self.dice[1]

    def units_at(self, sector: int, seat: int | None = None) -> list[int]:
        if seat is None:
            return [u for u, where in enumerate(self.positions) if where == sector]
        return self._own_units_at(sector, seat)

    def scrapped(self, seat: int) -> list[int]:
        return self._own_units_at(SCRAP, seat)

    def has_scrapped(self, seat: int) -> bool:
        """Whether a unit of ``seat`` is in the scrap heap."""
        first = seat * UNITS_PER_SIDE
        return SCRAP in self.positions[first : first + UNITS_PER_SIDE]

    def _own_units_at(self, where: int, seat: int) -> list[int]:
        """The units of ``seat`` at ``where`` (a sector, or the scrap heap), in increasing number."""
        first = seat * UNITS_PER_SIDE
        own = self.positions[first : first + UNITS_PER_SIDE]
        if where not in own:
            return []
        return [u for u, at in enumerate(own, first) if at == where]

    def controls_homeworld(self, seat: int) -> bool:
        home = HOMEWORLD[seat]
        first = seat * UNITS_PER_SIDE
        other = (1 - seat) * UNITS_PER_SIDE
        positions = self.positions
        return (
            home in positions[first : first + UNITS_PER_SIDE]
            and home not in positions[other : other + UNITS_PER_SIDE]
        )

    def on_board(self, seat: int) -> bool:
        """Whether ``seat`` has a unit on the board."""
        first = seat * UNITS_PER_SIDE
        return self.positions[first : first + UNITS_PER_SIDE].count(SCRAP) < UNITS_PER_SIDE

    def used_dice(self) -> dict[int, tuple[int, bool]]:
        """(dice taken, stopped on an enemy sector) of each unit moved this turn, for ``movable``."""
        return {u: (n, stopped) for u, n, stopped in self.moved}

    def movable(self, unit: int, used: dict[int, tuple[int, bool]] | None = None) -> bool:
        """Whether ``unit`` of the player on turn may still take a die this turn."""
        if owner(unit) != self.turn_seat or self.positions[unit] == SCRAP or unit in self.jammed:
            return False
        n, stopped = (self.used_dice() if used is None else used).get(unit, (0, False))
        return n < 2 and not stopped

    def free_units(self) -> list[int]:
        """The units of the player on turn that may still take a die: on the board, not jammed,
        not stopped on an enemy sector, fewer than two dice taken."""
        first = self.turn_seat * UNITS_PER_SIDE
        own = self.positions[first : first + UNITS_PER_SIDE]
        if not self.moved and not self.jammed:
            if SCRAP not in own:
                return list(range(first, first + UNITS_PER_SIDE))
            return [u for u, where in enumerate(own, first) if where != SCRAP]
        blocked = set(self.jammed)
        blocked.update(u for u, n, stopped in self.moved if n >= 2 or stopped)
        return [u for u, where in enumerate(own, first) if where != SCRAP and u not in blocked]

    def movers(self) -> list[tuple[int, tuple[int, int]]]:
        """(unit, (sector, dice used)) of each unit of the player on turn free to take a die."""
        used = {u: n for u, n, _ in self.moved}
        positions = self.positions
        return [(u, (positions[u], used.get(u, 0))) for u in self.free_units()]

    def enemy_sectors(self) -> frozenset[int]:
        """The sectors where the player not on turn has a unit."""
        first = (1 - self.turn_seat) * UNITS_PER_SIDE
        return frozenset(self.positions[first : first + UNITS_PER_SIDE]) - {SCRAP}

    def dice_values_left(self) -> tuple[int, ...]:
        left = self.dice_left
        if not left:
            return ()
        dice, bonus = self.dice, self.bonus
        if not any(bonus):
            return tuple(sorted([dice[i] for i in left]))
        return tuple(sorted([dice[i] + bonus[i] for i in left]))

    def dice_usable(self) -> int:
        """How many of the dice left can still be used by plain moves (the must-use rule)."""
        movers = tuple(sorted(m for _, m in self.movers()))
        return max_dice(movers, self.dice_values_left(), self.enemy_sectors(), DIRECTION[self.turn_seat])


_FIELDS = tuple(f.name for f in fields(Table) if f.init)
field_values = attrgetter(*_FIELDS)
"""``field_values(state)``: the values of a position's fields in declaration order (``Table(*...)``
makes the position again; ``SpaceState`` is pickled this way)."""


def _copier() -> Callable[[Table], Table]:
    """``copy(state) -> Table``: the working copy of a state, written out field by field from
    ``_FIELDS`` (plain attribute reads run about twice as fast as ``field_values``, and assigning the
    slots of a new object a third faster than passing them to ``__init__``; an action makes one).
    The copy has no words of its own yet (``last``) and lists no actions yet (``listed``).

    Kept because it pays (issue 22, measured with ``bench/selfplay.py``'s driver, 1,500 seeded space
    games, load below 0.3): 108 games per CPU second with this copier against 95 with the plain loop
    ``for name in _FIELDS: setattr(copy, name, getattr(state, name))``. Freezing the working copy by
    switching its class (``SpaceState.apply``) saves a second copy of the same size."""
    body = "".join(f"    t.{name} = s.{name}\n" for name in _FIELDS if name != "last")
    source = f"def copy(s):\n    t = _new(Table)\n{body}    t.last = t.listed = None\n    return t\n"
    namespace: dict[str, Any] = {"Table": Table, "_new": object.__new__}
    exec(source, namespace)  # built from the dataclass's own field names, nothing else
    return cast(Callable[[Table], Table], namespace["copy"])


working_copy = _copier()
"""``working_copy(state) -> Table``: the mutable copy an action changes (see ``_copier``)."""
