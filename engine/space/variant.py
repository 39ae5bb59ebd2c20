"""``space`` as a ``Variant``: its key, rule sets and saved states."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from engine.errors import CorruptStateError
from engine.protocol import Action, EndReason, GameState, Outcome, TurnConfirmation, Variant
from engine.saved import SavedReader
from engine.space.actions import parse
from engine.space.board import SECTORS, SIDES, UNITS_PER_SIDE, contested, owner
from engine.space.cards import CARDS, DECK_SIZE
from engine.space.game import (
    SCHEMA,
    FightRecord,
    LastEvent,
    MoveRecord,
    Phase,
    SpaceState,
    SpaceWin,
    new_state,
)


class SpaceVariant(Variant):
    key: ClassVar[str] = "space"
    title: ClassVar[str] = "Space"
    seat_names: ClassVar[tuple[str, str]] = (SIDES[0], SIDES[1])
    win_reasons: ClassVar[type[EndReason]] = SpaceWin
    schema_version: ClassVar[int] = SCHEMA
    turn_confirmation: ClassVar[TurnConfirmation] = TurnConfirmation.EACH_STEP
    notation_help: ClassVar[str] = (
        "Write moves like 'move T3 by 5', cards like 'play ion-thrusters on 3', and 'pass' to end a phase."
    )

    def new_game(self, options: Mapping[str, Any] | None = None) -> SpaceState:
        self.resolve_options(options)
        return new_state()

    def parse_action(self, state: GameState, text: str) -> Action:
        return parse(text)

    def from_json(self, data: Mapping[str, Any]) -> SpaceState:
        state = SAVED.read(_read, data)
        if state.to_json() != _with_defaults(data):
            raise CorruptStateError("the saved space game has fields that do not belong to a space state")
        return state


_ADDED_KEYS: dict[str, Any] = {"turn_moves": [], "last_fight": None}
"""Keys added to the saved form after schema 1 was first written, with the value an older save means
(no moves recorded, no fight recorded; its last words are the same for every viewer)."""


def _with_defaults(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with the keys an older save of the same schema lacks filled in as it means them."""
    full = {**_ADDED_KEYS, **data}
    last = full.get("last")
    if isinstance(last, dict) and "own" not in last:
        full["last"] = {**last, "own": ["", ""]}
    return full


_BEFORE_MOVE = frozenset(
    {
        Phase.DISCARD,
        Phase.ESPIONAGE,
        Phase.ROLL,
        Phase.DICE,
        Phase.ROLL_CARDS,
        Phase.REROLL,
        Phase.BUILD,
        Phase.JAM,
    }
)


SAVED = SavedReader("the saved space game")


def _read(saved: Mapping[str, Any]) -> SpaceState:
    data = _with_defaults(saved)
    _check_game(data)
    positions = SAVED.numbers(data["positions"], 0, SECTORS, "unit position")
    if len(positions) != 2 * UNITS_PER_SIDE:
        raise CorruptStateError("the saved space game does not have 15 units a side")
    deck, hands, vortex = _read_cards(data)
    phase = Phase(data["phase"])
    dice, bonus, dice_left = _read_dice(data)
    moved = _read_moved(data["moved"])
    spy = _read_spy(data["spy"])
    last = _read_last(data["last"])
    result = None if data["outcome"] is None else Outcome.from_json(data["outcome"], VARIANT)
    if (result is not None) != (phase is Phase.OVER):
        raise CorruptStateError("the saved space game's result does not match its phase")
    marks = _read_phase_marks(data, phase, dice, vortex)
    turn = SAVED.number(data["turn"], 0, 1, "turn")
    jammed = SAVED.numbers(data["jammed"], 0, 29, "jammed unit")
    if any(owner(u) != turn for u in jammed) or any(owner(u) != turn for u, _, _ in moved):
        raise CorruptStateError("the saved space game moves or jams a unit of the player not on turn")
    if spy is not None and spy[0] == turn:
        raise CorruptStateError("the saved space game has the player on turn spying on itself")
    if phase in _BEFORE_MOVE and contested(positions):
        raise CorruptStateError("the saved space game has both sides in one sector before the move")
    turn_moves = tuple(_move_record(raw) for raw in data["turn_moves"])
    last_fight = None if data["last_fight"] is None else _fight_record(data["last_fight"])
    return SpaceState(
        positions=positions,
        deck=deck,
        hands=(hands[0], hands[1]),
        vortex=vortex,
        phase=phase,
        turn_seat=turn,
        turn_number=marks.turn_number,
        to_draw=marks.to_draw,
        dice=dice,
        bonus=bonus,
        dice_left=dice_left,
        hyper=SAVED.flag(data["hyper"], "Hyper Jump"),
        builds=SAVED.number(data["builds"], 0, 1, "builds"),
        reroll=marks.reroll,
        moved=moved,
        jammed=jammed,
        fight_sector=marks.fight_sector,
        attack_bonus=SAVED.number(data["attack_bonus"], 0, 999, "attack bonus"),
        defense_bonus=SAVED.number(data["defense_bonus"], 0, 999, "defense bonus"),
        die_for=marks.die_for,
        keep_seat=marks.keep_seat,
        keep_difference=SAVED.number(data["keep_difference"], 0, 999, "difference"),
        extra_turns=SAVED.number(data["extra_turns"], 0, 99, "extra turns"),
        spy=spy,
        turn_moves=turn_moves,
        last_fight=last_fight,
        last=last,
        result=result,
    )


def _check_game(data: Mapping[str, Any]) -> None:
    """Refuse anything but a saved space game of this schema."""
    if data.get("game") != "space":
        raise CorruptStateError(f"the saved state is not a space game (game: {data.get('game')!r})")
    if data.get("schema") != SCHEMA:
        raise CorruptStateError(
            f"the saved space game has schema {data.get('schema')!r}; this bot reads {SCHEMA}"
        )


_Cards = tuple[int, ...]


def _read_cards(data: Mapping[str, Any]) -> tuple[_Cards, tuple[_Cards, ...], _Cards]:
    """The deck, the two hands (each sorted) and the vortex: each of the 50 cards exactly once."""
    deck = SAVED.numbers(data["deck"], 0, DECK_SIZE - 1, "card")
    hands = tuple(SAVED.numbers(h, 0, DECK_SIZE - 1, "card") for h in data["hands"])
    if len(hands) != 2 or any(list(h) != sorted(h) for h in hands):
        raise CorruptStateError("the saved space game does not have two sorted hands")
    vortex = SAVED.numbers(data["vortex"], 0, DECK_SIZE - 1, "card")
    every = sorted((*deck, *hands[0], *hands[1], *vortex))
    if every != list(range(DECK_SIZE)):
        raise CorruptStateError("the saved space game does not hold each of the 50 cards exactly once")
    return deck, hands, vortex


def _read_dice(data: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The dice (none, 2 or 3), their bonuses and the indices of the dice left, fitting together."""
    dice = SAVED.numbers(data["dice"], 1, 6, "die")
    bonus = SAVED.numbers(data["bonus"], 0, 99, "die bonus")
    dice_left = SAVED.numbers(data["dice_left"], 0, 2, "die index")
    if len(dice) not in (0, 2, 3) or len(bonus) != len(dice) or any(i >= len(dice) for i in dice_left):
        raise CorruptStateError("the saved space game's dice do not fit together")
    if len(set(dice_left)) != len(dice_left):
        raise CorruptStateError("the saved space game lists a die twice")
    return dice, bonus, dice_left


def _read_moved(raw_moved: Any) -> tuple[tuple[int, int, bool], ...]:
    """(unit, dice used, stopped) of each unit moved this turn."""
    moved = []
    for raw in raw_moved:
        u, n, stopped = raw
        moved.append(
            (SAVED.number(u, 0, 29, "unit"), SAVED.number(n, 1, 2, "dice used"), SAVED.flag(stopped, "stop"))
        )
    return tuple(moved)


def _read_spy(spy_raw: Any) -> tuple[int, tuple[int, ...]] | None:
    """The spying seat and the hand it saw, after Espionage."""
    if spy_raw is None:
        return None
    return (SAVED.number(spy_raw[0], 0, 1, "seat"), SAVED.numbers(spy_raw[1], 0, DECK_SIZE - 1, "card"))


def _read_last(last_raw: Any) -> LastEvent | None:
    """The words of the last action, for everyone and per seat."""
    if last_raw is None:
        return None
    seat = None if last_raw["seat"] is None else SAVED.number(last_raw["seat"], 0, 1, "seat")
    own = last_raw["own"]
    if not isinstance(own, list) or len(own) != 2 or not all(isinstance(t, str) for t in own):
        raise CorruptStateError("the saved space game's last words per seat are not two texts")
    return LastEvent(seat, str(last_raw["text"]), (own[0], own[1]))


class _PhaseMarks(NamedTuple):
    """The fields that say where in the turn the game is, each checked against the phase."""

    to_draw: tuple[int, int]
    turn_number: int
    fight_sector: int
    keep_seat: int
    reroll: int
    die_for: int


def _read_phase_marks(
    data: Mapping[str, Any], phase: Phase, dice: tuple[int, ...], vortex: tuple[int, ...]
) -> _PhaseMarks:
    """The cards to draw, the turn number and the marks of a fight, a keep, a reroll and a fight die,
    each fitting the phase (and the dice and the vortex it needs)."""
    to_draw = SAVED.numbers(data["to_draw"], 0, 5, "number of cards to draw")
    if len(to_draw) != 2:
        raise CorruptStateError("the saved space game's cards to draw are not two numbers")
    turn_number = SAVED.number(data["turn_number"], 0, 10**9, "turn number")
    if phase is not Phase.SHUFFLE and phase is not Phase.OVER and turn_number == 0:
        raise CorruptStateError("the saved space game has not started its first turn")
    if phase in (Phase.MOVE, Phase.ROLL_CARDS, Phase.BUILD, Phase.JAM, Phase.REROLL) and not dice:
        raise CorruptStateError("the saved space game is past the roll without dice")
    fight_sector = SAVED.number(data["fight_sector"], 0, SECTORS, "fight sector")
    if phase in (Phase.ATTACK, Phase.DEFEND, Phase.FIGHT_DIE, Phase.KEEP) and fight_sector == 0:
        raise CorruptStateError("the saved space game is in a fight without a sector")
    keep_seat = SAVED.number(data["keep_seat"], -1, 1, "keeping seat")
    if (phase is Phase.KEEP) != (keep_seat >= 0):
        raise CorruptStateError("the saved space game's keeping seat does not match its phase")
    reroll = SAVED.number(data["reroll"], -1, 1, "rerolled die")
    if (phase is Phase.REROLL) != (reroll >= 0):
        raise CorruptStateError("the saved space game's rerolled die does not match its phase")
    die_for = SAVED.number(data["die_for"], -1, 1, "seat of the fight die")
    if (phase is Phase.FIGHT_DIE) != (die_for >= 0):
        raise CorruptStateError("the saved space game's fight die does not match its phase")
    if phase is Phase.SHUFFLE and not vortex:
        raise CorruptStateError("the saved space game waits for a shuffle of an empty vortex")
    return _PhaseMarks((to_draw[0], to_draw[1]), turn_number, fight_sector, keep_seat, reroll, die_for)


_HOW = frozenset({"die", *(c.key for c in CARDS)})


def _move_record(raw: Any) -> MoveRecord:
    number, unit, source, target, die, how = raw
    if how not in _HOW:
        raise CorruptStateError(f"the saved space game has a move by an unknown means: {how!r}")
    return MoveRecord(
        SAVED.number(number, 1, 10**6, "move number"),
        SAVED.number(unit, 0, 2 * UNITS_PER_SIDE - 1, "unit"),
        SAVED.number(source, 1, SECTORS, "sector"),
        SAVED.number(target, 1, SECTORS, "sector"),
        SAVED.number(die, 0, 99, "die"),
        how,
    )


def _fight_record(raw: Mapping[str, Any]) -> FightRecord:
    return FightRecord(
        turn=SAVED.number(raw["turn"], 1, 10**9, "turn number"),
        sector=SAVED.number(raw["sector"], 1, SECTORS, "fight sector"),
        attacker=SAVED.number(raw["attacker"], 0, 1, "seat"),
        attack=SAVED.number(raw["attack"], 0, 999, "attack total"),
        defense=SAVED.number(raw["defense"], 0, 999, "defense total"),
        winner=SAVED.number(raw["winner"], 0, 1, "seat"),
        destroyed=SAVED.numbers(raw["destroyed"], 0, 2 * UNITS_PER_SIDE - 1, "unit"),
        kept=SAVED.numbers(raw["kept"], 0, 2 * UNITS_PER_SIDE - 1, "unit"),
        settled=SAVED.flag(raw["settled"], "fight settled"),
    )


VARIANT = SpaceVariant()
