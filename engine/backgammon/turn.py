"""A play made one checker at a time: which single moves stay inside some legal play of the roll.

``plays.legal_plays`` answers for a whole roll at once. A player on Discord moves one checker, then
the next; every move offered must leave a way to finish a legal play (the must-play rule counts
for the whole roll, so a move that uses a die the rules need elsewhere is never offered).

A turn in progress is described by the board at its start, the roll, and the moves so far; the
board now and the dice left follow from them. Each move uses one die: its pips, or for bearing off
with a higher die, that die (``Stepped.die``).
"""

from __future__ import annotations

from typing import NamedTuple

from engine.backgammon.board import Board, RuleSet
from engine.backgammon.plays import Move, Play, legal_plays, single_moves
from engine.memo import MB, bytes_lru, deep_size


class Stepped(NamedTuple):
    """One checker moved by one die: the move and the die it used."""

    move: Move
    die: int


def roll_dice(d1: int, d2: int) -> tuple[int, ...]:
    """The dice a roll lets a player use, higher first: four of a double."""
    return (d1,) * 4 if d1 == d2 else (max(d1, d2), min(d1, d2))


def without(dice: tuple[int, ...], die: int) -> tuple[int, ...]:
    """``dice`` with one ``die`` used."""
    i = dice.index(die)
    return dice[:i] + dice[i + 1 :]


@bytes_lru(16 * MB, deep_size)
def goal(start: Board, d1: int, d2: int, rules: RuleSet) -> tuple[frozenset[Board], int]:
    """The positions the legal plays of the roll reach from ``start``, and how many moves each takes."""
    plays = legal_plays(start, d1, d2, rules)
    return frozenset(p.result for p in plays), len(plays[0].moves)


def _die_moves(board: Board, dice: tuple[int, ...], rules: RuleSet) -> list[tuple[Stepped, Board]]:
    out: list[tuple[Stepped, Board]] = []
    for die in sorted(set(dice), reverse=True):
        out.extend((Stepped(move, die), after) for move, after in single_moves(board, die, rules))
    return out


MEMO_GROWTH = 16
"""How much larger a ``TurnInProgress`` grows than when it is made: its memo fills as the turn is
played (after every completion of random turns was listed: 5.6 times in the median, at most 15.7)."""


def _turn_bytes(turn: TurnInProgress) -> int:
    # Sized when it enters the cache, before its memo fills: counted at the largest it grows to.
    return MEMO_GROWTH * deep_size(turn)


@bytes_lru(32 * MB, _turn_bytes)
def turn_of(start: Board, d1: int, d2: int, rules: RuleSet) -> TurnInProgress:
    """The ``TurnInProgress`` of a roll, shared by every position of that turn (its memo too)."""
    return TurnInProgress(start, d1, d2, rules)


class TurnInProgress:
    """What may follow the moves already made in one turn (``start`` rolled ``d1``-``d2``)."""

    __slots__ = ("_finishes", "_steps", "goals", "need", "rules")

    def __init__(self, start: Board, d1: int, d2: int, rules: RuleSet) -> None:
        self.goals, self.need = goal(start, d1, d2, rules)
        self.rules = rules
        self._finishes: dict[tuple[Board, tuple[int, ...]], frozenset[Board]] = {}
        self._steps: dict[tuple[Board, tuple[int, ...]], list[tuple[Stepped, Board]]] = {}

    def finishes(self, board: Board, dice: tuple[int, ...], made: int) -> frozenset[Board]:
        """The legal end positions still reachable from ``board`` with ``dice`` after ``made`` moves."""
        if made == self.need:
            return frozenset({board}) & self.goals
        key = (board, dice)
        known = self._finishes.get(key)
        if known is not None:
            return known
        found: set[Board] = set()
        for stepped, after in _die_moves(board, dice, self.rules):
            found |= self.finishes(after, without(dice, stepped.die), made + 1)
        result = frozenset(found)
        self._finishes[key] = result
        return result

    def steps(self, board: Board, dice: tuple[int, ...], made: int) -> list[tuple[Stepped, Board]]:
        """The single moves from ``board`` that still lead to a legal play, with where each goes.

        The same move by two different dice (a bear-off that either die allows) is offered once per
        die, since what is left to play differs.
        """
        if made >= self.need:
            return []
        key = (board, dice)
        known = self._steps.get(key)
        if known is None:
            known = [
                (stepped, after)
                for stepped, after in _die_moves(board, dice, self.rules)
                if self.finishes(after, without(dice, stepped.die), made + 1)
            ]
            self._steps[key] = known
        return list(known)

    def completions(self, board: Board, dice: tuple[int, ...], made: int) -> tuple[Play, ...]:
        """Each distinct legal way to finish the play from here, as the moves still to make (one move
        list per end position)."""
        plays: dict[Board, tuple[Move, ...]] = {}

        def walk(now: Board, left: tuple[int, ...], done: int, moves: tuple[Move, ...]) -> None:
            if done == self.need:
                if now in self.goals and now not in plays:
                    plays[now] = moves
                return
            for stepped, after in self.steps(now, left, done):
                walk(after, without(left, stepped.die), done + 1, (*moves, stepped.move))

        walk(board, dice, made, ())
        return tuple(Play(moves, result) for result, moves in plays.items())
