"""The backgammon board as GNU Backgammon stores it, and the rule sets' starting positions.

``Board = tuple[tuple[int, ...], tuple[int, ...]]``: ``board[side][i]`` is the number of checkers of
``side`` on its own point ``i + 1`` (point 1 is that side's ace point, point 24 the far end of its
route), and ``board[side][24]`` is that side's checkers on the bar. ``board[1]`` is the player on
roll, ``board[0]`` the opponent; after a play, ``swap`` hands the roll over.

A point seen from the other side has the mirror number: my point ``p`` is the opponent's point
``25 - p``, so the opponent's checkers on my point ``p`` are ``board[0][24 - p]``.

Seats: a game state with seats 0 and 1 stores the board from the point of view of the seat on roll,
``board[1]`` being that seat; ``board_for(seat_on_roll, seat)`` says which half belongs to a seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

Side = tuple[int, ...]
Board = tuple[Side, Side]

CHECKERS = 15
"""Checkers per side."""
POINTS = 24
BAR = 24
"""Index of the bar in a side's tuple (and ``BAR + 1 == 25`` is the bar as a point number)."""
BAR_POINT = 25
OFF_POINT = 0


class RuleSet(StrEnum):
    """The rule sets the engine plays (RULINGS: backgammon 1, 6, 7)."""

    STANDARD = "standard"
    NACKGAMMON = "nackgammon"
    OLDENGLISH = "oldenglish"

    @property
    def point_cap(self) -> int:
        """The most checkers of one side a point may hold (Old English: five; bearing off is free)."""
        return 5 if self is RuleSet.OLDENGLISH else CHECKERS

    @property
    def uses_cube(self) -> bool:
        """Whether the doubling cube exists in this rule set (not in Old English)."""
        return self is not RuleSet.OLDENGLISH


def side_from(points: Mapping[int, int]) -> Side:
    """A side from ``{point: checkers}``, points 1..24 in that side's numbering and 25 for the bar."""
    side = [0] * 25
    for point, count in points.items():
        if not 1 <= point <= BAR_POINT:
            raise ValueError(f"points are 1 to 24 and 25 for the bar, not {point}")
        side[point - 1] += count
    if sum(side) > CHECKERS:
        raise ValueError("a side has at most 15 checkers")
    return tuple(side)


STANDARD_SIDE = side_from({24: 2, 13: 5, 8: 3, 6: 5})
NACKGAMMON_SIDE = side_from({24: 2, 23: 2, 13: 4, 8: 3, 6: 4})


def starting_board(rules: RuleSet = RuleSet.STANDARD) -> Board:
    """The position before the opening roll, both sides alike."""
    side = NACKGAMMON_SIDE if rules is RuleSet.NACKGAMMON else STANDARD_SIDE
    return (side, side)


def swap(board: Board) -> Board:
    """The same position with the other player on roll."""
    return (board[1], board[0])


def on_board(side: Side) -> int:
    """Checkers of a side on its 24 points (not the bar, not borne off)."""
    return sum(side[:POINTS])


def borne_off(side: Side) -> int:
    """Checkers a side has borne off: 15 minus those on the points and the bar."""
    return CHECKERS - sum(side)


def pip_count(side: Side) -> int:
    """Pips a side needs to bear everything off: point number times checkers, the bar counting 25."""
    return sum((i + 1) * n for i, n in enumerate(side))


def mirror(point: int) -> int:
    """The number of one side's point ``point`` (1..24) as the other side counts it."""
    return 25 - point


def check_board(board: Board) -> None:
    """Raise ``ValueError`` unless the board is a legal backgammon position."""
    if len(board) != 2:
        raise ValueError("a board has two sides")
    for side in board:
        if len(side) != 25 or any(n < 0 for n in side):
            raise ValueError("a side has 25 non-negative counts (24 points and the bar)")
        if sum(side) > CHECKERS:
            raise ValueError("a side has at most 15 checkers")
    for i in range(POINTS):
        if board[1][i] and board[0][23 - i]:
            raise ValueError(f"both sides have checkers on point {i + 1}")


def board_for(seat_on_roll: int, seat: int) -> int:
    """The half of the board (0 or 1) that holds ``seat``'s checkers when ``seat_on_roll`` is on roll."""
    return 1 if seat == seat_on_roll else 0
