"""One game of backgammon without the doubling cube, as a ``GameState``.

Phases: the opening roll (one die each, ties roll again, the higher die plays both dice), then each
turn a roll (a chance step prompted by the player) and a play (one action: a whole legal play, or
``no play`` when the roll cannot be used). Scoring (RULINGS, backgammon 4): 1 for a single game, 2
for a gammon (the loser bore off none), 3 for a backgammon (also a loser's checker on the bar or in
the winner's home board).

Seats: ``sides[seat]`` holds that seat's checkers in its own numbering (a ``board.Side``); the GNUBG
board of the seat on roll is ``(sides[1 - seat], sides[seat])`` (``BackgammonState.board``).
Not registered in ``engine.registry`` yet: the cube, matches, picture and panel come later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, ClassVar

from engine.backgammon.board import (
    CHECKERS,
    Board,
    RuleSet,
    Side,
    borne_off,
    check_board,
    starting_board,
)
from engine.backgammon.notation import parse_play, play_text
from engine.backgammon.plays import Move, Play, legal_plays
from engine.errors import CorruptStateError, GameOverError, IllegalActionError, NotYourTurnError
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    EndReason,
    Forfeit,
    GameState,
    GameView,
    JSONDict,
    Outcome,
)

SCHEMA = 1
COLOURS = ("White", "Black")


class Phase(Enum):
    OPENING = "opening"
    ROLL = "roll"
    PLAY = "play"
    OVER = "over"


class BackgammonWin(EndReason):
    """How a backgammon game is won, by the points it scores."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"


@dataclass(frozen=True, slots=True)
class Opening(Action):
    """Chance: one die for each seat (seat 0's first); a tie is rolled again."""

    die0: int
    die1: int

    @property
    def notation(self) -> str:
        return f"opening {self.die0}-{self.die1}"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    """Chance: the two dice of a turn."""

    d1: int
    d2: int

    @property
    def notation(self) -> str:
        return f"roll {self.d1}-{self.d2}"


@dataclass(frozen=True, slots=True)
class Checkers(Action):
    """A whole legal play of the dice, written in standard notation."""

    moves: tuple[Move, ...]
    result: Board

    @property
    def notation(self) -> str:
        return play_text(Play(self.moves, self.result))


def score(winner: Side, loser: Side) -> BackgammonWin:
    """Single, gammon or backgammon, from the two sides once the winner has borne off all 15."""
    if borne_off(loser) > 0:
        return BackgammonWin.SINGLE
    # The winner's home board is the loser's points 19-24 (indices 18-23); index 24 is the bar.
    if sum(loser[18:25]) > 0:
        return BackgammonWin.BACKGAMMON
    return BackgammonWin.GAMMON


POINTS = {BackgammonWin.SINGLE: 1, BackgammonWin.GAMMON: 2, BackgammonWin.BACKGAMMON: 3}


@dataclass(frozen=True, slots=True)
class BackgammonState(GameState, GameView):
    """A backgammon position. No secrets: the state is its own view."""

    sides: tuple[Side, Side]
    rules: RuleSet = RuleSet.STANDARD
    phase: Phase = Phase.OPENING
    turn_seat: int | None = None
    dice: tuple[int, int] | None = None
    turn_number: int = 0
    last: str | None = None
    result: Outcome | None = None

    variant_key: ClassVar[str] = "backgammon"

    @classmethod
    def new(cls, rules: RuleSet = RuleSet.STANDARD) -> BackgammonState:
        """The position before the opening roll."""
        return cls(sides=starting_board(rules), rules=rules)

    @property
    def board(self) -> Board:
        """The GNUBG board of the seat on turn (``board[1]``); seat 0 before the first turn."""
        seat = self.turn_seat or 0
        return (self.sides[1 - seat], self.sides[seat])

    # -- protocol --------------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        return self.turn_seat

    def to_move(self) -> int:
        if self.phase is Phase.PLAY:
            assert self.turn_seat is not None
            return self.turn_seat
        return CHANCE

    def chance(self) -> ChanceSpec | None:
        if self.phase is Phase.OPENING:
            return ChanceSpec(ChanceKind.DICE, count=2, sides=6, prompt_seat=None, label="Roll to start")
        if self.phase is Phase.ROLL:
            return ChanceSpec(ChanceKind.DICE, count=2, sides=6, prompt_seat=self.turn_seat, label="Roll")
        return None

    def chance_action(self, outcome: Sequence[int]) -> Action:
        spec = self.chance()
        if spec is None:
            raise IllegalActionError("no dice are to be rolled now")
        a, b = spec.check(outcome)
        return Opening(a, b) if self.phase is Phase.OPENING else Roll(a, b)

    def plays(self) -> tuple[Play, ...]:
        """The legal plays of the dice rolled, in the play phase."""
        if self.phase is not Phase.PLAY or self.dice is None:
            return ()
        return legal_plays(self.board, *self.dice, self.rules)

    def legal_actions(self) -> tuple[Action, ...]:
        return tuple(Checkers(p.moves, p.result) for p in self.plays())

    def outcome(self) -> Outcome | None:
        return self.result

    def apply(self, action: Action) -> BackgammonState:
        if self.result is not None:
            raise GameOverError("the game is over")
        if isinstance(action, Opening):
            return self._opening(action)
        if isinstance(action, Roll):
            if self.phase is not Phase.ROLL:
                raise NotYourTurnError("the dice are not to be rolled now")
            name = COLOURS[self.turn_seat or 0]
            return replace(
                self,
                phase=Phase.PLAY,
                dice=(action.d1, action.d2),
                turn_number=self.turn_number + 1,
                last=f"{name} rolled {action.d1}-{action.d2}",
            )
        if isinstance(action, Checkers):
            return self._play(action)
        raise IllegalActionError(f"{action} is not a backgammon action")

    def _opening(self, action: Opening) -> BackgammonState:
        if self.phase is not Phase.OPENING:
            raise IllegalActionError("the opening roll is over")
        if action.die0 == action.die1:
            return replace(self, last=f"Both rolled {action.die0} to start: roll again")
        seat = 0 if action.die0 > action.die1 else 1
        dice = (max(action.die0, action.die1), min(action.die0, action.die1))
        return replace(
            self,
            phase=Phase.PLAY,
            turn_seat=seat,
            dice=dice,
            turn_number=1,
            last=f"{COLOURS[0]} rolled {action.die0}, {COLOURS[1]} {action.die1}: "
            f"{COLOURS[seat]} starts with {dice[0]}-{dice[1]}",
        )

    def _play(self, action: Checkers) -> BackgammonState:
        if self.phase is not Phase.PLAY or self.turn_seat is None:
            raise NotYourTurnError("no play is due now: the dice must be rolled first")
        play = Play(action.moves, action.result)
        if play.result not in {p.result for p in self.plays()}:
            raise IllegalActionError(f"{action.notation} is not a legal play of {self.dice_text} here")
        seat = self.turn_seat
        opp, me = play.result
        sides = (me, opp) if seat == 0 else (opp, me)
        text = f"{COLOURS[seat]} played {action.notation}"
        if borne_off(me) == CHECKERS:
            kind = score(me, opp)
            points = POINTS[kind]
            word = {"single": "the game", "gammon": "a gammon", "backgammon": "a backgammon"}[kind.value]
            outcome = Outcome(
                winner=seat,
                reason=kind,
                description=f"{COLOURS[seat]} wins {word} ({points} point{'s' if points > 1 else ''})",
                points=points,
            )
            return replace(self, sides=sides, phase=Phase.OVER, dice=None, last=text, result=outcome)
        return replace(self, sides=sides, phase=Phase.ROLL, turn_seat=1 - seat, dice=None, last=text)

    def parse(self, text: str) -> Checkers:
        """The play action that ``text`` (standard notation) describes; errors list the legal plays."""
        if self.phase is not Phase.PLAY or self.dice is None:
            raise NotYourTurnError("no play is due now: the dice must be rolled first")
        play = parse_play(text, self.board, *self.dice, self.rules)
        return Checkers(play.moves, play.result)

    @property
    def dice_text(self) -> str:
        return f"{self.dice[0]}-{self.dice[1]}" if self.dice else "no dice"

    def describe(self, action: Action) -> str:
        if isinstance(action, Checkers):
            return f"play {action.notation}"
        if isinstance(action, Roll):
            return f"roll {action.d1}-{action.d2}"
        if isinstance(action, Opening):
            return f"{COLOURS[0]} rolls {action.die0}, {COLOURS[1]} rolls {action.die1} to start"
        return str(action)

    @property
    def last_text(self) -> str | None:
        return self.last

    @property
    def phase_text(self) -> str:
        if self.result is not None:
            return self.result.description
        if self.phase is Phase.OPENING:
            return "Roll to see who starts"
        name = COLOURS[self.turn_seat or 0]
        if self.phase is Phase.ROLL:
            return f"{name} to roll"
        return f"{name} to play {self.dice_text}"

    def to_json(self) -> JSONDict:
        return {
            "schema": SCHEMA,
            "game": self.variant_key,
            "rules": self.rules.value,
            "sides": [list(s) for s in self.sides],
            "phase": self.phase.value,
            "turn_seat": self.turn_seat,
            "dice": list(self.dice) if self.dice else None,
            "turn_number": self.turn_number,
            "last": self.last,
            "result": self.result.to_json() if self.result else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BackgammonState:
        """Read back ``to_json``; anything impossible raises ``CorruptStateError``."""
        try:
            if data["schema"] != SCHEMA or data["game"] != cls.variant_key:
                raise CorruptStateError("this is not a saved backgammon game of a known schema")
            raw = data["sides"]
            sides = (tuple(int(n) for n in raw[0]), tuple(int(n) for n in raw[1]))
            check_board((sides[0], sides[1]))
            phase = Phase(data["phase"])
            seat = data["turn_seat"]
            if seat not in (None, 0, 1) or (seat is None) != (phase is Phase.OPENING):
                raise CorruptStateError("the seat on turn does not fit the phase")
            dice = data["dice"]
            dice_t = None if dice is None else (int(dice[0]), int(dice[1]))
            if (dice_t is None) == (phase is Phase.PLAY) or (dice_t and not all(1 <= d <= 6 for d in dice_t)):
                raise CorruptStateError("the dice do not fit the phase")
            res = data["result"]
            result = None
            if res is not None:
                reason_key = str(res["reason"])
                reason: EndReason = (
                    BackgammonWin(reason_key)
                    if reason_key in BackgammonWin._value2member_map_
                    else Forfeit(reason_key)
                )
                result = Outcome(
                    winner=res["winner"],
                    reason=reason,
                    description=str(res["description"]),
                    points=int(res["points"]),
                    length=int(res["length"]),
                )
            if (result is None) == (phase is Phase.OVER):
                raise CorruptStateError("the result does not fit the phase")
            return cls(
                sides=sides,
                rules=RuleSet(data["rules"]),
                phase=phase,
                turn_seat=seat,
                dice=dice_t,
                turn_number=int(data["turn_number"]),
                last=None if data["last"] is None else str(data["last"]),
                result=result,
            )
        except CorruptStateError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise CorruptStateError(f"the saved backgammon game cannot be read: {err}") from None
