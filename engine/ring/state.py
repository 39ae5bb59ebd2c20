"""The ring game's position (``RingState``): reading the board, the protocol, the words; what an
action does is in ``engine.ring.flow`` (``apply_action``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from engine.errors import (
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
)
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    GameState,
    GameView,
    JSONDict,
    Outcome,
)
from engine.ring.flow import apply_action
from engine.ring.rules import (
    COLOURS,
    SCHEMA,
    SPACES,
    Knock,
    LastEvent,
    Move,
    Opening,
    Phase,
    Roll,
    Swap,
    can_step,
    counted,
    winning_condition,
)


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
            return apply_action(self, action)
        if self.phase is Phase.ROLL:
            if not isinstance(action, Roll):
                raise IllegalActionError(f"{self.player_name()} must roll the dice first")
            self.chance_action(action.values)
            return apply_action(self, action)
        if isinstance(action, Opening | Roll):
            raise IllegalActionError("the dice have already been rolled this turn")
        if action not in self.legal_actions():
            raise IllegalActionError(self._why_illegal(action))
        return apply_action(self, action)

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
        name = self.player_name()
        if isinstance(action, Opening):
            return f"Red rolls {action.red}, Blue rolls {action.blue} for the start"
        if isinstance(action, Roll):
            return f"roll {action.white1}-{action.white2}-{action.black}"
        if isinstance(action, Swap):
            _, mine = self.stack(action.own)
            _, theirs = self.stack(action.enemy)
            return (
                f"swap your stack of {mine} on {action.own} with "
                f"{self.enemy_name()}'s stack of {theirs} on {action.enemy}"
            )
        if isinstance(action, Knock):
            _, n = self.stack(action.space)
            return f"knock {self.enemy_name()}'s stack of {n} on {action.space} out of play"
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

    @property
    def last_text(self) -> str | None:
        return self.last.text if self.last is not None else None

    @property
    def phase_text(self) -> str:
        if self.result is not None:
            return self.result.description
        if self.phase is Phase.OPENING:
            return "Each player rolls one die: the higher starts"
        name = self.player_name()
        if self.phase is Phase.ROLL:
            return f"{name} to roll"
        if self.phase is Phase.SWAP:
            return f"{name} rolled odds: swap a {name} stack with a {self.enemy_name()} stack"
        if self.phase is Phase.KNOCK:
            return f"{name} rolled evens: knock a {self.enemy_name()} stack out of play"
        dice = " and ".join(str(d) for d in self.dice_left)
        return f"{name} to move: {dice} to play"

    # -- the player on turn (``engine.ring.flow`` reads these too) ------------------------------------

    def player_name(self, seat: int | None = None) -> str:
        """The colour of ``seat`` (by default the player on turn), "Nobody" before the opening roll."""
        seat = self.turn_seat if seat is None else seat
        return COLOURS[seat] if seat is not None else "Nobody"

    def enemy_name(self) -> str:
        """The colour of the player not on turn."""
        assert self.turn_seat is not None
        return COLOURS[1 - self.turn_seat]

    def sign_of(self, seat: int) -> int:
        """How ``seat``'s tokens are counted on ``board``: +1 for Red (seat 0), -1 for Blue."""
        return 1 if seat == 0 else -1

    def _steps(self, board: Sequence[int], die: int) -> list[Move]:
        """Every single step with ``die`` on ``board`` for the player on turn, must-move aside."""
        assert self.turn_seat is not None
        sign = self.sign_of(self.turn_seat)
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
        return can_step(board, self.sign_of(self.turn_seat), die)

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
                board, _ = self.board_after_step(step)
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

    def board_after_step(self, step: Move) -> tuple[tuple[int, ...], int]:
        """The board after the player on turn makes ``step``, and how many enemy tokens it captured."""
        assert self.turn_seat is not None
        sign = self.sign_of(self.turn_seat)
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
        name = self.player_name()
        if self.phase is Phase.SWAP:
            if not isinstance(action, Swap):
                return f"{name} rolled odds and must swap two stacks now"
            owner_own, _ = self.stack(action.own)
            owner_enemy, _ = self.stack(action.enemy)
            if owner_own != self.turn_seat:
                return f"you have no stack on {action.own} to swap"
            if owner_enemy is None or owner_enemy == self.turn_seat:
                return f"{self.enemy_name()} has no stack on {action.enemy} to swap with"
            return f"{action} is not allowed"
        if self.phase is Phase.KNOCK:
            if not isinstance(action, Knock):
                return f"{name} rolled evens and must knock an enemy stack out of play now"
            return f"{self.enemy_name()} has no stack on {action.space} to knock out"
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
                return f"your stack on {action.source} has {counted(n)}, so you cannot move {action.count}"
            target_owner, target_n = self.stack(action.target)
            if target_owner is not None and target_owner != self.turn_seat and action.count < target_n:
                return (
                    f"{action.count} {'token' if action.count == 1 else 'tokens'} cannot land on "
                    f"{action.target}: {self.enemy_name()}'s stack there is larger ({target_n})"
                )
            return (
                f"moving {action.count} from {action.source} by {action.die} would leave the other die "
                f"unplayable, and you must play both dice when you can"
            )
        return f"{action} cannot be played now"
