"""The vocabulary of a backgammon match: its phases, the ways a game is won and what they score,
the actions (the opening roll, the roll, the cube, resignation offers, checker moves) and the
latest play."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from engine.backgammon.board import (
    Board,
    Side,
    borne_off,
)
from engine.backgammon.notation import move_text, play_text
from engine.backgammon.plays import Move, Play
from engine.protocol import (
    Action,
    EndReason,
    WordAction,
)

SCHEMA = 2
COLOURS = ("White", "Black")


class Phase(Enum):
    OPENING = "opening"
    DECIDE = "decide"
    ROLL = "roll"
    PLAY = "play"
    TAKE = "take"
    RESIGN = "resign"
    OVER = "over"


class BackgammonWin(EndReason):
    """How the last game of a match was won: by the points it scored, or by a passed double."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    PASSED = "passed"
    SESSION = "session"
    """A money session ended (a player stopped it, or its limit was reached): won on points."""


LEVELS = (BackgammonWin.SINGLE, BackgammonWin.GAMMON, BackgammonWin.BACKGAMMON)
"""A game's result by the points it is worth before the cube: ``LEVELS[points - 1]``."""
LEVEL_WORDS = {
    BackgammonWin.SINGLE: "a single game",
    BackgammonWin.GAMMON: "a gammon",
    BackgammonWin.BACKGAMMON: "a backgammon",
}


# --- actions ------------------------------------------------------------------------------------


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
class RollOn(WordAction):
    """The player on turn rolls instead of doubling."""

    word: ClassVar[str] = "roll"


@dataclass(frozen=True, slots=True)
class Double(WordAction):
    """The player on turn offers the cube at twice its value, before rolling."""

    word: ClassVar[str] = "double"


@dataclass(frozen=True, slots=True)
class Take(WordAction):
    """The doubled player takes: the game goes on at twice the value, and the cube is theirs."""

    word: ClassVar[str] = "take"


@dataclass(frozen=True, slots=True)
class Pass(WordAction):
    """The doubled player passes: the game is lost at the cube's value before the double."""

    word: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Beaver(WordAction):
    """Money play, with beavers: the doubled player takes and at once redoubles, keeping the cube
    (at four times its value before the double); the doubler may not refuse."""

    word: ClassVar[str] = "beaver"


@dataclass(frozen=True, slots=True)
class StopAfterGame(Action):
    """Money play: ``seat`` (either player, at any time) asks to end the session when the game in
    progress ends. Not a move of the game, so never among the legal actions."""

    seat: int

    @property
    def notation(self) -> str:
        return f"stop {COLOURS[self.seat].lower()}"


@dataclass(frozen=True, slots=True)
class OfferResignation(Action):
    """The player on turn offers to lose the game as a single game (1), a gammon (2) or a backgammon (3)."""

    level: int

    @property
    def notation(self) -> str:
        return f"resign {LEVELS[self.level - 1].value}"


@dataclass(frozen=True, slots=True)
class AcceptResignation(WordAction):
    word: ClassVar[str] = "accept"


@dataclass(frozen=True, slots=True)
class DeclineResignation(WordAction):
    word: ClassVar[str] = "decline"


@dataclass(frozen=True, slots=True)
class MoveChecker(Action):
    """One checker moved by one die, a step of the play in progress (``move 24/18``, ``move bar/22*``;
    a bear-off by a higher die names it: ``move 3/off with 6``)."""

    src: int
    dst: int
    die: int
    hit: bool = False

    @property
    def move(self) -> Move:
        return Move(self.src, self.dst, self.hit)

    @property
    def notation(self) -> str:
        pips = self.src - self.dst
        return f"move {move_text(self.move)}" + (f" with {self.die}" if pips != self.die else "")


@dataclass(frozen=True, slots=True)
class Checkers(Action):
    """The rest of the play (from the start of the turn: all of it), in standard notation."""

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
class LastPlay:
    """The latest completed play: who, the dice, and the moves (in the mover's numbering)."""

    seat: int
    dice: tuple[int, int]
    moves: tuple[Move, ...]
