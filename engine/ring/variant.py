"""The ring game's ``Variant``: new games, notation, saved states."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.errors import (
    CorruptStateError,
    NotationError,
)
from engine.protocol import (
    Action,
    EndReason,
    GameState,
    Outcome,
    TurnConfirmation,
    Variant,
)
from engine.ring.rules import (
    COLOURS,
    SCHEMA,
    SPACES,
    START_SPACES,
    TOKENS,
    Knock,
    LastEvent,
    Mark,
    MarkKind,
    Move,
    Opening,
    Phase,
    RingWin,
    Roll,
    Swap,
)
from engine.ring.state import RingState
from engine.saved import SavedReader

# ---------------------------------------------------------------------------------------------
# The variant


_NOTATION = (
    (re.compile(r"^start ([1-6])-([1-6])$"), lambda m: Opening(int(m[1]), int(m[2]))),
    (re.compile(r"^roll ([1-6])-([1-6])-([1-6])$"), lambda m: Roll(int(m[1]), int(m[2]), int(m[3]))),
    (re.compile(r"^swap (\d{1,2}) (\d{1,2})$"), lambda m: Swap(int(m[1]), int(m[2]))),
    (re.compile(r"^knock (\d{1,2})$"), lambda m: Knock(int(m[1]))),
    (
        re.compile(r"^move (\d{1,2}) from (\d{1,2}) by ([1-6])$"),
        lambda m: Move(int(m[2]), int(m[1]), int(m[3])),
    ),
)


class RingVariant(Variant):
    key: ClassVar[str] = "ring"
    title: ClassVar[str] = "Ring"
    seat_names: ClassVar[tuple[str, str]] = COLOURS
    win_reasons: ClassVar[type[EndReason]] = RingWin
    schema_version: ClassVar[int] = SCHEMA
    # The two or three steps of a turn may be taken back until the last one, which ends the turn.
    turn_confirmation: ClassVar[TurnConfirmation] = TurnConfirmation.LAST_STEP

    def new_game(self, options: Mapping[str, Any] | None = None) -> RingState:
        self.resolve_options(options)
        board = [0] * SPACES
        for seat, spaces in enumerate(START_SPACES):
            for s in spaces:
                board[s - 1] = 1 if seat == 0 else -1
        return RingState(board=tuple(board), piles=(9, 9), phase=Phase.OPENING, turn_seat=None)

    def parse_action(self, state: GameState, text: str) -> Action:
        cleaned = " ".join(text.strip().lower().split())
        for pattern, build in _NOTATION:
            m = pattern.match(cleaned)
            if m:
                action: Action = build(m)
                for space in _spaces_of(action):
                    if not 1 <= space <= SPACES:
                        raise NotationError(f"there is no space {space}: spaces are numbered 1 to 12")
                return action
        raise NotationError(
            f"cannot read {text!r} as a ring action (examples: 'roll 5-5-2', 'swap 7 8', 'knock 8', "
            "'move 2 from 7 by 3')"
        )

    def from_json(self, data: Mapping[str, Any]) -> RingState:
        state = SAVED.read(_state_from_json, data)
        expected = dict(data)
        if "turn_events" not in expected:  # a state saved before the turn's events were kept
            last = expected.get("last")
            expected["turn_events"] = [last] if last is not None else []
        if state.to_json() != expected:
            raise CorruptStateError("the saved ring game has fields that do not belong to a ring state")
        return state


def _spaces_of(action: Action) -> tuple[int, ...]:
    if isinstance(action, Swap):
        return (action.own, action.enemy)
    if isinstance(action, Knock):
        return (action.space,)
    if isinstance(action, Move):
        return (action.source,)
    return ()


SAVED = SavedReader("the saved ring game")


def _state_from_json(data: Mapping[str, Any]) -> RingState:
    if data.get("game") != "ring":
        raise CorruptStateError(f"the saved state is not a ring game (game: {data.get('game')!r})")
    if data.get("schema") != SCHEMA:
        raise CorruptStateError(
            f"the saved ring game has schema {data.get('schema')!r}; this bot reads {SCHEMA}"
        )
    board = tuple(SAVED.number(v, -TOKENS, TOKENS, "stack") for v in data["board"])
    if len(board) != SPACES:
        raise CorruptStateError("the saved ring board does not have 12 spaces")
    piles = tuple(SAVED.number(v, 0, TOKENS, "pile") for v in data["piles"])
    if len(piles) != 2:
        raise CorruptStateError("the saved ring game does not have two piles")
    if (
        sum(v for v in board if v > 0) + piles[0] != TOKENS
        or -sum(v for v in board if v < 0) + piles[1] != TOKENS
    ):
        raise CorruptStateError("the saved ring game does not hold 12 tokens per player")
    phase = Phase(data["phase"])
    turn = None if data["turn"] is None else SAVED.number(data["turn"], 0, 1, "turn")
    if (turn is None) != (phase is Phase.OPENING):
        raise CorruptStateError("the saved ring game's turn does not match its phase")
    dice = None if data["dice"] is None else tuple(SAVED.number(v, 1, 6, "die") for v in data["dice"])
    if dice is not None and len(dice) != 3:
        raise CorruptStateError("the saved ring game has a roll without three dice")
    dice_left = tuple(SAVED.number(v, 1, 6, "die") for v in data["dice_left"])
    if (phase is Phase.MOVE) != bool(dice_left) or len(dice_left) > 2:
        raise CorruptStateError("the saved ring game's dice to play do not match its phase")
    opening = (
        None
        if data["opening"] is None
        else tuple(SAVED.number(v, 1, 6, "opening die") for v in data["opening"])
    )
    if opening is not None and len(opening) != 2:
        raise CorruptStateError("the saved ring game's opening roll does not have two dice")
    last = None if data["last"] is None else _event_from_json(data["last"])
    if "turn_events" in data:
        turn_events = tuple(_event_from_json(raw) for raw in data["turn_events"])
        if (turn_events[-1] if turn_events else None) != last:
            raise CorruptStateError("the saved ring game's last action is not the last of its turn")
    else:
        # Saved before the state kept the whole turn: all that is known of the turn is its last action.
        turn_events = (last,) if last is not None else ()
    result = None if data["outcome"] is None else Outcome.from_json(data["outcome"], VARIANT)
    if (result is not None) != (phase is Phase.OVER):
        raise CorruptStateError("the saved ring game's result does not match its phase")
    return RingState(
        board=board,
        piles=(piles[0], piles[1]),
        phase=phase,
        turn_seat=turn,
        dice=(dice[0], dice[1], dice[2]) if dice is not None else None,
        dice_left=dice_left,
        turn_number=SAVED.number(data["turn_number"], 0, 10**9, "turn number"),
        opening=(opening[0], opening[1]) if opening is not None else None,
        last=last,
        result=result,
        turn_events=turn_events,
    )


def _event_from_json(raw: Mapping[str, Any]) -> LastEvent:
    seat = None if raw["seat"] is None else SAVED.number(raw["seat"], 0, 1, "seat")
    marks = tuple(
        Mark(
            MarkKind(kind),
            SAVED.number(space, 1, SPACES, "space"),
            SAVED.number(count, 0, TOKENS * 2, "count"),
        )
        for kind, space, count in raw["marks"]
    )
    return LastEvent(seat=seat, notation=str(raw["notation"]), text=str(raw["text"]), marks=marks)


VARIANT = RingVariant()
