"""Legal plays of a roll: every distinct position the player on roll (``board[1]``) can reach.

A *move* carries one checker the number of pips of one die; a *play* is the moves of a whole roll.
The rules (RULINGS, backgammon 1, 3, 6):

- a checker on the bar enters (on the opponent's home board, points 25 - die) before anything else;
- a point with two or more opposing checkers is blocked; landing on a single one hits it to the bar;
- use both dice if any play does; if only one can be used, the higher one when it can be; doubles
  play four times, as many as possible;
- bearing off only with all the side's checkers in its home board, with the exact number or a
  higher die from the highest occupied point;
- Old English: a point holds at most five checkers of one side (bearing off is free), and the
  must-play rule counts what is legal under that cap.

Plays that reach the same position are one play; the move list kept is the first found, trying
the higher die first and the farthest checkers first.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from typing import NamedTuple

from engine.backgammon.board import BAR, BAR_POINT, OFF_POINT, Board, RuleSet, Side


class Move(NamedTuple):
    """One checker from ``src`` to ``dst`` in the mover's numbering: 25 is the bar, 0 is off.

    A named tuple rather than a frozen dataclass (so is ``Play``): the search makes hundreds of thousands,
    and a tuple is built several times faster.
    """

    src: int
    dst: int
    hit: bool = False

    @property
    def pips(self) -> int:
        return self.src - self.dst


class Play(NamedTuple):
    """The moves of one roll, in the order played, and the position they reach (mover still ``board[1]``)."""

    moves: tuple[Move, ...]
    result: Board


_Step = tuple[int, int, bool, Side, Side]
"""``(src, dst, hit, new_me, new_opp)``."""


def _step(me: Side, opp: Side, src: int, die: int, cap: int) -> _Step | None:
    """Move a checker of ``me`` from ``src`` by ``die`` pips, or ``None`` if that is not legal."""
    if me[src - 1] == 0:
        return None
    if me[BAR] and src != BAR_POINT:
        return None
    dst = src - die
    hit = False
    if dst >= 1:
        opposing = opp[24 - dst]
        if opposing >= 2 or me[dst - 1] >= cap:
            return None
        hit = opposing == 1
    else:
        if sum(me[6:]) > 0:
            return None
        # A higher die bears off only from the highest occupied point.
        if dst < 0 and sum(me[src:6]) > 0:
            return None
        dst = OFF_POINT
    new_me = list(me)
    new_me[src - 1] -= 1
    if dst:
        new_me[dst - 1] += 1
    new_opp = opp
    if hit:
        new_opp_list = list(opp)
        new_opp_list[24 - dst] = 0
        new_opp_list[BAR] += 1
        new_opp = tuple(new_opp_list)
    return src, dst, hit, tuple(new_me), new_opp


def single_moves(board: Board, die: int, rules: RuleSet = RuleSet.STANDARD) -> list[tuple[Move, Board]]:
    """Every legal move of one checker by one die, with the position it reaches."""
    opp, me = board
    cap = rules.point_cap
    out: list[tuple[Move, Board]] = []
    sources = (BAR_POINT,) if me[BAR] else range(24, 0, -1)
    for src in sources:
        step = _step(me, opp, src, die, cap)
        if step is not None:
            src_, dst, hit, new_me, new_opp = step
            out.append((Move(src_, dst, hit), (new_opp, new_me)))
    return out


def can_move(board: Board, rules: RuleSet = RuleSet.STANDARD) -> bool:
    """Whether ``board[1]`` has a legal move with some die: when it has none, no roll it can ever get
    plays anything until the other side changes the position."""
    return any(single_moves(board, die, rules) for die in range(1, 7))


# A position as one integer, a byte a point (the mover's 25 counts, then the opponent's): a move is
# two additions to it, and it hashes far faster than the two 25-tuples it stands for. The search keys
# the positions it reaches by it and builds the tuples only for positions it has not met yet.
_WEIGHT = tuple(1 << (8 * index) for index in range(BAR + 1))
"""``_WEIGHT[i]``: one checker of the mover on index ``i`` (24: the bar)."""
_OPP_WEIGHT = tuple(weight << (8 * (BAR + 1)) for weight in _WEIGHT)
"""The same for the opponent."""


def _key(me: Side, opp: Side) -> int:
    return int.from_bytes(bytes(me) + bytes(opp), "little")


# Every move there can be, made once: the search shares them rather than build one per step.
_MOVES = tuple(
    tuple((Move(src, dst, False), Move(src, dst, True)) for dst in range(src)) for src in range(BAR_POINT + 1)
)
"""``_MOVES[src][dst][hit]``."""
_POINTS_DOWN = tuple(range(BAR_POINT, -1, -1))


def legal_plays(board: Board, d1: int, d2: int, rules: RuleSet = RuleSet.STANDARD) -> tuple[Play, ...]:
    """The distinct legal plays of the roll ``d1``-``d2`` for ``board[1]``.

    When nothing can be played the answer is one empty play that leaves the position as it was.
    """
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice show 1 to 6, not {d1} and {d2}")
    hi, lo = max(d1, d2), min(d1, d2)
    search = _Search(board, hi == lo, rules.point_cap)
    opp0, me0 = board
    for order in [(hi,) * 4] if hi == lo else [(hi, lo), (lo, hi)]:
        search.walk(_key(me0, opp0), opp0, order, (), BAR_POINT)
    found = search.found.values()
    most = max(used for used, _, _ in found)
    plays = [Play(moves, pos) for used, moves, pos in found if used == most]
    if most == 1 and hi != lo:
        # Only one die can be used: the higher one when it can be. A bear-off may use fewer pips
        # than its die, so the die is told by the positions a move of the higher die reaches.
        with_hi = {pos for _, pos in single_moves(board, hi, rules)}
        if with_hi:
            plays = [p for p in plays if p.result in with_hi]
    return tuple(plays)


class _Search:
    """The search of one roll's plays: depth first, the higher die first, the farthest checkers first."""

    __slots__ = ("cap", "doubles", "found", "me", "opp", "ordered", "seen")

    def __init__(self, board: Board, doubles: bool, cap: int) -> None:
        self.doubles = doubles
        self.cap = cap
        # With doubles and no cap, any legal order of the four moves can be replayed from the
        # farthest source down (a later move from farther back never needed an earlier one out of
        # the way), so the search only tries sources no farther than the last one. The Old English
        # cap breaks this (moving off a full point can make room), so it searches every order.
        self.ordered = doubles and cap >= 15
        # The position being searched, changed in place by each move and restored after it.
        self.opp, self.me = list(board[0]), list(board[1])
        # Per position reached (by key): the most dice any way there used, the first such move list,
        # and the position.
        self.found: dict[int, tuple[int, tuple[Move, ...], Board]] = {}
        # Positions already searched with the same number of dice left: every way on from there is
        # known. Only doubles meet one twice: with two different dice, the first moves of one order
        # all reach different positions, and the two orders have different dice left.
        self.seen: set[tuple[int, int]] = set()

    def walk(self, key: int, opp_now: Side, dice: tuple[int, ...], moves: tuple[Move, ...], top: int) -> None:
        """Every way on from the current position (``key`` its key, ``opp_now`` the opponent's side
        as a tuple) with ``dice`` left to play, after ``moves``, from sources no farther than ``top``."""
        me, opp, found = self.me, self.opp, self.found
        moved = False
        used = len(moves) + 1
        if dice:
            die, rest = dice[0], dice[1:]
            if me[BAR]:
                sources: Iterable[int] = (BAR_POINT,)
            else:
                # The occupied points from ``top`` (at most 24) down, farthest first.
                top = min(top, 24)
                sources = compress(_POINTS_DOWN[BAR_POINT - top : BAR_POINT], me[top - 1 :: -1])
            # Bearing off is allowed only with everything home; the highest occupied point decides
            # where a higher die bears off from. Both are fixed for this node, so computed once.
            home = not any(me[6:])
            highest = next((p for p in (6, 5, 4, 3, 2, 1) if me[p - 1]), 0) if home else 0
            for src in sources:
                dst = src - die
                hit = False
                if dst >= 1:
                    opposing = opp[24 - dst]
                    if opposing >= 2 or me[dst - 1] >= self.cap:
                        continue
                    hit = opposing == 1
                    new_key = key - _WEIGHT[src - 1] + _WEIGHT[dst - 1]
                    if hit:
                        new_key += _OPP_WEIGHT[BAR] - _OPP_WEIGHT[24 - dst]
                elif not home or (dst < 0 and src != highest):
                    continue
                else:
                    dst = OFF_POINT
                    new_key = key - _WEIGHT[src - 1]
                moved = True
                if rest:
                    if self.doubles:
                        if (new_key, len(rest)) in self.seen:
                            continue
                        self.seen.add((new_key, len(rest)))
                elif (entry := found.get(new_key)) is not None and entry[0] >= used:
                    # The last die, to a position already reached this way: nothing to record.
                    continue
                me[src - 1] -= 1
                if dst:
                    me[dst - 1] += 1
                if hit:
                    opp[24 - dst] = 0
                    opp[BAR] += 1
                    new_opp = tuple(opp)
                else:
                    new_opp = opp_now
                step = (*moves, _MOVES[src][dst][hit])
                if rest:
                    self.walk(new_key, new_opp, rest, step, src if self.ordered else BAR_POINT)
                else:
                    # The last die: record the position here rather than descend one more level.
                    found[new_key] = (used, step, (new_opp, tuple(me)))
                me[src - 1] += 1
                if dst:
                    me[dst - 1] -= 1
                if hit:
                    opp[24 - dst] = 1
                    opp[BAR] -= 1
        if not moved:
            entry = found.get(key)
            if entry is None or entry[0] < used - 1:
                found[key] = (used - 1, moves, (opp_now, tuple(me)))
