"""The board, the ways to win, the actions and the marks of the ring game."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.protocol import (
    Action,
    EndReason,
    JSONDict,
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
# Words shared by the state and the flow


def counted(n: int, noun: str = "token") -> str:
    """``n`` and the noun, plural unless one: "1 token", "3 tokens"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


NUMBER_WORDS = {1: "one", 2: "two"}
"""The small numbers written as words ("two tokens placed on 5")."""
