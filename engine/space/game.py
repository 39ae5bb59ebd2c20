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
of the opponent's hand and never the order of the deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import Enum
from itertools import combinations_with_replacement
from typing import ClassVar

from engine.errors import GameOverError, IllegalActionError, NotYourTurnError
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
    SIDES,
    contested,
    controller,
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

OWN_TURN_PHASES = frozenset(
    {Phase.DISCARD, Phase.ROLL, Phase.ROLL_CARDS, Phase.BUILD, Phase.MOVE, Phase.ATTACK}
)
"""Phases of the player on turn in which Major Offensive may be played."""


def hand_limit(positions: Sequence[int], seat: int) -> int:
    """6, +1 per controlled Nimrod / Cygnus-7, -2 without control of the own homeworld."""
    limit = BASE_HAND_LIMIT
    for planet in PLANETS:
        if planet == HOMEWORLD[seat]:
            if controller(positions, planet) != seat:
                limit -= 2
        elif planet != HOMEWORLD[1 - seat] and controller(positions, planet) == seat:
            limit += 1
    return limit


def _die_values(dice: Sequence[int], bonus: Sequence[int], indices: Sequence[int]) -> list[int]:
    return [dice[i] + bonus[i] for i in indices]


def max_dice(
    movers: Sequence[tuple[int, int]], dice: Sequence[int], enemy: frozenset[int], direction: int
) -> int:
    """How many of ``dice`` can be used by plain moves of ``movers`` ((sector, dice used) of each unit
    free to move): a unit takes at most two dice and stops when a step ends on an enemy sector."""
    if not dice or not movers:
        return 0
    best = 0
    for d in sorted(set(dice)):
        rest = list(dice)
        rest.remove(d)
        for mover in sorted(set(movers)):
            sector, used = mover
            target = step(sector, direction * d)
            others = list(movers)
            others.remove(mover)
            if used == 0 and target not in enemy:
                others.append((target, 1))
            got = 1 + max_dice(others, rest, enemy, direction)
            if got > best:
                best = got
                if best == len(dice):
                    return best
    return best


@dataclass(frozen=True, slots=True)
class LastEvent:
    """What the last action did, in public words (never a secret)."""

    seat: int | None
    text: str

    def to_json(self) -> JSONDict:
        return {"seat": self.seat, "text": self.text}


@dataclass(slots=True)
class _Table:
    """The mutable working copy of a state while one action is applied (same fields as the state)."""

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
    last: LastEvent | None = None
    result: Outcome | None = None


@dataclass(frozen=True, slots=True)
class SpaceState(GameState):
    """A position of space. Seat 0 is the Evil Empire (moves first), seat 1 the Terrans.

    ``positions``: the sector (1..28) of each unit id, 0 for the scrap heap. ``deck``: card ids in
    draw order (secret). ``hands``: each seat's card ids, sorted (secret). ``vortex``: the discard
    pile in the order played. ``dice``/``bonus``: the roll (2 or 3 dice) and the cards' additions;
    ``dice_left``: indices of dice not used yet. ``moved``: (unit, dice used, stopped on an enemy)
    for the units moved this turn. ``spy``: (spying seat, the hand it saw) after Espionage.
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
    last: LastEvent | None = None
    result: Outcome | None = None

    variant_key: ClassVar[str] = "space"

    # -- protocol ---------------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        return self.turn_seat if self.turn_number > 0 else None

    def to_move(self) -> int:
        if self.phase in (Phase.SHUFFLE, Phase.DICE, Phase.REROLL, Phase.FIGHT_DIE):
            return CHANCE
        if self.phase in WINDOW_PHASES:
            return 1 - self.turn_seat
        if self.phase is Phase.KEEP:
            return self.keep_seat
        return self.turn_seat

    def chance(self) -> ChanceSpec | None:
        if self.phase is Phase.SHUFFLE:
            return ChanceSpec(ChanceKind.SHUFFLE, count=len(self.vortex), label="Shuffle")
        if self.phase is Phase.DICE:
            return ChanceSpec(ChanceKind.DICE, count=3 if self.hyper else 2, sides=6, label="Roll")
        if self.phase is Phase.REROLL:
            return ChanceSpec(ChanceKind.DICE, count=1, sides=6, label="Battle Computers")
        if self.phase is Phase.FIGHT_DIE:
            label = "Surprise Attack" if self.die_for == self.turn_seat else "Ambush"
            return ChanceSpec(ChanceKind.DICE, count=1, sides=6, label=label)
        return None

    def chance_action(self, outcome: Sequence[int]) -> Action:
        spec = self.chance()
        if spec is None:
            raise IllegalActionError("nothing is to be rolled or shuffled now")
        values = spec.check(outcome)
        return Shuffle(values) if spec.kind is ChanceKind.SHUFFLE else Dice(values)

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

    # -- reading the position -----------------------------------------------------------------------

    def hand_kinds(self, seat: int) -> list[int]:
        return [card_of(c).kind for c in self.hands[seat]]

    def holds(self, seat: int, kind: int) -> bool:
        return any(c // C.COPIES == kind for c in self.hands[seat])

    def die_value(self, index: int) -> int:
        return self.dice[index] + self.bonus[index]

    def doubles(self) -> bool:
        return len(self.dice) >= 2 and self.dice[0] == self.dice[1]

    def units_at(self, sector: int, seat: int | None = None) -> list[int]:
        return [
            u
            for u, where in enumerate(self.positions)
            if where == sector and (seat is None or owner(u) == seat)
        ]

    def scrapped(self, seat: int) -> list[int]:
        return [u for u in units_of(seat) if self.positions[u] == SCRAP]

    def controls_homeworld(self, seat: int) -> bool:
        return controller(self.positions, HOMEWORLD[seat]) == seat

    def _used(self) -> dict[int, tuple[int, bool]]:
        return {u: (n, stopped) for u, n, stopped in self.moved}

    def movable(self, unit: int, used: dict[int, tuple[int, bool]] | None = None) -> bool:
        """Whether ``unit`` of the player on turn may still take a die this turn."""
        if owner(unit) != self.turn_seat or self.positions[unit] == SCRAP or unit in self.jammed:
            return False
        n, stopped = (self._used() if used is None else used).get(unit, (0, False))
        return n < 2 and not stopped

    def _movers(self) -> list[tuple[int, tuple[int, int]]]:
        """(unit, (sector, dice used)) of each unit of the player on turn free to take a die."""
        used = self._used()
        return [
            (u, (self.positions[u], used.get(u, (0, False))[0]))
            for u in units_of(self.turn_seat)
            if self.movable(u, used)
        ]

    def _enemy_sectors(self) -> frozenset[int]:
        return frozenset(
            self.positions[u] for u in units_of(1 - self.turn_seat) if self.positions[u] != SCRAP
        )

    def dice_usable(self) -> int:
        """How many of the dice left can still be used by plain moves (the must-use rule)."""
        values = _die_values(self.dice, self.bonus, self.dice_left)
        movers = [m for _, m in self._movers()]
        return max_dice(movers, values, self._enemy_sectors(), DIRECTION[self.turn_seat])

    # -- legal actions --------------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        if self.result is not None or self.to_move() == CHANCE:
            return ()
        seat = self.to_move()
        phase = self.phase
        acts: list[Action] = []
        kinds = sorted(set(self.hand_kinds(seat)))
        if phase is Phase.DISCARD:
            acts += [Discard(k) for k in kinds]
        elif phase is Phase.ESPIONAGE:
            acts.append(Pass())
            if C.ESPIONAGE.kind in kinds:
                acts.append(Play(C.ESPIONAGE.kind))
        elif phase is Phase.ROLL:
            acts.append(RollDice())
            if not self.hyper and C.HYPER_JUMP.kind in kinds:
                acts.append(Play(C.HYPER_JUMP.kind))
        elif phase is Phase.ROLL_CARDS:
            acts.append(Pass())
            values = sorted({self.die_value(i) for i in range(len(self.dice))})
            if C.BATTLE_COMPUTERS.kind in kinds:
                normal = sorted({self.die_value(i) for i in range(2)})
                acts += [Play(C.BATTLE_COMPUTERS.kind, die=v) for v in normal]
            for card in (C.ION_THRUSTERS, C.WARP_OVERDRIVE, C.MAXIMUM_BURN):
                if card.kind in kinds:
                    acts += [Play(card.kind, die=v) for v in values]
        elif phase is Phase.BUILD:
            acts.append(Pass())
            if self.builds > 0:
                acts += [Build(u) for u in self.scrapped(seat)]
            if C.REINFORCEMENTS.kind in kinds:
                acts += [Play(C.REINFORCEMENTS.kind, unit=u) for u in self.scrapped(seat)]
        elif phase is Phase.JAM:
            acts.append(Pass())
            if C.JAM_TRANSMISSION.kind in kinds:
                targets = [
                    u for u in units_of(self.turn_seat) if self.positions[u] != SCRAP and u not in self.jammed
                ]
                acts += [Play(C.JAM_TRANSMISSION.kind, unit=u) for u in targets]
        elif phase is Phase.MOVE:
            acts += self._move_actions(kinds)
        elif phase is Phase.ATTACK:
            acts.append(Pass())
            acts += [Play(k) for k in kinds if CARDS[k].timing is Timing.ATTACK]
        elif phase is Phase.DEFEND:
            acts.append(Pass())
            acts += [Play(k) for k in kinds if CARDS[k].timing is Timing.DEFENSE]
        elif phase is Phase.KEEP:
            units = self.units_at(self.fight_sector, self.keep_seat)
            acts += [Keep(k) for k in keep_choices(units, self.keep_difference)]
        if phase in OWN_TURN_PHASES and seat == self.turn_seat:
            acts += self._major_offensives(seat)
        return tuple(acts)

    def _major_offensives(self, seat: int) -> list[Action]:
        hand = self.hand_kinds(seat)
        if C.MAJOR_OFFENSIVE.kind not in hand:
            return []
        hand.remove(C.MAJOR_OFFENSIVE.kind)
        have = Counter(hand)
        plays: list[Action] = []
        for pair in combinations_with_replacement(sorted(have), 2):
            if all(have[k] >= n for k, n in Counter(pair).items()):
                plays.append(Play(C.MAJOR_OFFENSIVE.kind, discards=pair))
        return plays

    def _keeps_dice_in_use(
        self,
        movers: Sequence[tuple[int, int]],
        mover: tuple[int, int],
        value: int,
        dice: Sequence[int],
        usable: int,
    ) -> bool:
        """Whether moving one unit ``mover`` by ``value`` still lets the dice be used as fully as
        ``usable`` says (the must-use rule, RULINGS 11)."""
        enemy = self._enemy_sectors()
        direction = DIRECTION[self.turn_seat]
        sector, used = mover
        target = step(sector, direction * value)
        others = list(movers)
        others.remove(mover)
        if used == 0 and target not in enemy:
            others.append((target, 1))
        rest = list(dice)
        rest.remove(value)
        return 1 + max_dice(others, rest, enemy, direction) == usable

    def move_allowed(self, move: Move) -> bool:
        """Whether ``move`` is legal now (the same answer as ``legal_actions``, found faster)."""
        if self.phase is not Phase.MOVE or self.result is not None:
            return False
        dice = _die_values(self.dice, self.bonus, self.dice_left)
        entries = self._movers()
        mine = [m for u, m in entries if u == move.unit]
        if move.die not in dice or not mine:
            return False
        movers = [m for _, m in entries]
        usable = max_dice(movers, dice, self._enemy_sectors(), DIRECTION[self.turn_seat])
        return self._keeps_dice_in_use(movers, mine[0], move.die, dice, usable)

    def _move_actions(self, kinds: Sequence[int]) -> list[Action]:
        acts: list[Action] = []
        seat = self.turn_seat
        dice = _die_values(self.dice, self.bonus, self.dice_left)
        values = sorted(set(dice))
        entries = self._movers()
        movers = [m for _, m in entries]
        usable = max_dice(movers, dice, self._enemy_sectors(), DIRECTION[seat])
        if usable == 0:
            acts.append(Pass())
        movable = [u for u, _ in entries]
        allowed: dict[tuple[tuple[int, int], int], bool] = {}
        for u, mover in entries:
            for v in values:
                key = (mover, v)
                if key not in allowed:
                    allowed[key] = self._keeps_dice_in_use(movers, mover, v, dice, usable)
                if allowed[key]:
                    acts.append(Move(u, v))
        if C.STRATEGIC_MOVE.kind in kinds:
            sectors = sorted({self.positions[u] for u in movable})
            acts += [Play(C.STRATEGIC_MOVE.kind, sector=s, die=v) for s in sectors for v in values]
        if C.SPACE_COMBAT_TACTICS.kind in kinds:
            acts += [Play(C.SPACE_COMBAT_TACTICS.kind, unit=u, die=v) for u in movable for v in values]
        if C.DEFEND_THE_HOMEWORLD.kind in kinds:
            home = HOMEWORLD[seat]
            acts += [
                Play(C.DEFEND_THE_HOMEWORLD.kind, unit=u)
                for u in units_of(seat)
                if self.positions[u] not in (SCRAP, home) and u not in self.jammed
            ]
        if C.HOLD_POSITION.kind in kinds:
            acts += [Play(C.HOLD_POSITION.kind, die=v) for v in values]
        return acts

    # -- applying ----------------------------------------------------------------------------------

    def apply(self, action: Action) -> SpaceState:
        if self.result is not None:
            raise GameOverError("the game is over: no more actions can be played")
        if self.to_move() == CHANCE:
            if not isinstance(action, Shuffle | Dice):
                raise NotYourTurnError(f"the next step is chance: {self.phase_text}")
            values = action.order if isinstance(action, Shuffle) else action.values
            if self.chance_action(values) != action:
                raise IllegalActionError(f"{action.notation} does not fit this chance step")
        elif isinstance(action, Shuffle | Dice):
            raise IllegalActionError("no dice are rolled and no deck is shuffled now")
        elif isinstance(action, Keep) and self.phase is Phase.KEEP:
            units = self.units_at(self.fight_sector, self.keep_seat)
            if not may_keep(units, action.units, self.keep_difference):
                raise IllegalActionError(
                    f"keep one unit, or units of total force {self.keep_difference} or less, "
                    f"from your units in sector {self.fight_sector}"
                )
        elif isinstance(action, Move):
            if not self.move_allowed(action):
                raise IllegalActionError(self._why_illegal(action))
        elif action not in self.legal_actions():
            raise IllegalActionError(self._why_illegal(action))
        table = self._thaw()
        table.last = None
        _apply(table, action)
        return _freeze(table)

    def _why_illegal(self, action: Action) -> str:
        who = SIDES[self.to_move()]
        if isinstance(action, Play):
            card = action.card
            if not self.holds(self.to_move(), card.kind):
                return f"{who} holds no {card.name} card"
            return f"{card.name} cannot be played like that now ({card.timing.value}); {self.phase_text}"
        if isinstance(action, Move) and self.phase is Phase.MOVE:
            if not self.movable(action.unit):
                return f"{unit_label(action.unit)} cannot move now"
            if action.die not in _die_values(self.dice, self.bonus, self.dice_left):
                return f"there is no die {action.die} left to play"
            return "that move would leave a die unused although both can be played (use the dice)"
        if isinstance(action, Pass) and self.phase is Phase.MOVE:
            return "the dice must be used while a unit can move with them"
        return f"{action.notation!r} is not allowed now: {self.phase_text}"

    def _thaw(self) -> _Table:
        return _Table(**{name: getattr(self, name) for name in _FIELDS})

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


_FIELDS = tuple(f.name for f in fields(_Table))


def _freeze(table: _Table) -> SpaceState:
    return SpaceState(**{name: getattr(table, name) for name in _FIELDS})


# ---------------------------------------------------------------------------------------------------
# The flow of a turn, on the mutable working copy


def _say(table: _Table, text: str, seat: int | None = None) -> None:
    if table.last is None:
        table.last = LastEvent(seat, text)
    else:
        table.last = LastEvent(table.last.seat, f"{table.last.text} {text}")


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
    for i in table.dice_left:
        if table.dice[i] + table.bonus[i] == value:
            table.dice_left = tuple(j for j in table.dice_left if j != i)
            return
    raise AssertionError("no such die")


def _step_units(table: _Table, units: Sequence[int], value: int, forwards: bool) -> None:
    seat = table.turn_seat
    direction = DIRECTION[seat] if forwards else -DIRECTION[seat]
    positions = list(table.positions)
    enemy = {positions[u] for u in units_of(1 - seat) if positions[u] != SCRAP}
    moved = {u: (n, s) for u, n, s in table.moved}
    for u in units:
        positions[u] = step(positions[u], direction * value)
        n, _ = moved.get(u, (0, False))
        moved[u] = (n + 1, positions[u] in enemy)
    table.positions = tuple(positions)
    table.moved = tuple(sorted((u, n, s) for u, (n, s) in moved.items()))


def _continue_drawing(table: _Table) -> None:
    """Draw what is still to be drawn (the initial hands, or the turn's two cards), stopping at a
    shuffle when the deck runs out; then go on to the discards."""
    for seat in (0, 1):
        drawn = 0
        while table.to_draw[seat] > 0:
            if not table.deck:
                if table.vortex:
                    if drawn:
                        _say(table, f"{SIDES[seat]} drew {_cards(drawn)}.")
                    table.phase = Phase.SHUFFLE
                    return
                _say(table, f"{SIDES[seat]} could not draw: the deck and the vortex are empty.")
                table.to_draw = (0, table.to_draw[1]) if seat == 0 else (table.to_draw[0], 0)
                break
            _set_hand(table, seat, (*table.hands[seat], table.deck[0]))
            table.deck = table.deck[1:]
            drawn += 1
            table.to_draw = (
                (table.to_draw[0] - 1, table.to_draw[1])
                if seat == 0
                else (table.to_draw[0], table.to_draw[1] - 1)
            )
        if drawn:
            _say(table, f"{SIDES[seat]} drew {_cards(drawn)}.")
    if table.turn_number == 0:
        _start_turn(table, 0)
        return
    _after_draw(table)


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
    state = _freeze(table)
    if state.controls_homeworld(seat) and state.scrapped(seat):
        table.phase = Phase.BUILD
    else:
        _to_jam(table)


def _to_jam(table: _Table) -> None:
    seat = table.turn_seat
    if any(table.positions[u] != SCRAP for u in units_of(seat)):
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
    state = _freeze(table)
    mine = state.units_at(sector, seat)
    theirs = state.units_at(sector, 1 - seat)
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
    _say(
        table,
        f"{SIDES[seat]} {attack} against {SIDES[1 - seat]} {defense}: {SIDES[winner]} wins "
        f"and {len(losers)} {'unit is' if len(losers) == 1 else 'units are'} destroyed.",
    )


def _end_turn(table: _Table) -> None:
    table.phase = Phase.OVER
    table.fight_sector = table.keep_difference = 0
    table.keep_seat = -1
    for seat in (table.turn_seat, 1 - table.turn_seat):
        if all(controller(table.positions, p) == seat for p in PLANETS):
            _finish(table, seat, SpaceWin.ALL_PLANETS, f"{SIDES[seat]} controls all four planets and wins.")
            return
    for seat in (0, 1):
        if all(table.positions[u] == SCRAP for u in units_of(seat)):
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


def _finish(table: _Table, winner: int, reason: SpaceWin, text: str) -> None:
    table.phase = Phase.OVER
    table.result = Outcome(winner=winner, reason=reason, description=text)
    _say(table, text)


def _apply(table: _Table, action: Action) -> None:
    seat = table.turn_seat
    name = SIDES[seat]
    if isinstance(action, Shuffle):
        pool = sorted(table.vortex)
        table.deck = (*table.deck, *(pool[i] for i in action.order))
        table.vortex = ()
        if table.turn_number == 0:
            _say(table, f"The {len(pool)} cards were shuffled into the deck.")
        else:
            _say(table, f"The vortex ({_cards(len(pool))}) was shuffled into a new deck.")
        _continue_drawing(table)
    elif isinstance(action, Dice):
        if table.phase is Phase.DICE:
            table.dice = action.values
            table.bonus = (0,) * len(action.values)
            table.phase = Phase.ROLL_CARDS
            double = " (doubles)" if action.values[0] == action.values[1] else ""
            _say(table, f"{name} rolled {'-'.join(map(str, action.values))}{double}.", seat)
        elif table.phase is Phase.REROLL:
            dice = list(table.dice)
            dice[table.reroll] = action.values[0]
            table.dice = tuple(dice)
            table.reroll = -1
            table.phase = Phase.ROLL_CARDS
            _say(table, f"The rerolled die shows {action.values[0]}.", seat)
        else:
            if table.die_for == seat:
                table.attack_bonus += action.values[0]
                table.phase = Phase.ATTACK
            else:
                table.defense_bonus += action.values[0]
                table.phase = Phase.DEFEND
            table.die_for = -1
            _say(table, f"The die adds {action.values[0]} to the force.")
    elif isinstance(action, RollDice):
        table.phase = Phase.DICE
        _say(table, f"{name} rolls.", seat)
    elif isinstance(action, Discard):
        card = _remove_card(table, seat, action.kind)
        _say(table, f"{name} discarded {card_of(card).name}.", seat)
        if len(table.hands[seat]) <= hand_limit(table.positions, seat):
            table.phase = Phase.ESPIONAGE
    elif isinstance(action, Pass):
        _pass(table)
    elif isinstance(action, Build):
        _rebuild(table, action.unit)
        table.builds -= 1
        _say(table, f"{name} rebuilt {unit_name(action.unit)} on its homeworld.", seat)
        _after_build(table)
    elif isinstance(action, Move):
        before = table.positions[action.unit]
        _take_die(table, action.die)
        _step_units(table, [action.unit], action.die, forwards=True)
        _say(
            table,
            f"{name} moved {unit_name(action.unit)} from {sector_name(before)} to "
            f"{sector_name(table.positions[action.unit])}.",
            seat,
        )
    elif isinstance(action, Keep):
        _keep(table, action.units)
    elif isinstance(action, Play):
        _play(table, action)
    else:
        raise IllegalActionError(f"{action} is not an action of space")


def _rebuild(table: _Table, unit: int) -> None:
    positions = list(table.positions)
    positions[unit] = HOMEWORLD[owner(unit)]
    table.positions = tuple(positions)


def _after_build(table: _Table) -> None:
    if not _freeze(table).scrapped(table.turn_seat):
        _to_jam(table)


_PASS_TEXT = {
    Phase.ESPIONAGE: "{other} does not play Espionage.",
    Phase.ROLL_CARDS: "{name} keeps the roll.",
    Phase.BUILD: "{name} ends the build phase.",
    Phase.JAM: "{other} does not play Jam Transmission.",
    Phase.ATTACK: "{name} plays no more attack cards.",
    Phase.DEFEND: "{other} plays no more defense cards.",
}


def _pass(table: _Table) -> None:
    seat = table.turn_seat
    phase = table.phase
    if phase in _PASS_TEXT:
        _say(table, _PASS_TEXT[phase].format(name=SIDES[seat], other=SIDES[1 - seat]), _decider(table))
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


def _keep(table: _Table, kept: Sequence[int]) -> None:
    sector = table.fight_sector
    positions = list(table.positions)
    lost = [
        u
        for u, where in enumerate(positions)
        if where == sector and owner(u) == table.keep_seat and u not in kept
    ]
    for u in lost:
        positions[u] = SCRAP
    table.positions = tuple(positions)
    words = ", ".join(unit_label(u) for u in kept)
    _say(
        table, f"{SIDES[table.keep_seat]} keeps {words}" + (f"; {len(lost)} more destroyed." if lost else ".")
    )
    _next_fight(table, sector)


def _play(table: _Table, action: Play) -> None:
    seat = _decider(table)
    card = action.card
    _remove_card(table, seat, card.kind)
    name = SIDES[seat]
    _say(table, f"{name} played {card.name}.", seat)
    if card is C.MAJOR_OFFENSIVE:
        for kind in action.discards:
            _remove_card(table, seat, kind)
        table.extra_turns += 1
        _say(table, f"It discarded {CARDS[action.discards[0]].name} and {CARDS[action.discards[1]].name}.")
        if table.phase is Phase.DISCARD and len(table.hands[seat]) <= hand_limit(table.positions, seat):
            table.phase = Phase.ESPIONAGE
    elif card is C.ESPIONAGE:
        table.spy = (seat, table.hands[1 - seat])
        table.phase = Phase.ROLL
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
        state = _freeze(table)
        units = [u for u in state.units_at(action.sector, seat) if state.movable(u)]
        _take_die(table, action.die)
        _step_units(table, units, action.die, forwards=True)
        _say(table, f"{len(units)} units moved from {sector_name(action.sector)} by {action.die}.")
    elif card is C.SPACE_COMBAT_TACTICS:
        assert action.unit is not None and action.die is not None
        _take_die(table, action.die)
        _step_units(table, [action.unit], action.die, forwards=False)
        _say(table, f"{unit_name(action.unit)} moved back to {sector_name(table.positions[action.unit])}.")
    elif card is C.DEFEND_THE_HOMEWORLD:
        assert action.unit is not None
        _rebuild(table, action.unit)
        moved = {u: (n, s) for u, n, s in table.moved}
        moved[action.unit] = (2, True)
        table.moved = tuple(sorted((u, n, s) for u, (n, s) in moved.items()))
        _say(table, f"{unit_name(action.unit)} jumped to its homeworld.")
    elif card is C.HOLD_POSITION:
        assert action.die is not None
        _take_die(table, action.die)
        _say(table, f"The {action.die} is not used.")
    elif card.timing is Timing.ATTACK:
        _fight_card(table, card, attacker=True)
    elif card.timing is Timing.DEFENSE:
        _fight_card(table, card, attacker=False)


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
    return (
        1 - table.turn_seat if table.phase in WINDOW_PHASES else table.turn_seat
    )


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
            last=state.last_text,
            phase_words=state.phase_text,
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
        }


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
