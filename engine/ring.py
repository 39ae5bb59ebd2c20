"""``ring``: a 12-space ring with stacks, two white dice and a black modifier die, seven ways to win.

Rules text: shared/seeds/000_d360d664f56b54b2.txt, decided where open by RULINGS.md (ring).
Seat 0 is Red, seat 1 is Blue. The board is 12 signed counts: positive for Red, negative for Blue.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, ClassVar

from engine.errors import (
    CorruptStateError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
)
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
    TurnConfirmation,
    Variant,
)

SPACES = 12
TOKENS = 12
SCHEMA = 1
COLOURS = ("Red", "Blue")
START_SPACES = ((7, 9, 11), (8, 10, 12))


class Phase(Enum):
    OPENING = "opening"
    ROLL = "roll"
    SWAP = "swap"
    KNOCK = "knock"
    MOVE = "move"
    OVER = "over"


# ---------------------------------------------------------------------------------------------
# Win conditions, in the order the rules text lists them (ruling 10).


class RingWin(EndReason):
    """The seven ways to win a ring game (the saved result's reason key)."""

    ALL_CAPTURED = "all-captured"
    NINE_SPACES = "nine-spaces"
    SPACES_12_1_2_3 = "spaces-12-1-2-3"
    SPACES_3_4_5_6 = "spaces-3-4-5-6"
    SPACES_6_7_8_9 = "spaces-6-7-8-9"
    SPACES_9_10_11_12 = "spaces-9-10-11-12"
    FIVE_IN_A_ROW = "five-in-a-row"


@dataclass(frozen=True, slots=True)
class WinCondition:
    key: RingWin
    text: str
    mask: int = 0  # spaces that must all be occupied (bit i = space i+1); 0 for the special ones


def _mask(spaces: Sequence[int]) -> int:
    bits = 0
    for s in spaces:
        bits |= 1 << (s - 1)
    return bits


QUARTERS = (
    WinCondition(RingWin.SPACES_12_1_2_3, "occupies spaces 12, 1, 2 and 3", _mask((12, 1, 2, 3))),
    WinCondition(RingWin.SPACES_3_4_5_6, "occupies spaces 3, 4, 5 and 6", _mask((3, 4, 5, 6))),
    WinCondition(RingWin.SPACES_6_7_8_9, "occupies spaces 6, 7, 8 and 9", _mask((6, 7, 8, 9))),
    WinCondition(RingWin.SPACES_9_10_11_12, "occupies spaces 9, 10, 11 and 12", _mask((9, 10, 11, 12))),
)
ALL_CAPTURED = WinCondition(RingWin.ALL_CAPTURED, "leaves the opponent no token on the board")
NINE_SPACES = WinCondition(RingWin.NINE_SPACES, "occupies 9 spaces")
FIVE_IN_A_ROW = WinCondition(RingWin.FIVE_IN_A_ROW, "occupies 5 spaces in a row")
WIN_CONDITIONS = (ALL_CAPTURED, NINE_SPACES, *QUARTERS, FIVE_IN_A_ROW)
WIN_KEYS = tuple(c.key for c in WIN_CONDITIONS)
# Five in a row includes runs across 12-1 (ruling 10): starts 1..12, wrapping.
FIVE_MASKS = tuple(
    (_mask([((start - 1 + i) % SPACES) + 1 for i in range(5)]), start) for start in range(1, 13)
)


def _occupied(board: Sequence[int], seat: int) -> int:
    bits = 0
    for i, v in enumerate(board):
        if (v > 0) if seat == 0 else (v < 0):
            bits |= 1 << i
    return bits


def can_step(board: Sequence[int], sign: int, die: int) -> bool:
    """Whether the side ``sign`` (+1 Red, -1 Blue) has any step with ``die`` on ``board`` (ruling 8:
    a group lands on an empty or own space, or on an enemy stack no larger than itself)."""
    for i, v in enumerate(board):
        mine = v * sign
        if mine > 0:
            target_value = board[(i + die) % SPACES] * sign
            if target_value >= 0 or mine >= -target_value:
                return True
    return False


def winning_condition(board: Sequence[int], seat: int) -> tuple[WinCondition, str] | None:
    """The first listed condition ``seat`` satisfies on ``board``, with its sentence, or ``None``."""
    enemy = _occupied(board, 1 - seat)
    if enemy == 0:
        return ALL_CAPTURED, ALL_CAPTURED.text
    mine = _occupied(board, seat)
    if mine.bit_count() >= 9:
        return NINE_SPACES, NINE_SPACES.text
    for quarter in QUARTERS:
        if mine & quarter.mask == quarter.mask:
            return quarter, quarter.text
    for mask, start in FIVE_MASKS:
        if mine & mask == mask:
            end = (start + 3) % SPACES + 1
            return FIVE_IN_A_ROW, f"occupies 5 spaces in a row ({start} to {end})"
    return None


# ---------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Opening(Action):
    """Chance: each player's single die for the right to start (Red's first)."""

    red: int
    blue: int

    @property
    def notation(self) -> str:
        return f"start {self.red}-{self.blue}"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    """Chance: the two white dice and the black modifier die."""

    white1: int
    white2: int
    black: int

    @property
    def notation(self) -> str:
        return f"roll {self.white1}-{self.white2}-{self.black}"

    @property
    def values(self) -> tuple[int, int, int]:
        return (self.white1, self.white2, self.black)


@dataclass(frozen=True, slots=True)
class Swap(Action):
    """Odds: exchange the contents of one own space and one enemy space."""

    own: int
    enemy: int

    @property
    def notation(self) -> str:
        return f"swap {self.own} {self.enemy}"


@dataclass(frozen=True, slots=True)
class Knock(Action):
    """Evens: send one enemy stack back to its owner's pile."""

    space: int

    @property
    def notation(self) -> str:
        return f"knock {self.space}"


@dataclass(frozen=True, slots=True)
class Move(Action):
    """One step of the move phase: ``count`` tokens from ``source`` clockwise by ``die``."""

    source: int
    count: int
    die: int

    @property
    def notation(self) -> str:
        return f"move {self.count} from {self.source} by {self.die}"

    @property
    def target(self) -> int:
        return advance(self.source, self.die)


def advance(space: int, steps: int) -> int:
    """The space ``steps`` clockwise from ``space`` (12 is followed by 1)."""
    return (space - 1 + steps) % SPACES + 1


# ---------------------------------------------------------------------------------------------
# What the actions of the current turn did, kept in the state so the board picture can show them.


class MarkKind(Enum):
    FROM = "from"
    TO = "to"
    CAPTURE = "capture"
    PLACE = "place"
    SWAP = "swap"
    KNOCK = "knock"


@dataclass(frozen=True, slots=True)
class Mark:
    """One highlighted space of an action; ``count`` tokens were involved."""

    kind: MarkKind
    space: int
    count: int

    def to_json(self) -> list[Any]:
        return [self.kind.value, self.space, self.count]


@dataclass(frozen=True, slots=True)
class LastEvent:
    """One action: who did it, what it was, its effects in words and as marks."""

    seat: int | None
    notation: str
    text: str
    marks: tuple[Mark, ...] = ()

    def to_json(self) -> JSONDict:
        return {
            "seat": self.seat,
            "notation": self.notation,
            "text": self.text,
            "marks": [m.to_json() for m in self.marks],
        }


# ---------------------------------------------------------------------------------------------
# The state


def _count(n: int, noun: str = "token") -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


_NUMBER_WORDS = {1: "one", 2: "two"}


@dataclass(frozen=True, slots=True)
class RingState(GameState, GameView):
    """A ring position. Ring has no secrets: the position is its own view for every seat."""

    board: tuple[int, ...]
    piles: tuple[int, int]
    phase: Phase
    turn_seat: int | None
    dice: tuple[int, int, int] | None = None
    dice_left: tuple[int, ...] = ()
    turn_number: int = 0
    opening: tuple[int, int] | None = None
    last: LastEvent | None = None
    result: Outcome | None = None
    turn_events: tuple[LastEvent, ...] = ()
    """Every action of the current turn in order, ``last`` being the final one: the roll (or the
    opening roll) and each step after it (a swap, a knock-out, each move). A roll starts it afresh,
    so once a turn has ended it holds that whole turn until the next player rolls."""

    variant_key: ClassVar[str] = "ring"

    # -- reading the board ---------------------------------------------------------------------

    def stack(self, space: int) -> tuple[int | None, int]:
        """(owner seat or None, token count) on ``space``."""
        v = self.board[space - 1]
        if v > 0:
            return 0, v
        if v < 0:
            return 1, -v
        return None, 0

    def stacks_of(self, seat: int) -> tuple[int, ...]:
        """The spaces where ``seat`` has a stack, in increasing order."""
        return tuple(i + 1 for i, v in enumerate(self.board) if (v > 0 if seat == 0 else v < 0))

    def on_board(self, seat: int) -> int:
        return sum(v for v in self.board if v > 0) if seat == 0 else -sum(v for v in self.board if v < 0)

    # -- protocol --------------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        return self.turn_seat

    def to_move(self) -> int:
        if self.phase in (Phase.OPENING, Phase.ROLL):
            return CHANCE
        assert self.turn_seat is not None
        return self.turn_seat

    def chance(self) -> ChanceSpec | None:
        if self.phase is Phase.OPENING:
            return ChanceSpec(ChanceKind.DICE, count=2, sides=6, prompt_seat=None, label="Roll to start")
        if self.phase is Phase.ROLL:
            return ChanceSpec(ChanceKind.DICE, count=3, sides=6, prompt_seat=self.turn_seat, label="Roll")
        return None

    def chance_action(self, outcome: Sequence[int]) -> Action:
        spec = self.chance()
        if spec is None:
            raise IllegalActionError("no dice are to be rolled now")
        values = spec.check(outcome)
        if self.phase is Phase.OPENING:
            return Opening(values[0], values[1])
        return Roll(values[0], values[1], values[2])

    def legal_actions(self) -> tuple[Action, ...]:
        if self.phase is Phase.SWAP:
            assert self.turn_seat is not None
            own, enemy = self.stacks_of(self.turn_seat), self.stacks_of(1 - self.turn_seat)
            return tuple(Swap(a, b) for a in own for b in enemy)
        if self.phase is Phase.KNOCK:
            assert self.turn_seat is not None
            return tuple(Knock(s) for s in self.stacks_of(1 - self.turn_seat))
        if self.phase is Phase.MOVE:
            return tuple(self._legal_moves())
        return ()

    def outcome(self) -> Outcome | None:
        return self.result

    def apply(self, action: Action) -> RingState:
        if self.result is not None:
            raise GameOverError("the game is over: no more actions can be played")
        if self.phase is Phase.OPENING:
            if not isinstance(action, Opening):
                raise NotYourTurnError("the game has not started: the opening roll decides who goes first")
            self.chance_action((action.red, action.blue))
            return self._recorded(self._apply_opening(action), starts_turn=True)
        if self.phase is Phase.ROLL:
            if not isinstance(action, Roll):
                raise IllegalActionError(f"{self._name()} must roll the dice first")
            self.chance_action(action.values)
            return self._recorded(self._apply_roll(action), starts_turn=True)
        if isinstance(action, Opening | Roll):
            raise IllegalActionError("the dice have already been rolled this turn")
        if action not in self.legal_actions():
            raise IllegalActionError(self._why_illegal(action))
        if isinstance(action, Swap):
            return self._recorded(self._apply_swap(action))
        if isinstance(action, Knock):
            return self._recorded(self._apply_knock(action))
        if isinstance(action, Move):
            return self._recorded(self._apply_move(action))
        raise IllegalActionError(f"{action} is not an action of this game")

    def to_json(self) -> JSONDict:
        return {
            "schema": SCHEMA,
            "game": self.variant_key,
            "board": list(self.board),
            "piles": list(self.piles),
            "phase": self.phase.value,
            "turn": self.turn_seat,
            "dice": list(self.dice) if self.dice is not None else None,
            "dice_left": list(self.dice_left),
            "turn_number": self.turn_number,
            "opening": list(self.opening) if self.opening is not None else None,
            "last": self.last.to_json() if self.last is not None else None,
            "turn_events": [event.to_json() for event in self.turn_events],
            "outcome": self.result.to_json() if self.result is not None else None,
        }

    def describe(self, action: Action) -> str:
        name = self._name()
        if isinstance(action, Opening):
            return f"Red rolls {action.red}, Blue rolls {action.blue} for the start"
        if isinstance(action, Roll):
            return f"roll {action.white1}-{action.white2}-{action.black}"
        if isinstance(action, Swap):
            _, mine = self.stack(action.own)
            _, theirs = self.stack(action.enemy)
            return (
                f"swap your stack of {mine} on {action.own} with "
                f"{self._enemy_name()}'s stack of {theirs} on {action.enemy}"
            )
        if isinstance(action, Knock):
            _, n = self.stack(action.space)
            return f"knock {self._enemy_name()}'s stack of {n} on {action.space} out of play"
        if isinstance(action, Move):
            _, n = self.stack(action.source)
            what = (
                "your token"
                if n == 1
                else (
                    f"all {n} of your tokens" if action.count == n else f"{action.count} of your {n} tokens"
                )
            )
            return f"move {what} from {action.source} to {action.target} (die {action.die})"
        return f"{name}: {action}"

    def _recorded(self, after: RingState, starts_turn: bool = False) -> RingState:
        """``after`` with its final event (``last``) added to the turn's events, or starting them."""
        assert after.last is not None
        events = (after.last,) if starts_turn else (*self.turn_events, after.last)
        return replace(after, turn_events=events)

    @property
    def last_text(self) -> str | None:
        return self.last.text if self.last is not None else None

    @property
    def phase_text(self) -> str:
        if self.result is not None:
            return self.result.description
        if self.phase is Phase.OPENING:
            return "Each player rolls one die: the higher starts"
        name = self._name()
        if self.phase is Phase.ROLL:
            return f"{name} to roll"
        if self.phase is Phase.SWAP:
            return f"{name} rolled odds: swap a {name} stack with a {self._enemy_name()} stack"
        if self.phase is Phase.KNOCK:
            return f"{name} rolled evens: knock a {self._enemy_name()} stack out of play"
        dice = " and ".join(str(d) for d in self.dice_left)
        return f"{name} to move: {dice} to play"

    # -- helpers -----------------------------------------------------------------------------------

    def _name(self, seat: int | None = None) -> str:
        seat = self.turn_seat if seat is None else seat
        return COLOURS[seat] if seat is not None else "Nobody"

    def _enemy_name(self) -> str:
        assert self.turn_seat is not None
        return COLOURS[1 - self.turn_seat]

    def _sign(self, seat: int) -> int:
        return 1 if seat == 0 else -1

    def _steps(self, board: Sequence[int], die: int) -> list[Move]:
        """Every single step with ``die`` on ``board`` for the player on turn, must-move aside."""
        assert self.turn_seat is not None
        sign = self._sign(self.turn_seat)
        steps: list[Move] = []
        for i, v in enumerate(board):
            mine = v * sign
            if mine <= 0:
                continue
            source = i + 1
            target_value = board[(i + die) % SPACES] * sign
            # A group must be at least as large as an enemy stack it lands on (ruling 8).
            smallest = -target_value if target_value < 0 else 1
            for count in range(max(1, smallest), mine + 1):
                steps.append(Move(source, count, die))
        return steps

    def _can_step(self, board: Sequence[int], die: int) -> bool:
        assert self.turn_seat is not None
        return can_step(board, self._sign(self.turn_seat), die)

    def _legal_moves(self) -> list[Move]:
        """Single steps allowed by the must-move rule (ruling 9): both dice whenever possible.

        A step that wins is always allowed (ruling 12): the game ends, so no die is left to play.
        """
        if len(self.dice_left) == 1:
            return self._steps(self.board, self.dice_left[0])
        assert self.turn_seat is not None
        first, second = self.dice_left
        both: list[Move] = []
        single: list[Move] = []
        stranding: list[tuple[Move, tuple[int, ...]]] = []
        for die, other in ((first, second), (second, first)) if first != second else ((first, second),):
            for step in self._steps(self.board, die):
                single.append(step)
                board, _ = self._board_after_step(step)
                if self._can_step(board, other):
                    both.append(step)
                else:
                    stranding.append((step, board))
        if not both or not stranding:
            return both if both else single
        # Only the mover can win by a step: the opponent's spaces never grow, and the mover keeps
        # tokens on the board. The win check runs only here, on the few steps that strand a die.
        seat = self.turn_seat
        winning = {step for step, board in stranding if winning_condition(board, seat) is not None}
        if not winning:
            return both
        stranded = {step for step, _ in stranding}
        return [step for step in single if step in winning or step not in stranded]

    def _board_after_step(self, step: Move) -> tuple[tuple[int, ...], int]:
        """The board after ``step`` and how many enemy tokens it captured."""
        assert self.turn_seat is not None
        sign = self._sign(self.turn_seat)
        board = list(self.board)
        board[step.source - 1] -= step.count * sign
        target = step.target - 1
        captured = 0
        if board[target] * sign < 0:
            captured = -board[target] * sign
            board[target] = 0
        board[target] += step.count * sign
        return tuple(board), captured

    def _why_illegal(self, action: Action) -> str:
        name = self._name()
        if self.phase is Phase.SWAP:
            if not isinstance(action, Swap):
                return f"{name} rolled odds and must swap two stacks now"
            owner_own, _ = self.stack(action.own)
            owner_enemy, _ = self.stack(action.enemy)
            if owner_own != self.turn_seat:
                return f"you have no stack on {action.own} to swap"
            if owner_enemy is None or owner_enemy == self.turn_seat:
                return f"{self._enemy_name()} has no stack on {action.enemy} to swap with"
            return f"{action} is not allowed"
        if self.phase is Phase.KNOCK:
            if not isinstance(action, Knock):
                return f"{name} rolled evens and must knock an enemy stack out of play now"
            return f"{self._enemy_name()} has no stack on {action.space} to knock out"
        if self.phase is Phase.MOVE:
            if not isinstance(action, Move):
                return f"{name} is in the move phase and must move a stack"
            if action.die not in self.dice_left:
                left = " or ".join(str(d) for d in self.dice_left)
                return f"there is no {action.die} to play: you have {left}"
            owner, n = self.stack(action.source)
            if owner != self.turn_seat:
                return f"you have no stack on {action.source}"
            if not 1 <= action.count <= n:
                return f"your stack on {action.source} has {_count(n)}, so you cannot move {action.count}"
            target_owner, target_n = self.stack(action.target)
            if target_owner is not None and target_owner != self.turn_seat and action.count < target_n:
                return (
                    f"{action.count} {'token' if action.count == 1 else 'tokens'} cannot land on "
                    f"{action.target}: {self._enemy_name()}'s stack there is larger ({target_n})"
                )
            return (
                f"moving {action.count} from {action.source} by {action.die} would leave the other die "
                f"unplayable, and you must play both dice when you can"
            )
        return f"{action} cannot be played now"

    def _end_turn(self, state: RingState) -> RingState:
        """Hand the turn to the opponent (or finish, if someone has won)."""
        if state.result is not None:
            return replace(state, phase=Phase.OVER, dice_left=())
        assert state.turn_seat is not None
        return replace(
            state,
            phase=Phase.ROLL,
            turn_seat=1 - state.turn_seat,
            dice_left=(),
            turn_number=state.turn_number + 1,
        )

    def _checked(self, state: RingState) -> RingState:
        """Check the win conditions after a change of the board: player on turn first (ruling 10)."""
        assert state.turn_seat is not None
        for seat in (state.turn_seat, 1 - state.turn_seat):
            found = winning_condition(state.board, seat)
            if found is not None:
                condition, sentence = found
                outcome = Outcome(
                    winner=seat,
                    reason=condition.key,
                    description=f"{COLOURS[seat]} wins: {COLOURS[seat]} {sentence}",
                )
                return replace(state, result=outcome, phase=Phase.OVER, dice_left=())
        return state

    def _event(self, action: Action, text: str, marks: Sequence[Mark] = ()) -> LastEvent:
        return LastEvent(seat=self.turn_seat, notation=action.notation, text=text, marks=tuple(marks))

    def _turn_ends_after(self, after: RingState) -> RingState:
        """A board change that ends the turn: check the win conditions, then pass the turn or finish."""
        return self._with_win_text(self._end_turn(self._checked(after)))

    def _with_win_text(self, state: RingState) -> RingState:
        if state.result is None or state.last is None:
            return state
        return replace(state, last=replace(state.last, text=f"{state.last.text} {state.result.description}."))

    # -- applying actions ----------------------------------------------------------------------------

    def _apply_opening(self, action: Opening) -> RingState:
        if action.red == action.blue:
            text = f"Both rolled {action.red} for the start: roll again."
            return replace(self, opening=(action.red, action.blue), last=self._event(action, text))
        starter = 0 if action.red > action.blue else 1
        text = f"Red rolled {action.red}, Blue rolled {action.blue}: {COLOURS[starter]} starts."
        return replace(
            self,
            phase=Phase.ROLL,
            turn_seat=starter,
            turn_number=1,
            opening=(action.red, action.blue),
            last=LastEvent(seat=None, notation=action.notation, text=text),
        )

    def _apply_roll(self, action: Roll) -> RingState:
        assert self.turn_seat is not None
        seat = self.turn_seat
        name = self._name()
        w1, w2, black = action.values
        rolled = replace(self, dice=action.values, dice_left=())
        head = f"{name} rolled {w1}-{w2}-{black}"
        ordered = sorted(action.values)
        notes: list[str] = []
        marks: list[Mark] = []
        if w1 == w2 == black:
            placed = rolled._place(seat, w1, wanted=2, blocked_by=3)
            if placed is not None:
                board, piles, n, captured = placed
                placed_words = f"{_NUMBER_WORDS.get(n, str(n))} {'token' if n == 1 else 'tokens'}"
                text = f"{head} (triples): {placed_words} placed on {w1}"
                if captured:
                    text += f", capturing {captured}"
                marks = [Mark(MarkKind.PLACE, w1, n)]
                if captured:
                    marks.append(Mark(MarkKind.CAPTURE, w1, captured))
                after = replace(rolled, board=board, piles=piles, last=self._event(action, text + ".", marks))
                return self._turn_ends_after(after)
            notes.append(rolled._blocked_note(seat, w1, "triples"))
        elif ordered == [1, 3, 5] or ordered == [2, 4, 6]:
            odds = ordered == [1, 3, 5]
            enemy_stacks = rolled.stacks_of(1 - seat)
            if odds and rolled.stacks_of(seat) and enemy_stacks:
                text = f"{head} (odds): {name} swaps one of its stacks with one of {self._enemy_name()}'s."
                return replace(rolled, phase=Phase.SWAP, last=self._event(action, text))
            if not odds and enemy_stacks:
                text = f"{head} (evens): {name} knocks one of {self._enemy_name()}'s stacks out of play."
                return replace(rolled, phase=Phase.KNOCK, last=self._event(action, text))
            kind = "odds" if odds else "evens"
            reason = (
                "both players need a stack on the board to swap"
                if odds
                else (f"{self._enemy_name()} has no stack to knock out")
            )
            text = f"{head} ({kind}), but {reason}: the turn ends."
            return self._end_turn(replace(rolled, last=self._event(action, text)))
        # Place phase: the black die is ignored from here on (ruling 7).
        if w1 == w2:
            placed = rolled._place(seat, w1, wanted=1, blocked_by=2)
            if placed is not None:
                board, piles, n, captured = placed
                text = f"{head} (doubles): a token placed on {w1}"
                if captured:
                    text += f", capturing {captured}"
                marks = [Mark(MarkKind.PLACE, w1, n)]
                if captured:
                    marks.append(Mark(MarkKind.CAPTURE, w1, captured))
                after = replace(rolled, board=board, piles=piles, last=self._event(action, text + ".", marks))
                return self._turn_ends_after(after)
            notes.append(rolled._blocked_note(seat, w1, "doubles"))
        moving = replace(rolled, phase=Phase.MOVE, dice_left=(w1, w2))
        text = head + (": " + "; ".join(notes) if notes else "") + f". {name} moves {w1} and {w2}."
        if not moving._legal_moves():
            text = head + (": " + "; ".join(notes) if notes else "") + f". {name} has no legal move."
            return self._end_turn(replace(moving, last=self._event(action, text)))
        return replace(moving, last=self._event(action, text))

    def _place(
        self, seat: int, space: int, wanted: int, blocked_by: int
    ) -> tuple[tuple[int, ...], tuple[int, int], int, int] | None:
        """Put up to ``wanted`` tokens from the pile on ``space``; ``None`` if blocked or no pile."""
        owner, n = self.stack(space)
        enemy_here = n if owner == 1 - seat else 0
        if enemy_here >= blocked_by or self.piles[seat] == 0:
            return None
        placing = min(wanted, self.piles[seat])
        sign = self._sign(seat)
        board = list(self.board)
        piles = list(self.piles)
        if enemy_here:
            board[space - 1] = 0
            piles[1 - seat] += enemy_here
        board[space - 1] += placing * sign
        piles[seat] -= placing
        return tuple(board), (piles[0], piles[1]), placing, enemy_here

    def _blocked_note(self, seat: int, space: int, kind: str) -> str:
        if self.piles[seat] == 0:
            return f"no token left in the pile to place for the {kind}"
        _, n = self.stack(space)
        return f"the {kind} placement on {space} is blocked by {COLOURS[1 - seat]}'s {n} tokens there"

    def _apply_swap(self, action: Swap) -> RingState:
        board = list(self.board)
        board[action.own - 1], board[action.enemy - 1] = board[action.enemy - 1], board[action.own - 1]
        text = (
            f"{self._name()} swapped its stack on {action.own} with {self._enemy_name()}'s stack on "
            f"{action.enemy}."
        )
        marks = (
            Mark(MarkKind.SWAP, action.own, abs(board[action.own - 1])),
            Mark(MarkKind.SWAP, action.enemy, abs(board[action.enemy - 1])),
        )
        after = replace(self, board=tuple(board), last=self._event(action, text, marks))
        return self._turn_ends_after(after)

    def _apply_knock(self, action: Knock) -> RingState:
        assert self.turn_seat is not None
        enemy = 1 - self.turn_seat
        _, n = self.stack(action.space)
        board = list(self.board)
        board[action.space - 1] = 0
        piles = list(self.piles)
        piles[enemy] += n
        text = f"{self._name()} knocked {self._enemy_name()}'s {_count(n)} on {action.space} out of play."
        after = replace(
            self,
            board=tuple(board),
            piles=(piles[0], piles[1]),
            last=self._event(action, text, (Mark(MarkKind.KNOCK, action.space, n),)),
        )
        return self._turn_ends_after(after)

    def _apply_move(self, action: Move) -> RingState:
        assert self.turn_seat is not None
        board, captured = self._board_after_step(action)
        piles = list(self.piles)
        piles[1 - self.turn_seat] += captured
        text = f"{self._name()} moved {_count(action.count)} from {action.source} to {action.target}"
        marks = [
            Mark(MarkKind.FROM, action.source, action.count),
            Mark(MarkKind.TO, action.target, action.count),
        ]
        if captured:
            text += f", capturing {captured}"
            marks.append(Mark(MarkKind.CAPTURE, action.target, captured))
        left = list(self.dice_left)
        left.remove(action.die)
        after = replace(
            self,
            board=board,
            piles=(piles[0], piles[1]),
            dice_left=tuple(left),
            last=self._event(action, text + ".", marks),
        )
        after = after._checked(after)
        if after.result is not None:
            return self._with_win_text(self._end_turn(after))
        if after.dice_left and after._legal_moves():
            return after
        if after.dice_left:
            assert after.last is not None
            note = f"{after.last.text} No legal move for the {after.dice_left[0]}."
            after = replace(after, last=replace(after.last, text=note))
        return self._end_turn(after)


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
        try:
            state = _state_from_json(data)
        except CorruptStateError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise CorruptStateError(
                f"the saved ring game cannot be read ({exc.__class__.__name__}: {exc})"
            ) from exc
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


def _int(value: Any, low: int, high: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise CorruptStateError(f"the saved ring game has an impossible {what}: {value!r}")
    return value


def _state_from_json(data: Mapping[str, Any]) -> RingState:
    if data.get("game") != "ring":
        raise CorruptStateError(f"the saved state is not a ring game (game: {data.get('game')!r})")
    if data.get("schema") != SCHEMA:
        raise CorruptStateError(
            f"the saved ring game has schema {data.get('schema')!r}; this bot reads {SCHEMA}"
        )
    board = tuple(_int(v, -TOKENS, TOKENS, "stack") for v in data["board"])
    if len(board) != SPACES:
        raise CorruptStateError("the saved ring board does not have 12 spaces")
    piles = tuple(_int(v, 0, TOKENS, "pile") for v in data["piles"])
    if len(piles) != 2:
        raise CorruptStateError("the saved ring game does not have two piles")
    if (
        sum(v for v in board if v > 0) + piles[0] != TOKENS
        or -sum(v for v in board if v < 0) + piles[1] != TOKENS
    ):
        raise CorruptStateError("the saved ring game does not hold 12 tokens per player")
    phase = Phase(data["phase"])
    turn = None if data["turn"] is None else _int(data["turn"], 0, 1, "turn")
    if (turn is None) != (phase is Phase.OPENING):
        raise CorruptStateError("the saved ring game's turn does not match its phase")
    dice = None if data["dice"] is None else tuple(_int(v, 1, 6, "die") for v in data["dice"])
    if dice is not None and len(dice) != 3:
        raise CorruptStateError("the saved ring game has a roll without three dice")
    dice_left = tuple(_int(v, 1, 6, "die") for v in data["dice_left"])
    if (phase is Phase.MOVE) != bool(dice_left) or len(dice_left) > 2:
        raise CorruptStateError("the saved ring game's dice to play do not match its phase")
    opening = (
        None if data["opening"] is None else tuple(_int(v, 1, 6, "opening die") for v in data["opening"])
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
        turn_number=_int(data["turn_number"], 0, 10**9, "turn number"),
        opening=(opening[0], opening[1]) if opening is not None else None,
        last=last,
        result=result,
        turn_events=turn_events,
    )


def _event_from_json(raw: Mapping[str, Any]) -> LastEvent:
    seat = None if raw["seat"] is None else _int(raw["seat"], 0, 1, "seat")
    marks = tuple(
        Mark(MarkKind(kind), _int(space, 1, SPACES, "space"), _int(count, 0, TOKENS * 2, "count"))
        for kind, space, count in raw["marks"]
    )
    return LastEvent(seat=seat, notation=str(raw["notation"]), text=str(raw["text"]), marks=marks)


VARIANT = RingVariant()
