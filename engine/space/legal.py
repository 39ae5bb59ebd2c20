"""The legal actions of a space position: every action made once for the whole game, and one lister
per phase where a seat decides (``LISTERS``), reading the position only.

Its interface: ``list_actions`` (what ``SpaceState.legal_actions`` lists) and ``why_illegal``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING

from engine.memo import MB, bytes_lru, deep_size
from engine.protocol import (
    Action,
)
from engine.space import cards as C
from engine.space.actions import Build, Dice, Discard, Keep, Move, Pass, Play, RollDice, Shuffle
from engine.space.board import (
    DIRECTION,
    HOMEWORLD,
    SCRAP,
    SECTORS,
    SIDES,
    UNITS_PER_SIDE,
    unit_label,
    units_of,
)
from engine.space.cards import (
    ATTACK_KINDS,
    CARDS,
    DEFENSE_KINDS,
    DIE_BONUS_KINDS,
    MOVE_CARD_KINDS,
    ROLL_CARD_KINDS,
    Target,
)
from engine.space.fights import keep_choices
from engine.space.must_use import after_step, max_dice
from engine.space.state import OWN_TURN_PHASES, WINDOW_PHASES, Phase

if TYPE_CHECKING:
    from engine.space.game import SpaceState


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
_DISCARDS = tuple(Discard(k) for k in range(len(CARDS)))
_BUILDS = tuple(Build(u) for u in range(2 * UNITS_PER_SIDE))
_MOST = 6 + C.COPIES * sum(C.CARDS[k].die_bonus for k in DIE_BONUS_KINDS)
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


def _defend_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    return _window_plays(kinds & DEFENSE_KINDS)


def _attack_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    return _window_plays(kinds & ATTACK_KINDS)


def _discard_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    return tuple([_DISCARDS[k] for k in sorted(kinds)])


def _espionage_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    return _PASS_OR_ESPIONAGE if _ESPIONAGE in kinds else _ONLY_PASS


def _roll_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    if not state.hyper and _HYPER_JUMP in kinds:
        return _ROLL_OR_HYPER_JUMP
    return _ONLY_ROLL


def _roll_card_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    if not kinds & ROLL_CARD_KINDS:
        return _ONLY_PASS
    acts: list[Action] = [_PASS]
    shown = [d + b for d, b in zip(state.dice, state.bonus, strict=True)]
    values = sorted(set(shown))
    if _BATTLE_COMPUTERS in kinds:
        normal = sorted(set(shown[:2]))  # not the Hyper Jump die
        by_die = _BY_DIE[_BATTLE_COMPUTERS]
        acts += [by_die[v] for v in normal]
    for kind in DIE_BONUS_KINDS:
        if kind in kinds:
            by_die = _BY_DIE[kind]
            acts += [by_die[v] for v in values]
    return tuple(acts)


def _build_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    acts: list[Action] = [_PASS]
    if state.builds > 0:
        acts += [_BUILDS[u] for u in state.scrapped(seat)]
    if _REINFORCEMENTS in kinds:
        by_unit = _BY_UNIT[_REINFORCEMENTS]
        acts += [by_unit[u] for u in state.scrapped(seat)]
    return tuple(acts)


def _jam_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    if _JAM_TRANSMISSION not in kinds:
        return _ONLY_PASS
    by_unit = _BY_UNIT[_JAM_TRANSMISSION]
    jammed = state.jammed
    positions = state.positions
    return (
        _PASS,
        *(by_unit[u] for u in units_of(state.turn_seat) if positions[u] != SCRAP and u not in jammed),
    )


def _keep_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    return _keeps(tuple(state.units_at(state.fight_sector, state.keep_seat)), state.keep_difference)


def _major_offensive_plays(state: SpaceState, seat: int) -> tuple[Play, ...]:
    return _major_offensives(tuple(state.hand_kinds(seat)))


def _move_actions(state: SpaceState, seat: int, kinds: frozenset[int]) -> tuple[Action, ...]:
    dice = state.dice_values_left()
    if not dice:
        acts: list[Action] = [_PASS]
        free: list[int] = []
        values: list[int] = []
    else:
        values = sorted(set(dice))
        free = state.free_units()
        if len(free) >= len(dice):
            # A unit for every die: any unit may take any die (the must-use rule keeps nothing out).
            rows = _MOVE_ROWS
            acts = [rows[u][v] for u in free for v in values]
        else:
            acts = _must_use_moves(state, seat, dice, values)
    if kinds & MOVE_CARD_KINDS:
        acts += _move_card_plays(state, seat, kinds, free, values)
    return tuple(acts)


def _must_use_moves(state: SpaceState, seat: int, dice: tuple[int, ...], values: list[int]) -> list[Action]:
    """The plain moves when fewer units than dice are free to move: those that keep the dice in
    use as fully as possible (the must-use rule), and ``pass`` if no die can be used."""
    acts: list[Action] = []
    entries = state.movers()
    movers = tuple(sorted(m for _, m in entries))
    usable = max_dice(movers, dice, state.enemy_sectors(), DIRECTION[seat])
    if usable == 0:
        acts.append(_PASS)
    allowed: dict[tuple[tuple[int, int], int], bool] = {}
    for u, mover in entries:
        for v in values:
            key = (mover, v)
            ok = allowed.get(key)
            if ok is None:
                ok = allowed[key] = _keeps_dice_in_use(state, movers, mover, v, dice, usable)
            if ok:
                acts.append(_move(u, v))
    return acts


def _move_card_plays(
    state: SpaceState, seat: int, kinds: frozenset[int], free: list[int], values: list[int]
) -> list[Action]:
    """The plays of the move-phase cards held (``free``: the units free to move, ``values``:
    the distinct dice left)."""
    acts: list[Action] = []
    if _STRATEGIC_MOVE in kinds:
        sectors = sorted({state.positions[u] for u in free})
        acts += [_STRATEGIC_ROWS[s][v] for s in sectors for v in values]
    if _SPACE_COMBAT_TACTICS in kinds:
        acts += [_SCT_ROWS[u][v] for u in free for v in values]
    if _DEFEND_THE_HOMEWORLD in kinds:
        home = HOMEWORLD[seat]
        by_unit = _BY_UNIT[_DEFEND_THE_HOMEWORLD]
        acts += [
            by_unit[u]
            for u in units_of(seat)
            if state.positions[u] not in (SCRAP, home) and u not in state.jammed
        ]
    if _HOLD_POSITION in kinds:
        by_die = _BY_DIE[_HOLD_POSITION]
        acts += [by_die[v] for v in values]
    return acts


def _keeps_dice_in_use(
    state: SpaceState,
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
    enemy = state.enemy_sectors()
    direction = DIRECTION[state.turn_seat]
    rest = list(dice)
    rest.remove(value)
    after = after_step(movers, mover, value, enemy, direction)
    return 1 + max_dice(after, tuple(rest), enemy, direction) == usable


def why_illegal(state: SpaceState, action: Action) -> str:
    if isinstance(action, Shuffle | Dice):
        return "no dice are rolled and no deck is shuffled now"
    who = SIDES[state.to_move()]
    if isinstance(action, Play):
        card = action.card
        if not state.holds(state.to_move(), card.kind):
            return f"{who} holds no {card.name} card"
        return f"{card.name} cannot be played like that now ({card.timing.value}); {state.phase_text}"
    if isinstance(action, Move) and state.phase is Phase.MOVE:
        if not state.movable(action.unit):
            return f"{unit_label(action.unit)} cannot move now"
        if action.die not in state.dice_values_left():
            return f"there is no die {action.die} left to play"
        return "that move would leave a die unused although both can be played (use the dice)"
    if isinstance(action, Pass) and state.phase is Phase.MOVE:
        return "the dice must be used while a unit can move with them"
    return f"{action.notation!r} is not allowed now: {state.phase_text}"


LISTERS: dict[Phase, Callable[[SpaceState, int, frozenset[int]], tuple[Action, ...]]] = {
    Phase.DISCARD: _discard_actions,
    Phase.ESPIONAGE: _espionage_actions,
    Phase.ROLL: _roll_actions,
    Phase.ROLL_CARDS: _roll_card_actions,
    Phase.BUILD: _build_actions,
    Phase.JAM: _jam_actions,
    Phase.MOVE: _move_actions,
    Phase.ATTACK: _attack_actions,
    Phase.DEFEND: _defend_actions,
    Phase.KEEP: _keep_actions,
}
"""The deciding seat's actions in each phase where a seat decides (the chance steps have none)."""


def list_actions(state: SpaceState) -> tuple[Action, ...]:
    """Every action of the seat deciding in ``state``, listed afresh (``SpaceState.legal_actions``
    keeps the list with the state): its phase's lister, and Major Offensive in the phases of the
    player's own turn."""
    phase = state.phase
    lister = LISTERS.get(phase)
    if lister is None or state.result is not None:  # a chance step, or the end
        return ()
    turn_seat = state.turn_seat
    seat = 1 - turn_seat if phase in WINDOW_PHASES else state.keep_seat if phase is Phase.KEEP else turn_seat
    kinds = _kinds_held(state.hands[seat])
    listed = lister(state, seat, kinds)
    if _MAJOR_OFFENSIVE in kinds and phase in OWN_TURN_PHASES and seat == turn_seat:
        listed += _major_offensive_plays(state, seat)
    return listed
