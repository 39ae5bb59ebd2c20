"""The state of a ``space`` game and its phases (rules: shared/seeds/002, RULINGS "space").

A turn: draw two (shuffling the vortex into a new deck when the deck runs out: a ``SHUFFLE`` chance
step), discard down to the hand limit, roll (2 dice, 3 with Hyper Jump; a ``DICE`` chance step), the
roll cards, build, move, and a fight in every contested sector in increasing number.

Response windows. Cards marked "play on opponent's turn" are played by the player not on turn in a
window the engine opens for them: Espionage after the opponent's draws and discards, Jam
Transmission just before the opponent's move phase, defense cards in every fight. A window is opened
whenever the rules allow such a card, *whether or not that player holds one*, so that its opening
tells nothing about the hand; the player answers ``play ...`` or ``pass`` (the Discord layer passes
for them after a time limit). The same holds for the player's own phases: a phase in which a card
could be played waits for the player's ``pass`` even with no such card in hand.

Hidden information: the hands and the deck order live in the state (its JSON is complete) but a
seat reads the game only through ``view(seat)``, a ``SpaceView`` with that seat's own hand, the size
of the opponent's hand and never the order of the deck. The words of the last action are per viewer
(``LastEvent.for_viewer``): "You drew Hyper Jump and Espionage" for the drawer, "Evil Empire drew 2
cards" for everyone else.

One declaration of the fields. ``_Table`` declares every field of a position once, as a mutable
slotted dataclass: it is the working copy while one action is applied. ``SpaceState`` is the same
class frozen: a subclass with the same slots that refuses assignment. Applying an action copies the
state into a ``_Table`` (one copy), lets the turn's flow change it, and hands it back as a
``SpaceState`` by switching its class (same memory layout), so no field is listed twice and nothing
is copied twice.

Speed (``bench/selfplay.py``): the legal actions are listed once per state and kept with it
(``SpaceState.listed``), each made once for the whole game (``_MOVE_ROWS``, ``_BY_DIE``, ...), so
``apply`` recognises the very object of the list (a driver's pick) and checks anything else in full
against the list; the must-use rule is decided without a search while the units free to move are at
least as many as the dice; the working copy is made by one generated function (``_copy``) from the
field names; what an action does and what a phase lists are found in tables, not chains of tests.
The lists that never change (a window with nothing to play, ``roll``) are shared tuples, the kinds
of card in a hand are worked out once per hand (``_kinds_held``), and each action kind's step takes
its own kind of action directly (``_STEPS``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import FrozenInstanceError, dataclass, field, fields
from enum import Enum
from itertools import combinations_with_replacement, product
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, cast

from engine.errors import GameOverError, IllegalActionError, NotYourTurnError
from engine.memo import MB, bytes_lru, deep_size
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    EndReason,
    GameState,
    GameView,
    JSONDict,
    Outcome,
)
from engine.space import cards as C
from engine.space.actions import Build, Dice, Discard, Keep, Move, Pass, Play, RollDice, Shuffle
from engine.space.board import (
    DIRECTION,
    HOMEWORLD,
    PLANETS,
    SCRAP,
    SECTORS,
    SIDES,
    UNITS_PER_SIDE,
    contested,
    initial_positions,
    owner,
    sector_name,
    step,
    unit_label,
    unit_name,
    units_of,
)
from engine.space.cards import CARDS, Target, Timing, card_of
from engine.space.fights import force_total, keep_choices, may_keep, winner_is_attacker

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

_ATTACK_KINDS = frozenset(c.kind for c in CARDS if c.timing is Timing.ATTACK)
_DEFENSE_KINDS = frozenset(c.kind for c in CARDS if c.timing is Timing.DEFENSE)
_DIE_BONUS_KINDS = (C.ION_THRUSTERS.kind, C.WARP_OVERDRIVE.kind, C.MAXIMUM_BURN.kind)
_ROLL_CARD_KINDS = frozenset({C.BATTLE_COMPUTERS.kind, *_DIE_BONUS_KINDS})
"""The cards of the roll-card step (after the roll)."""


def planet_controllers(positions: Sequence[int]) -> dict[int, int | None]:
    """The seat that controls each planet (``board.controller``), from the sets of sectors each side holds."""
    empire, terrans = set(positions[:UNITS_PER_SIDE]), set(positions[UNITS_PER_SIDE:])
    return {
        p: (0 if p not in terrans else None) if p in empire else (1 if p in terrans else None)
        for p in PLANETS
    }


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


@bytes_lru(2 * MB, deep_size)
def max_dice(
    movers: tuple[tuple[int, int], ...], dice: tuple[int, ...], enemy: frozenset[int], direction: int
) -> int:
    """How many of ``dice`` can be used by plain moves of ``movers`` ((sector, dice used) of each unit
    free to move, sorted): a unit takes at most two dice and stops when a step ends on an enemy
    sector. Any unit can move by any die, so as many units as dice use them all; otherwise (two or
    three dice, fewer units) the few ways are tried."""
    if len(movers) >= len(dice):
        return len(dice)
    if not movers:
        return 0
    best = 0
    for d in sorted(set(dice)):
        rest = list(dice)
        rest.remove(d)
        for mover in sorted(set(movers)):
            got = 1 + max_dice(_after_step(movers, mover, d, enemy, direction), tuple(rest), enemy, direction)
            if got > best:
                best = got
                if best == len(dice):
                    return best
    return best


def _after_step(
    movers: tuple[tuple[int, int], ...],
    mover: tuple[int, int],
    value: int,
    enemy: frozenset[int],
    direction: int,
) -> tuple[tuple[int, int], ...]:
    """``movers`` after ``mover`` took the die ``value``: it may take a second die unless it stopped
    on an enemy sector or has now taken two."""
    others = list(movers)
    others.remove(mover)
    sector, used = mover
    target = step(sector, direction * value)
    if used == 0 and target not in enemy:
        others.append((target, 1))
    return tuple(sorted(others))


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
class _Table:
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

    def _used(self) -> dict[int, tuple[int, bool]]:
        return {u: (n, stopped) for u, n, stopped in self.moved}

    def movable(self, unit: int, used: dict[int, tuple[int, bool]] | None = None) -> bool:
        """Whether ``unit`` of the player on turn may still take a die this turn."""
        if owner(unit) != self.turn_seat or self.positions[unit] == SCRAP or unit in self.jammed:
            return False
        n, stopped = (self._used() if used is None else used).get(unit, (0, False))
        return n < 2 and not stopped

    def _free_units(self) -> list[int]:
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

    def _movers(self) -> list[tuple[int, tuple[int, int]]]:
        """(unit, (sector, dice used)) of each unit of the player on turn free to take a die."""
        used = {u: n for u, n, _ in self.moved}
        positions = self.positions
        return [(u, (positions[u], used.get(u, 0))) for u in self._free_units()]

    def _enemy_sectors(self) -> frozenset[int]:
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
        movers = tuple(sorted(m for _, m in self._movers()))
        return max_dice(movers, self.dice_values_left(), self._enemy_sectors(), DIRECTION[self.turn_seat])


_FIELDS = tuple(f.name for f in fields(_Table) if f.init)
_values = attrgetter(*_FIELDS)


def _copier() -> Callable[[_Table], _Table]:
    """``copy(state) -> _Table``: the working copy of a state, written out field by field from
    ``_FIELDS`` (plain attribute reads run about twice as fast as ``_values``, and assigning the
    slots of a new object a third faster than passing them to ``__init__``; an action makes one).
    The copy has no words of its own yet (``last``) and lists no actions yet (``listed``)."""
    body = "".join(f"    t.{name} = s.{name}\n" for name in _FIELDS if name != "last")
    source = f"def copy(s):\n    t = _new(_Table)\n{body}    t.last = t.listed = None\n    return t\n"
    namespace: dict[str, Any] = {"_Table": _Table, "_new": object.__new__}
    exec(source, namespace)  # built from the dataclass's own field names, nothing else
    return cast(Callable[[_Table], _Table], namespace["copy"])


_copy = _copier()


class SpaceState(_Table, GameState):
    """A position of space, immutable: the fields of ``_Table`` (documented there), frozen. Seat 0
    is the Evil Empire (moves first), seat 1 the Terrans."""

    __slots__ = ()

    variant_key: ClassVar[str] = "space"

    if not TYPE_CHECKING:

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # The dataclass's own initialiser assigns the fields: run it on the mutable class.
            object.__setattr__(self, "__class__", _Table)
            _Table.__init__(self, *args, **kwargs)
            object.__setattr__(self, "__class__", SpaceState)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: a SpaceState is immutable")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: a SpaceState is immutable")

    def __reduce__(self) -> tuple[type[SpaceState], tuple[Any, ...]]:
        return (SpaceState, _values(self))

    # -- protocol ---------------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        return self.turn_seat if self.turn_number > 0 else None

    def to_move(self) -> int:
        phase = self.phase
        if phase in CHANCE_PHASES:
            return CHANCE
        if phase in WINDOW_PHASES:
            return 1 - self.turn_seat
        if phase is Phase.KEEP:
            return self.keep_seat
        return self.turn_seat

    def chance(self) -> ChanceSpec | None:
        phase = self.phase
        if phase not in CHANCE_PHASES:
            return None
        if phase is Phase.SHUFFLE:
            return ChanceSpec(ChanceKind.SHUFFLE, count=len(self.vortex), label="Shuffle")
        if phase is Phase.DICE:
            return _ROLL_SPECS[self.hyper]
        if phase is Phase.REROLL:
            return _REROLL_SPEC
        return _FIGHT_DIE_SPECS[self.die_for == self.turn_seat]

    def chance_action(self, outcome: Sequence[int]) -> Action:
        spec = self.chance()
        if spec is None:
            raise IllegalActionError("nothing is to be rolled or shuffled now")
        values = spec.check(outcome)
        if spec.kind is ChanceKind.SHUFFLE:
            return Shuffle(values)
        return _DICE.get(values) or Dice(values)

    def secret_decision(self) -> bool:
        return self.result is None and self.phase in SECRET_PHASES

    def window_pass(self) -> Action | None:
        if self.result is None and self.phase in WINDOW_PHASES:
            return Pass()
        return None

    def outcome(self) -> Outcome | None:
        return self.result

    def view(self, viewer: int | None) -> SpaceView:
        return SpaceView.of(self, viewer)

    # -- legal actions --------------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """Every action of the deciding seat; listed once per state and kept with it."""
        listed = self.listed
        if listed is not None:
            return listed
        phase = self.phase
        lister = _LISTERS.get(phase)
        if lister is None or self.result is not None:  # a chance step, or the end
            listed = ()
        else:
            turn_seat = self.turn_seat
            seat = (
                1 - turn_seat
                if phase in WINDOW_PHASES
                else self.keep_seat
                if phase is Phase.KEEP
                else turn_seat
            )
            kinds = _kinds_held(self.hands[seat])
            listed = lister(self, seat, kinds)
            if _MAJOR_OFFENSIVE in kinds and phase in OWN_TURN_PHASES and seat == turn_seat:
                listed += self._major_offensives(seat)
        object.__setattr__(self, "listed", listed)
        return listed

    def _defend_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        return _window_plays(kinds & _DEFENSE_KINDS)

    def _attack_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        return _window_plays(kinds & _ATTACK_KINDS)

    def _discard_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        return tuple([_DISCARDS[k] for k in sorted(kinds)])

    def _espionage_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        return _PASS_OR_ESPIONAGE if _ESPIONAGE in kinds else _ONLY_PASS

    def _roll_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        if not self.hyper and _HYPER_JUMP in kinds:
            return _ROLL_OR_HYPER_JUMP
        return _ONLY_ROLL

    def _roll_card_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        if not kinds & _ROLL_CARD_KINDS:
            return _ONLY_PASS
        acts: list[Action] = [_PASS]
        shown = [d + b for d, b in zip(self.dice, self.bonus, strict=True)]
        values = sorted(set(shown))
        if _BATTLE_COMPUTERS in kinds:
            normal = sorted(set(shown[:2]))  # not the Hyper Jump die
            by_die = _BY_DIE[_BATTLE_COMPUTERS]
            acts += [by_die[v] for v in normal]
        for kind in _DIE_BONUS_KINDS:
            if kind in kinds:
                by_die = _BY_DIE[kind]
                acts += [by_die[v] for v in values]
        return tuple(acts)

    def _build_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        acts: list[Action] = [_PASS]
        if self.builds > 0:
            acts += [_BUILDS[u] for u in self.scrapped(seat)]
        if _REINFORCEMENTS in kinds:
            by_unit = _BY_UNIT[_REINFORCEMENTS]
            acts += [by_unit[u] for u in self.scrapped(seat)]
        return tuple(acts)

    def _jam_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        if _JAM_TRANSMISSION not in kinds:
            return _ONLY_PASS
        by_unit = _BY_UNIT[_JAM_TRANSMISSION]
        jammed = self.jammed
        positions = self.positions
        return (
            _PASS,
            *(by_unit[u] for u in units_of(self.turn_seat) if positions[u] != SCRAP and u not in jammed),
        )

    def _keep_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        return _keeps(tuple(self.units_at(self.fight_sector, self.keep_seat)), self.keep_difference)

    def _major_offensives(self, seat: int) -> tuple[Play, ...]:
        return _major_offensives(tuple(self.hand_kinds(seat)))

    def _move_actions(self, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
        dice = self.dice_values_left()
        if not dice:
            acts: list[Action] = [_PASS]
            free: list[int] = []
            values: list[int] = []
        else:
            values = sorted(set(dice))
            free = self._free_units()
            if len(free) >= len(dice):
                # A unit for every die: any unit may take any die (the must-use rule keeps nothing out).
                rows = _MOVE_ROWS
                acts = [rows[u][v] for u in free for v in values]
            else:
                acts = self._must_use_moves(seat, dice, values)
        if kinds & _MOVE_CARD_KINDS:
            acts += self._move_card_plays(seat, kinds, free, values)
        return tuple(acts)

    def _must_use_moves(self, seat: int, dice: tuple[int, ...], values: list[int]) -> list[Action]:
        """The plain moves when fewer units than dice are free to move: those that keep the dice in
        use as fully as possible (the must-use rule), and ``pass`` if no die can be used."""
        acts: list[Action] = []
        entries = self._movers()
        movers = tuple(sorted(m for _, m in entries))
        usable = max_dice(movers, dice, self._enemy_sectors(), DIRECTION[seat])
        if usable == 0:
            acts.append(_PASS)
        allowed: dict[tuple[tuple[int, int], int], bool] = {}
        for u, mover in entries:
            for v in values:
                key = (mover, v)
                ok = allowed.get(key)
                if ok is None:
                    ok = allowed[key] = self._keeps_dice_in_use(movers, mover, v, dice, usable)
                if ok:
                    acts.append(_move(u, v))
        return acts

    def _move_card_plays(
        self, seat: int, kinds: frozenset[int], free: list[int], values: list[int]
    ) -> list[Action]:
        """The plays of the move-phase cards held (``free``: the units free to move, ``values``:
        the distinct dice left)."""
        acts: list[Action] = []
        if _STRATEGIC_MOVE in kinds:
            sectors = sorted({self.positions[u] for u in free})
            acts += [_STRATEGIC_ROWS[s][v] for s in sectors for v in values]
        if _SPACE_COMBAT_TACTICS in kinds:
            acts += [_SCT_ROWS[u][v] for u in free for v in values]
        if _DEFEND_THE_HOMEWORLD in kinds:
            home = HOMEWORLD[seat]
            by_unit = _BY_UNIT[_DEFEND_THE_HOMEWORLD]
            acts += [
                by_unit[u]
                for u in units_of(seat)
                if self.positions[u] not in (SCRAP, home) and u not in self.jammed
            ]
        if _HOLD_POSITION in kinds:
            by_die = _BY_DIE[_HOLD_POSITION]
            acts += [by_die[v] for v in values]
        return acts

    def _keeps_dice_in_use(
        self,
        movers: tuple[tuple[int, int], ...],
        mover: tuple[int, int],
        value: int,
        dice: tuple[int, ...],
        usable: int,
    ) -> bool:
        """Whether moving one unit ``mover`` by ``value`` still lets the dice be used as fully as
        ``usable`` says (the must-use rule, RULINGS 11)."""
        if len(movers) - 1 >= len(dice) - 1:
            # Every other die still has a unit of its own: nothing is lost.
            return usable == len(dice)
        enemy = self._enemy_sectors()
        direction = DIRECTION[self.turn_seat]
        rest = list(dice)
        rest.remove(value)
        after = _after_step(movers, mover, value, enemy, direction)
        return 1 + max_dice(after, tuple(rest), enemy, direction) == usable

    # -- applying ----------------------------------------------------------------------------------

    def apply(self, action: Action) -> SpaceState:
        # The very object of the list already made (a driver's pick) is legal; anything else is
        # checked in full (an action read from its notation, a chance outcome, a stale action).
        for candidate in self.listed or ():
            if candidate is action:
                break
        else:
            self._check(action)
        step = _STEPS.get(type(action))
        if step is None:
            raise IllegalActionError(f"{action} is not an action of space")
        table = _copy(self)
        step(table, action)
        # Freeze the working copy: the same slots, now the immutable class.
        object.__setattr__(table, "__class__", SpaceState)
        return table  # type: ignore[return-value]

    def _check(self, action: Action) -> None:
        """Raise a ``GameError`` if ``action`` may not be played now."""
        if self.result is not None:
            raise GameOverError("the game is over: no more actions can be played")
        if self.phase in CHANCE_PHASES:
            if type(action) is not Shuffle and type(action) is not Dice:
                raise NotYourTurnError(f"the next step is chance: {self.phase_text}")
            if not self._fits_chance(action):
                values = action.order if isinstance(action, Shuffle) else action.values
                if self.chance_action(values) != action:
                    raise IllegalActionError(f"{action.notation} does not fit this chance step")
        elif type(action) is Keep and self.phase is Phase.KEEP:
            # Any equivalent choice is accepted, not only the one listed per kind of unit.
            units = self.units_at(self.fight_sector, self.keep_seat)
            if not may_keep(units, action.units, self.keep_difference):
                raise IllegalActionError(
                    f"keep one unit, or units of total force {self.keep_difference} or less, "
                    f"from your units in sector {self.fight_sector}"
                )
        elif action not in self.legal_actions():
            raise IllegalActionError(self._why_illegal(action))

    def _fits_chance(self, action: Action) -> bool:
        """The dice of a roll checked directly (the common chance step); anything else is left to
        ``chance_action``'s full check."""
        if type(action) is not Dice or self.phase is Phase.SHUFFLE:
            return False
        values = action.values
        count = (3 if self.hyper else 2) if self.phase is Phase.DICE else 1
        return len(values) == count and all(1 <= v <= 6 for v in values)

    def _why_illegal(self, action: Action) -> str:
        if isinstance(action, Shuffle | Dice):
            return "no dice are rolled and no deck is shuffled now"
        who = SIDES[self.to_move()]
        if isinstance(action, Play):
            card = action.card
            if not self.holds(self.to_move(), card.kind):
                return f"{who} holds no {card.name} card"
            return f"{card.name} cannot be played like that now ({card.timing.value}); {self.phase_text}"
        if isinstance(action, Move) and self.phase is Phase.MOVE:
            if not self.movable(action.unit):
                return f"{unit_label(action.unit)} cannot move now"
            if action.die not in self.dice_values_left():
                return f"there is no die {action.die} left to play"
            return "that move would leave a die unused although both can be played (use the dice)"
        if isinstance(action, Pass) and self.phase is Phase.MOVE:
            return "the dice must be used while a unit can move with them"
        return f"{action.notation!r} is not allowed now: {self.phase_text}"

    # -- JSON ----------------------------------------------------------------------------------------

    def to_json(self) -> JSONDict:
        return {
            "schema": SCHEMA,
            "game": self.variant_key,
            "positions": list(self.positions),
            "deck": list(self.deck),
            "hands": [list(h) for h in self.hands],
            "vortex": list(self.vortex),
            "phase": self.phase.value,
            "turn": self.turn_seat,
            "turn_number": self.turn_number,
            "to_draw": list(self.to_draw),
            "dice": list(self.dice),
            "bonus": list(self.bonus),
            "dice_left": list(self.dice_left),
            "hyper": self.hyper,
            "builds": self.builds,
            "reroll": self.reroll,
            "moved": [[u, n, s] for u, n, s in self.moved],
            "jammed": list(self.jammed),
            "fight_sector": self.fight_sector,
            "attack_bonus": self.attack_bonus,
            "defense_bonus": self.defense_bonus,
            "die_for": self.die_for,
            "keep_seat": self.keep_seat,
            "keep_difference": self.keep_difference,
            "extra_turns": self.extra_turns,
            "spy": [self.spy[0], list(self.spy[1])] if self.spy is not None else None,
            "turn_moves": [m.to_json() for m in self.turn_moves],
            "last_fight": self.last_fight.to_json() if self.last_fight is not None else None,
            "last": self.last.to_json() if self.last is not None else None,
            "outcome": self.result.to_json() if self.result is not None else None,
        }

    # -- words ---------------------------------------------------------------------------------------

    def describe(self, action: Action) -> str:
        return describe(self, action)

    @property
    def last_text(self) -> str | None:
        return self.last.text if self.last is not None else None

    @property
    def phase_text(self) -> str:
        return phase_text(self)


_PASS = Pass()
_ROLL = RollDice()
_ESPIONAGE, _HYPER_JUMP, _BATTLE_COMPUTERS = C.ESPIONAGE.kind, C.HYPER_JUMP.kind, C.BATTLE_COMPUTERS.kind
_REINFORCEMENTS, _JAM_TRANSMISSION, _MAJOR_OFFENSIVE = (
    C.REINFORCEMENTS.kind,
    C.JAM_TRANSMISSION.kind,
    C.MAJOR_OFFENSIVE.kind,
)
_STRATEGIC_MOVE, _SPACE_COMBAT_TACTICS, _DEFEND_THE_HOMEWORLD, _HOLD_POSITION = (
    C.STRATEGIC_MOVE.kind,
    C.SPACE_COMBAT_TACTICS.kind,
    C.DEFEND_THE_HOMEWORLD.kind,
    C.HOLD_POSITION.kind,
)
_MOVE_CARD_KINDS = frozenset({_STRATEGIC_MOVE, _SPACE_COMBAT_TACTICS, _DEFEND_THE_HOMEWORLD, _HOLD_POSITION})
"""The cards of the move phase."""
_LISTERS: dict[Phase, Callable[[SpaceState, int, frozenset[int]], tuple[Action, ...]]] = {
    Phase.DISCARD: SpaceState._discard_actions,
    Phase.ESPIONAGE: SpaceState._espionage_actions,
    Phase.ROLL: SpaceState._roll_actions,
    Phase.ROLL_CARDS: SpaceState._roll_card_actions,
    Phase.BUILD: SpaceState._build_actions,
    Phase.JAM: SpaceState._jam_actions,
    Phase.MOVE: SpaceState._move_actions,
    Phase.ATTACK: SpaceState._attack_actions,
    Phase.DEFEND: SpaceState._defend_actions,
    Phase.KEEP: SpaceState._keep_actions,
}
"""The deciding seat's actions in each phase where a seat decides (the chance steps have none)."""
_ROLL_SPECS = {
    hyper: ChanceSpec(ChanceKind.DICE, count=3 if hyper else 2, sides=6, label="Roll")
    for hyper in (False, True)
}
_REROLL_SPEC = ChanceSpec(ChanceKind.DICE, count=1, sides=6, label="Battle Computers")
_FIGHT_DIE_SPECS = {
    attacker: ChanceSpec(ChanceKind.DICE, count=1, sides=6, label="Surprise Attack" if attacker else "Ambush")
    for attacker in (False, True)
}
_DICE = {values: Dice(values) for n in (1, 2, 3) for values in product(range(1, 7), repeat=n)}
"""Every roll's action, made once."""
_DISCARDS = tuple(Discard(k) for k in range(len(CARDS)))
_BUILDS = tuple(Build(u) for u in range(2 * UNITS_PER_SIDE))
_MOST = 6 + C.COPIES * sum(C.CARDS[k].die_bonus for k in _DIE_BONUS_KINDS)
"""No die can show more: a 6 with every die addition of the deck on it."""
_UNITS = range(2 * UNITS_PER_SIDE)
_VALUES = range(_MOST + 1)
_MOVE_ROWS = tuple(tuple(Move(u, v) for v in _VALUES) for u in _UNITS)
"""``_MOVE_ROWS[unit][value]``: the plain moves a list holds, made once (the lists share them);
likewise the card plays by what they name:"""
_BY_DIE = {c.kind: tuple(Play(c.kind, die=v) for v in _VALUES) for c in CARDS if c.target is Target.DIE}
_BY_UNIT = {
    c.kind: tuple(Play(c.kind, unit=u) for u in _UNITS)
    for c in CARDS
    if c.target in (Target.OWN_UNIT, Target.ENEMY_UNIT, Target.SCRAPPED_UNIT)
}
_SCT_ROWS = tuple(tuple(Play(C.SPACE_COMBAT_TACTICS.kind, unit=u, die=v) for v in _VALUES) for u in _UNITS)
_STRATEGIC_ROWS = tuple(
    tuple(Play(C.STRATEGIC_MOVE.kind, sector=s, die=v) for v in _VALUES) for s in range(SECTORS + 1)
)
_PLAYS: dict[tuple[int, int | None, int | None, int | None, tuple[int, ...]], Play] = {}


@bytes_lru(2 * MB, deep_size)
def _major_offensives(hand: tuple[int, ...]) -> tuple[Play, ...]:
    """Major Offensive with each pair of other cards of ``hand`` (card kinds, sorted) to discard."""
    rest = list(hand)
    rest.remove(C.MAJOR_OFFENSIVE.kind)
    have = Counter(rest)
    return tuple(
        _card_play(C.MAJOR_OFFENSIVE.kind, discards=pair)
        for pair in combinations_with_replacement(sorted(have), 2)
        if all(have[k] >= n for k, n in Counter(pair).items())
    )


@bytes_lru(2 * MB, deep_size)
def _keeps(units: tuple[int, ...], difference: int) -> tuple[Keep, ...]:
    """The listed choices of units to keep (``fights.keep_choices``), made once per fight situation."""
    return tuple(Keep(k) for k in keep_choices(units, difference))


def _move(unit: int, value: int) -> Move:
    return _MOVE_ROWS[unit][value]


def _card_play(
    kind: int,
    unit: int | None = None,
    sector: int | None = None,
    die: int | None = None,
    discards: tuple[int, ...] = (),
) -> Play:
    """The card play, made once and shared by every list that holds it."""
    key = (kind, unit, sector, die, discards)
    found = _PLAYS.get(key)
    if found is None:
        found = _PLAYS[key] = Play(kind, unit, sector, die, discards)
    return found


_PLAY_PLAIN = {c.kind: Play(c.kind) for c in CARDS if c.target is Target.NONE}
"""The actions that name nothing, made once (the lists share them)."""
_ONLY_PASS: tuple[Action, ...] = (_PASS,)
_ONLY_ROLL: tuple[Action, ...] = (_ROLL,)
_PASS_OR_ESPIONAGE: tuple[Action, ...] = (_PASS, _PLAY_PLAIN[_ESPIONAGE])
_ROLL_OR_HYPER_JUMP: tuple[Action, ...] = (_ROLL, _PLAY_PLAIN[_HYPER_JUMP])


@bytes_lru(1 * MB, deep_size)
def _kinds_held(hand: tuple[int, ...]) -> frozenset[int]:
    """The kinds of card in ``hand`` (card ids); a hand is asked about in every state of a turn."""
    return frozenset(c // C.COPIES for c in hand)


@bytes_lru(1 * MB, deep_size)
def _window_plays(kinds: frozenset[int]) -> tuple[Action, ...]:
    """``pass`` and a play of each of ``kinds`` (cards that name nothing: attack or defense cards)."""
    return (_PASS, *(_PLAY_PLAIN[k] for k in sorted(kinds)))


# ---------------------------------------------------------------------------------------------------
# The flow of a turn, on the mutable working copy


def _say(table: _Table, text: str, seat: int | None = None, private: tuple[int, str] | None = None) -> None:
    """Add ``text`` to the words of this action; ``private`` (seat, words) replaces it for that seat."""
    last = table.last
    if private is None:
        # The common case: the same words for everyone, so far and now.
        if last is None:
            table.last = LastEvent(seat, text, _NO_OWN)
            return
        if last.own is _NO_OWN:
            table.last = LastEvent(last.seat, f"{last.text} {text}", _NO_OWN)
            return
    if last is None:
        head, own, who = "", _NO_OWN, seat
    else:
        head, own, who = last.text + " ", last.own, last.seat
    mine = [own[0], own[1]]
    for s in (0, 1):
        secret = private is not None and private[0] == s
        if mine[s] or secret:
            before = mine[s] + " " if mine[s] else head
            mine[s] = before + (private[1] if private is not None and secret else text)
    table.last = LastEvent(who, head + text, _NO_OWN if mine == ["", ""] else (mine[0], mine[1]))


_NO_OWN = ("", "")
"""The same words for every viewer."""


def _card_names(cards: Sequence[int]) -> str:
    names = [card_of(c).name for c in cards]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _units_words(units: Sequence[int]) -> str:
    return ", ".join([_UNIT_NAMES[u] for u in units])


def _set_hand(table: _Table, seat: int, hand: Sequence[int]) -> None:
    hands = list(table.hands)
    hands[seat] = tuple(sorted(hand))
    table.hands = (hands[0], hands[1])


def _remove_card(table: _Table, seat: int, kind: int) -> int:
    """Take one card of ``kind`` from ``seat``'s hand to the vortex; its id."""
    hand = list(table.hands[seat])
    card = next(c for c in hand if c // C.COPIES == kind)
    hand.remove(card)
    _set_hand(table, seat, hand)
    table.vortex = (*table.vortex, card)
    return card


def _take_die(table: _Table, value: int) -> None:
    """Use the first die left that shows ``value`` (with its additions)."""
    dice, bonus, left = table.dice, table.bonus, table.dice_left
    for k, i in enumerate(left):
        if dice[i] + bonus[i] == value:
            table.dice_left = left[:k] + left[k + 1 :]
            return
    raise AssertionError("no such die")


def _step_units(table: _Table, units: Sequence[int], value: int, forwards: bool, how: str = "die") -> None:
    """Move ``units`` (of the player on turn) ``value`` sectors, forwards or back, as one move of the
    turn: each takes one more die of its two and stops if it ends on an enemy sector."""
    seat = table.turn_seat
    direction = DIRECTION[seat] if forwards else -DIRECTION[seat]
    positions = list(table.positions)
    first = (1 - seat) * UNITS_PER_SIDE
    enemy = positions[first : first + UNITS_PER_SIDE]
    moved = {u: (n, s) for u, n, s in table.moved} if table.moved else {}
    number = table.turn_moves[-1].number + 1 if table.turn_moves else 1
    records = []
    for u in units:
        source = positions[u]
        target = (source - 1 + direction * value) % SECTORS + 1
        positions[u] = target
        moved[u] = (moved[u][0] + 1 if u in moved else 1, target in enemy)
        records.append(MoveRecord(number, u, source, target, value, how))
    table.positions = tuple(positions)
    table.moved = tuple(sorted((u, n, s) for u, (n, s) in moved.items()))
    table.turn_moves = (*table.turn_moves, *records)


def _step_one(table: _Table, unit: int, value: int, direction: int, how: str) -> tuple[int, int]:
    """``_step_units`` for one unit (the plain move, made hundreds of times a game): (from, to)."""
    positions = table.positions
    source = positions[unit]
    target = (source - 1 + direction * value) % SECTORS + 1
    table.positions = (*positions[:unit], target, *positions[unit + 1 :])
    first = (1 - table.turn_seat) * UNITS_PER_SIDE
    stopped = target in positions[first : first + UNITS_PER_SIDE]
    used = 1
    others = []
    for entry in table.moved:
        if entry[0] == unit:
            used = entry[1] + 1
        else:
            others.append(entry)
    others.append((unit, used, stopped))
    table.moved = tuple(sorted(others))
    number = table.turn_moves[-1].number + 1 if table.turn_moves else 1
    table.turn_moves = (*table.turn_moves, MoveRecord(number, unit, source, target, value, how))
    return source, target


_UNIT_NAMES = tuple(unit_name(u) for u in range(2 * UNITS_PER_SIDE))
_SECTOR_NAMES = tuple(sector_name(s) for s in range(SECTORS + 1))


def _next_move_number(table: _Table) -> int:
    return table.turn_moves[-1].number + 1 if table.turn_moves else 1


def _continue_drawing(table: _Table) -> None:
    """Draw what is still to be drawn (the initial hands, or the turn's two cards), stopping at a
    shuffle when the deck runs out; then go on to the discards."""
    for seat in (0, 1):
        wanted = table.to_draw[seat]
        if not wanted:
            continue
        drawn = table.deck[:wanted]
        if drawn:
            table.deck = table.deck[len(drawn) :]
            _set_hand(table, seat, (*table.hands[seat], *drawn))
            _say_drawn(table, seat, drawn)
        left = wanted - len(drawn)
        table.to_draw = (left, table.to_draw[1]) if seat == 0 else (table.to_draw[0], left)
        if left:
            if table.vortex:
                table.phase = Phase.SHUFFLE
                return
            _say(table, f"{SIDES[seat]} could not draw: the deck and the vortex are empty.")
            table.to_draw = (0, table.to_draw[1]) if seat == 0 else (table.to_draw[0], 0)
    if table.turn_number == 0:
        _start_turn(table, 0)
        return
    _after_draw(table)


def _say_drawn(table: _Table, seat: int, drawn: Sequence[int]) -> None:
    """ "Evil Empire drew 2 cards." for everyone, "You drew Hyper Jump and Espionage." for the drawer."""
    if drawn:
        _say(
            table,
            f"{SIDES[seat]} drew {_cards(len(drawn))}.",
            private=(seat, f"You drew {_card_names(drawn)}."),
        )


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def _start_turn(table: _Table, seat: int) -> None:
    table.turn_seat = seat
    table.turn_number += 1
    table.dice = table.bonus = table.dice_left = ()
    table.hyper = False
    table.builds = 0
    table.reroll = -1
    table.moved = ()
    table.jammed = ()
    table.fight_sector = 0
    table.attack_bonus = table.defense_bonus = 0
    table.die_for = table.keep_seat = -1
    table.keep_difference = 0
    table.spy = None
    table.to_draw = (DRAWS_PER_TURN, 0) if seat == 0 else (0, DRAWS_PER_TURN)
    _say(table, f"{SIDES[seat]}'s turn {table.turn_number}.")
    _continue_drawing(table)


def _after_draw(table: _Table) -> None:
    seat = table.turn_seat
    if len(table.hands[seat]) > hand_limit(table.positions, seat):
        table.phase = Phase.DISCARD
    else:
        table.phase = Phase.ESPIONAGE


def _to_build(table: _Table) -> None:
    seat = table.turn_seat
    table.builds = 1 if table.dice[0] == table.dice[1] else 0
    if table.has_scrapped(seat) and table.controls_homeworld(seat):
        table.phase = Phase.BUILD
    else:
        _to_jam(table)


def _to_jam(table: _Table) -> None:
    if table.on_board(table.turn_seat):
        table.phase = Phase.JAM
    else:
        _to_move(table)


def _to_move(table: _Table) -> None:
    table.phase = Phase.MOVE
    table.dice_left = tuple(range(len(table.dice)))


def _next_fight(table: _Table, after: int) -> None:
    later = [s for s in contested(table.positions) if s > after]
    if not later:
        _end_turn(table)
        return
    table.fight_sector = later[0]
    table.attack_bonus = table.defense_bonus = 0
    table.keep_seat = -1
    table.keep_difference = 0
    table.phase = Phase.ATTACK
    _say(table, f"Fight in sector {sector_name(later[0])}.")


def _resolve_fight(table: _Table) -> None:
    seat = table.turn_seat
    sector = table.fight_sector
    mine = table.units_at(sector, seat)
    theirs = table.units_at(sector, 1 - seat)
    attack = force_total(mine, table.attack_bonus)
    defense = force_total(theirs, table.defense_bonus)
    winner = seat if winner_is_attacker(attack, defense) else 1 - seat
    losers = theirs if winner == seat else mine
    positions = list(table.positions)
    for u in losers:
        positions[u] = SCRAP
    table.positions = tuple(positions)
    table.keep_seat = winner
    table.keep_difference = abs(attack - defense)
    table.phase = Phase.KEEP
    table.last_fight = FightRecord(table.turn_number, sector, seat, attack, defense, winner, tuple(losers))
    _say(
        table,
        f"{SIDES[seat]} {attack} against {SIDES[1 - seat]} {defense}: {SIDES[winner]} wins; "
        f"destroyed: {_units_words(losers)}.",
    )


def _end_turn(table: _Table) -> None:
    table.phase = Phase.OVER
    table.fight_sector = table.keep_difference = 0
    table.keep_seat = -1
    winner = _holder_of_all_planets(table.positions)
    if winner is not None:
        _finish(table, winner, SpaceWin.ALL_PLANETS, f"{SIDES[winner]} controls all four planets and wins.")
        return
    for seat in (0, 1):
        if not table.on_board(seat):
            _finish(
                table, 1 - seat, SpaceWin.NO_UNITS, f"{SIDES[seat]} has no unit left: {SIDES[1 - seat]} wins."
            )
            return
    if table.extra_turns > 0:
        table.extra_turns -= 1
        _say(table, f"{SIDES[table.turn_seat]} takes another turn (Major Offensive).")
        _start_turn(table, table.turn_seat)
    else:
        _start_turn(table, 1 - table.turn_seat)


def _holder_of_all_planets(positions: Sequence[int]) -> int | None:
    """The seat that controls all four planets (units on each, no enemy unit on any), if one does."""
    empire, terrans = set(positions[:UNITS_PER_SIDE]), set(positions[UNITS_PER_SIDE:])
    if empire >= _ALL_PLANETS and not terrans & _ALL_PLANETS:
        return 0
    if terrans >= _ALL_PLANETS and not empire & _ALL_PLANETS:
        return 1
    return None


_ALL_PLANETS = frozenset(PLANETS)


def _finish(table: _Table, winner: int, reason: SpaceWin, text: str) -> None:
    table.phase = Phase.OVER
    table.result = Outcome(winner=winner, reason=reason, description=text)
    _say(table, text)


def _apply_move(table: _Table, move: Move) -> None:
    seat = table.turn_seat
    _take_die(table, move.die)
    source, target = _step_one(table, move.unit, move.die, DIRECTION[seat], "die")
    _say(
        table,
        f"{SIDES[seat]} moved {_UNIT_NAMES[move.unit]} from {_SECTOR_NAMES[source]} to {_SECTOR_NAMES[target]}.",
        seat,
    )


def _apply_shuffle(table: _Table, action: Shuffle) -> None:
    pool = sorted(table.vortex)
    table.deck = (*table.deck, *(pool[i] for i in action.order))
    table.vortex = ()
    if table.turn_number == 0:
        _say(table, f"The {len(pool)} cards were shuffled into the deck.")
    else:
        _say(table, f"The vortex ({_cards(len(pool))}) was shuffled into a new deck.")
    _continue_drawing(table)


def _apply_roll(table: _Table, action: RollDice) -> None:
    table.phase = Phase.DICE
    _say(table, f"{SIDES[table.turn_seat]} rolls.", table.turn_seat)


def _apply_discard(table: _Table, action: Discard) -> None:
    seat = table.turn_seat
    card = _remove_card(table, seat, action.kind)
    _say(table, f"{SIDES[seat]} discarded {card_of(card).name}.", seat)
    if len(table.hands[seat]) <= hand_limit(table.positions, seat):
        table.phase = Phase.ESPIONAGE


def _apply_build(table: _Table, action: Build) -> None:
    unit = action.unit
    _rebuild(table, unit)
    table.builds -= 1
    _say(table, f"{SIDES[table.turn_seat]} rebuilt {unit_name(unit)} on its homeworld.", table.turn_seat)
    _after_build(table)


def _dice(table: _Table, action: Dice) -> None:
    values = action.values
    seat = table.turn_seat
    if table.phase is Phase.DICE:
        table.dice = values
        table.bonus = (0,) * len(values)
        table.phase = Phase.ROLL_CARDS
        # A new roll: the moves and the fight shown from the turn before are done with.
        table.turn_moves = ()
        table.last_fight = None
        double = " (doubles)" if values[0] == values[1] else ""
        _say(table, f"{SIDES[seat]} rolled {'-'.join(map(str, values))}{double}.", seat)
    elif table.phase is Phase.REROLL:
        dice = list(table.dice)
        dice[table.reroll] = values[0]
        table.dice = tuple(dice)
        table.reroll = -1
        table.phase = Phase.ROLL_CARDS
        _say(table, f"The rerolled die shows {values[0]}.", seat)
    else:
        if table.die_for == seat:
            table.attack_bonus += values[0]
            table.phase = Phase.ATTACK
        else:
            table.defense_bonus += values[0]
            table.phase = Phase.DEFEND
        table.die_for = -1
        _say(table, f"The die adds {values[0]} to the force.")


def _rebuild(table: _Table, unit: int) -> None:
    positions = list(table.positions)
    positions[unit] = HOMEWORLD[owner(unit)]
    table.positions = tuple(positions)


def _after_build(table: _Table) -> None:
    if not table.has_scrapped(table.turn_seat):
        _to_jam(table)


_PASS_TEXT = {
    Phase.ESPIONAGE: "{other} does not play Espionage.",
    Phase.ROLL_CARDS: "{name} keeps the roll.",
    Phase.BUILD: "{name} ends the build phase.",
    Phase.JAM: "{other} does not play Jam Transmission.",
    Phase.ATTACK: "{name} plays no more attack cards.",
    Phase.DEFEND: "{other} plays no more defense cards.",
}


_PASS_WORDS = {
    (phase, seat): text.format(name=SIDES[seat], other=SIDES[1 - seat])
    for phase, text in _PASS_TEXT.items()
    for seat in (0, 1)
}


def _pass(table: _Table, action: Pass) -> None:
    seat = table.turn_seat
    phase = table.phase
    words = _PASS_WORDS.get((phase, seat))
    if words is not None:
        _say(table, words, _decider(table))
    if phase is Phase.ESPIONAGE:
        table.phase = Phase.ROLL
    elif phase is Phase.ROLL_CARDS:
        _to_build(table)
    elif phase is Phase.BUILD:
        _to_jam(table)
    elif phase is Phase.JAM:
        _to_move(table)
    elif phase is Phase.MOVE:
        _say(table, f"{SIDES[seat]} ends the move phase.", seat)
        _next_fight(table, 0)
    elif phase is Phase.ATTACK:
        table.phase = Phase.DEFEND
    elif phase is Phase.DEFEND:
        _resolve_fight(table)


def _keep(table: _Table, action: Keep) -> None:
    kept = action.units
    sector = table.fight_sector
    positions = list(table.positions)
    lost = [u for u in table.units_at(sector, table.keep_seat) if u not in kept]
    for u in lost:
        positions[u] = SCRAP
    table.positions = tuple(positions)
    fight = table.last_fight
    if fight is not None and fight.sector == sector:
        table.last_fight = FightRecord(
            fight.turn,
            fight.sector,
            fight.attacker,
            fight.attack,
            fight.defense,
            fight.winner,
            (*fight.destroyed, *lost),
            tuple(kept),
            True,
        )
    words = ", ".join(unit_label(u) for u in kept)
    more = f"; destroyed: {_units_words(lost)}." if lost else "; no more units destroyed."
    _say(table, f"{SIDES[table.keep_seat]} keeps {words}{more}")
    _next_fight(table, sector)


def _play(table: _Table, action: Play) -> None:
    seat = _decider(table)
    card = action.card
    _remove_card(table, seat, card.kind)
    name = SIDES[seat]
    if card is C.ESPIONAGE:
        seen = table.hands[1 - seat]
        table.spy = (seat, seen)
        table.phase = Phase.ROLL
        held = (
            f"{SIDES[1 - seat]} holds {_card_names(seen)}." if seen else f"{SIDES[1 - seat]} holds no card."
        )
        _say(table, f"{name} played {card.name}.", seat, private=(seat, f"You played {card.name}: {held}"))
        return
    _say(table, f"{name} played {card.name}.", seat)
    if card is C.MAJOR_OFFENSIVE:
        for kind in action.discards:
            _remove_card(table, seat, kind)
        table.extra_turns += 1
        _say(table, f"It discarded {CARDS[action.discards[0]].name} and {CARDS[action.discards[1]].name}.")
        if table.phase is Phase.DISCARD and len(table.hands[seat]) <= hand_limit(table.positions, seat):
            table.phase = Phase.ESPIONAGE
    elif card is C.HYPER_JUMP:
        table.hyper = True
    elif card is C.BATTLE_COMPUTERS:
        assert action.die is not None
        table.reroll = next(i for i in range(2) if table.dice[i] + table.bonus[i] == action.die)
        table.phase = Phase.REROLL
    elif card.die_bonus:
        assert action.die is not None
        i = next(i for i in range(len(table.dice)) if table.dice[i] + table.bonus[i] == action.die)
        bonus = list(table.bonus)
        bonus[i] += card.die_bonus
        table.bonus = tuple(bonus)
        _say(table, f"The {action.die} becomes {action.die + card.die_bonus}.")
    elif card is C.REINFORCEMENTS:
        assert action.unit is not None
        _rebuild(table, action.unit)
        _say(table, f"{unit_name(action.unit)} is back on its homeworld.")
        _after_build(table)
    elif card is C.JAM_TRANSMISSION:
        assert action.unit is not None
        table.jammed = tuple(sorted((*table.jammed, action.unit)))
        _say(table, f"{unit_name(action.unit)} cannot move this turn.")
    elif card is C.STRATEGIC_MOVE:
        assert action.sector is not None and action.die is not None
        used = table._used()
        units = [u for u in table.units_at(action.sector, seat) if table.movable(u, used)]
        _take_die(table, action.die)
        _step_units(table, units, action.die, forwards=True, how=card.key)
        target = step(action.sector, DIRECTION[seat] * action.die)
        _say(
            table,
            f"{len(units)} units moved from {sector_name(action.sector)} to {sector_name(target)} "
            f"by {action.die}.",
        )
    elif card is C.SPACE_COMBAT_TACTICS:
        assert action.unit is not None and action.die is not None
        _take_die(table, action.die)
        _step_units(table, [action.unit], action.die, forwards=False, how=card.key)
        record = table.turn_moves[-1]
        _say(
            table,
            f"{unit_name(action.unit)} moved back from {sector_name(record.source)} to "
            f"{sector_name(record.target)}.",
        )
    elif card is C.DEFEND_THE_HOMEWORLD:
        assert action.unit is not None
        source = table.positions[action.unit]
        _rebuild(table, action.unit)
        moved = {u: (n, s) for u, n, s in table.moved}
        moved[action.unit] = (2, True)
        table.moved = tuple(sorted((u, n, s) for u, (n, s) in moved.items()))
        home = HOMEWORLD[seat]
        table.turn_moves = (
            *table.turn_moves,
            MoveRecord(_next_move_number(table), action.unit, source, home, 0, card.key),
        )
        _say(table, f"{unit_name(action.unit)} jumped from {sector_name(source)} to its homeworld.")
    elif card is C.HOLD_POSITION:
        assert action.die is not None
        _take_die(table, action.die)
        _say(table, f"The {action.die} is not used.")
    elif card.timing is Timing.ATTACK:
        _fight_card(table, card, attacker=True)
    elif card.timing is Timing.DEFENSE:
        _fight_card(table, card, attacker=False)


_STEPS: dict[type[Action], Callable[[_Table, Any], None]] = {
    Pass: _pass,
    Move: _apply_move,
    Play: _play,
    Dice: _dice,
    Shuffle: _apply_shuffle,
    RollDice: _apply_roll,
    Discard: _apply_discard,
    Build: _apply_build,
    Keep: _keep,
}
"""What each kind of action does to the working copy (each step takes its own kind of action)."""


def _fight_card(table: _Table, card: C.Card, attacker: bool) -> None:
    if card.rolls_die:
        table.die_for = table.turn_seat if attacker else 1 - table.turn_seat
        table.phase = Phase.FIGHT_DIE
    elif attacker:
        table.attack_bonus += card.force
    else:
        table.defense_bonus += card.force


def _decider(table: _Table) -> int:
    """The seat deciding in ``table``'s phase (the player on turn, or the other in a window)."""
    return 1 - table.turn_seat if table.phase in WINDOW_PHASES else table.turn_seat


# ---------------------------------------------------------------------------------------------------
# Words


def describe(state: SpaceState, action: Action) -> str:
    if isinstance(action, Move):
        target = step(state.positions[action.unit], DIRECTION[state.turn_seat] * action.die)
        return f"move {unit_name(action.unit)} to {sector_name(target)} with the {action.die}"
    if isinstance(action, Build):
        return f"rebuild {unit_name(action.unit)} on your homeworld"
    if isinstance(action, Keep):
        return "keep " + ", ".join(unit_name(u) for u in action.units)
    if isinstance(action, Discard):
        return f"discard {CARDS[action.kind].name}"
    if isinstance(action, Play):
        card = action.card
        extra = {
            Target.DIE: f" on the {action.die}",
            Target.UNIT_DIE: f" on {unit_label(action.unit or 0)} with the {action.die}",
            Target.SECTOR_DIE: f" from sector {action.sector} with the {action.die}",
        }.get(card.target, "")
        if card.target in (Target.OWN_UNIT, Target.ENEMY_UNIT, Target.SCRAPPED_UNIT):
            extra = f" on {unit_name(action.unit or 0)}"
        if card.target is Target.TWO_CARDS:
            extra = " discarding " + " and ".join(CARDS[k].name for k in action.discards)
        return f"play {card.name}{extra} ({card.text})"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, RollDice):
        return "roll the dice"
    return action.notation


def phase_text(state: SpaceState) -> str:
    if state.result is not None:
        return state.result.description
    name = SIDES[state.turn_seat]
    other = SIDES[1 - state.turn_seat]
    p = state.phase
    if p is Phase.SHUFFLE:
        return "The vortex is shuffled into a new deck"
    if p is Phase.DISCARD:
        return f"{name}: discard down to {hand_limit(state.positions, state.turn_seat)} cards"
    if p is Phase.ESPIONAGE:
        return f"{other} may play Espionage"
    if p is Phase.ROLL:
        return f"{name} to roll"
    if p in (Phase.DICE, Phase.REROLL, Phase.FIGHT_DIE):
        return "Rolling"
    dice = ", ".join(str(state.die_value(i)) for i in state.dice_left)
    if p is Phase.ROLL_CARDS:
        return f"{name} rolled {', '.join(str(state.die_value(i)) for i in range(len(state.dice)))}: roll cards or pass"
    if p is Phase.BUILD:
        return f"{name}: build phase"
    if p is Phase.JAM:
        return f"{other} may play Jam Transmission"
    if p is Phase.MOVE:
        return f"{name} to move: {dice or 'no dice'} left"
    if p is Phase.ATTACK:
        return f"Fight in sector {sector_name(state.fight_sector)}: {name} may play attack cards"
    if p is Phase.DEFEND:
        return f"Fight in sector {sector_name(state.fight_sector)}: {other} may play defense cards"
    return f"{SIDES[state.keep_seat]} won in sector {state.fight_sector}: choose the units to keep (force {state.keep_difference} or one unit)"


# ---------------------------------------------------------------------------------------------------
# What one seat sees


@dataclass(frozen=True, slots=True)
class SpaceView(GameView):
    """One seat's view of a space position: its own hand, the opponent's hand size, the deck size;
    never the opponent's cards (unless seen through Espionage this turn) nor the deck order."""

    seat: int | None
    turn_number: int
    turn_seat: int
    phase: Phase
    positions: tuple[int, ...]
    hand: tuple[str, ...]
    hand_sizes: tuple[int, int]
    deck_size: int
    vortex: tuple[str, ...]
    dice: tuple[int, ...]
    """Each die's value with the cards' additions (what moves use)."""
    dice_left: tuple[int, ...]
    jammed: tuple[int, ...]
    fight_sector: int
    attack_bonus: int
    defense_bonus: int
    extra_turns: int
    spied_hand: tuple[str, ...] | None
    deciding: int
    actions: tuple[Action, ...]
    result: Outcome | None
    last: str | None
    phase_words: str
    rolled: tuple[int, ...] = ()
    """Each die as rolled, before the cards' additions."""
    die_bonus: tuple[int, ...] = ()
    """Each die's additions by Ion Thrusters, Warp Overdrive and Maximum Burn (``dice`` = rolled + bonus)."""
    dice_used: tuple[bool, ...] = ()
    """Per die, whether it has been used in this move phase (moved by, or held by Hold Position)."""
    turn_moves: tuple[MoveRecord, ...] = ()
    """The moves since the last roll, in order (``MoveRecord``: number, unit, from, to, die, how)."""
    last_fight: FightRecord | None = None
    """The latest fight's result (sector, attacker, totals, winner, destroyed, kept), until the next roll."""
    public_last: str | None = None
    """The last action's words as everyone reads them (``last`` is this viewer's; the picture, the
    same for every viewer, writes these)."""

    variant_key: ClassVar[str] = "space"

    @classmethod
    def of(cls, state: SpaceState, viewer: int | None) -> SpaceView:
        spied = None
        if viewer is not None and state.spy is not None and state.spy[0] == viewer:
            spied = tuple(card_of(c).key for c in state.spy[1])
        return cls(
            seat=viewer,
            turn_number=state.turn_number,
            turn_seat=state.turn_seat,
            phase=state.phase,
            positions=state.positions,
            hand=tuple(card_of(c).key for c in state.hands[viewer]) if viewer is not None else (),
            hand_sizes=(len(state.hands[0]), len(state.hands[1])),
            deck_size=len(state.deck),
            vortex=tuple(card_of(c).key for c in state.vortex),
            dice=tuple(state.die_value(i) for i in range(len(state.dice))),
            dice_left=tuple(state.die_value(i) for i in state.dice_left),
            jammed=state.jammed,
            fight_sector=state.fight_sector,
            attack_bonus=state.attack_bonus,
            defense_bonus=state.defense_bonus,
            extra_turns=state.extra_turns,
            spied_hand=spied,
            deciding=state.to_move() if state.result is None else CHANCE,
            actions=state.legal_actions() if viewer is not None and state.to_move() == viewer else (),
            result=state.result,
            last=state.last.for_viewer(viewer) if state.last is not None else None,
            phase_words=state.phase_text,
            rolled=state.dice,
            die_bonus=state.bonus,
            dice_used=_dice_used(state),
            turn_moves=state.turn_moves,
            last_fight=state.last_fight,
            public_last=state.last_text,
        )

    @property
    def viewer(self) -> int | None:
        return self.seat

    def to_move(self) -> int:
        return self.deciding

    @property
    def turn(self) -> int | None:
        return self.turn_seat if self.turn_number > 0 else None

    def legal_actions(self) -> tuple[Action, ...]:
        return self.actions

    def outcome(self) -> Outcome | None:
        return self.result

    @property
    def last_text(self) -> str | None:
        return self.last

    @property
    def phase_text(self) -> str:
        return self.phase_words

    def to_json(self) -> JSONDict:
        """Everything this viewer may see, as JSON."""
        return {
            "viewer": self.seat,
            "turn_number": self.turn_number,
            "turn": self.turn_seat,
            "phase": self.phase.value,
            "positions": list(self.positions),
            "hand": list(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "deck_size": self.deck_size,
            "vortex": list(self.vortex),
            "dice": list(self.dice),
            "dice_left": list(self.dice_left),
            "jammed": list(self.jammed),
            "fight_sector": self.fight_sector,
            "attack_bonus": self.attack_bonus,
            "defense_bonus": self.defense_bonus,
            "extra_turns": self.extra_turns,
            "spied_hand": list(self.spied_hand) if self.spied_hand is not None else None,
            "to_move": self.deciding,
            "actions": [a.notation for a in self.actions],
            "outcome": self.result.to_json() if self.result is not None else None,
            "last_text": self.last,
            "phase_text": self.phase_words,
            "rolled": list(self.rolled),
            "die_bonus": list(self.die_bonus),
            "dice_used": list(self.dice_used),
            "turn_moves": [m.to_json() for m in self.turn_moves],
            "last_fight": self.last_fight.to_json() if self.last_fight is not None else None,
            "public_last": self.public_last,
        }


def _dice_used(state: SpaceState) -> tuple[bool, ...]:
    """Per die, whether it is used up: in the move phase, not among the dice left."""
    if state.phase is not Phase.MOVE:
        return (False,) * len(state.dice)
    return tuple(i not in state.dice_left for i in range(len(state.dice)))


def new_state() -> SpaceState:
    """A new game: all units on their homeworlds, the 50 cards waiting to be shuffled and dealt."""
    return SpaceState(
        positions=initial_positions(),
        deck=(),
        hands=((), ()),
        vortex=tuple(range(C.DECK_SIZE)),
        phase=Phase.SHUFFLE,
        turn_seat=0,
        to_draw=(START_HAND, START_HAND),
    )
