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


def legal_plays(board: Board, d1: int, d2: int, rules: RuleSet = RuleSet.STANDARD) -> tuple[Play, ...]:
    """The distinct legal plays of the roll ``d1``-``d2`` for ``board[1]``.

    When nothing can be played the answer is one empty play that leaves the position as it was.
    """
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice show 1 to 6, not {d1} and {d2}")
    hi, lo = max(d1, d2), min(d1, d2)
    orders = [(hi,) * 4] if hi == lo else [(hi, lo), (lo, hi)]
    cap = rules.point_cap
    # Per position reached: the most dice any way there used, and the first such move list.
    found: dict[Board, tuple[int, tuple[Move, ...]]] = {}
    # Positions already searched with the same dice left: every way on from there is known.
    seen: set[tuple[Side, Side, tuple[int, ...]]] = set()

    # With doubles and no cap, any legal order of the four moves can be replayed from the farthest
    # source down (a later move from farther back never needed an earlier one out of the way), so
    # the search only tries sources no farther than the last one. The Old English cap breaks this
    # (moving off a full point can make room), so it searches every order.
    ordered = hi == lo and cap >= 15

    def walk(me: Side, opp: Side, dice: tuple[int, ...], moves: tuple[Move, ...], top: int) -> None:
        moved = False
        if dice:
            die, rest = dice[0], dice[1:]
            sources = (BAR_POINT,) if me[BAR] else [p for p in range(min(top, 24), 0, -1) if me[p - 1]]
            # Bearing off is allowed only with everything home; the highest occupied point decides
            # where a higher die bears off from. Both are fixed for this node, so computed once.
            home = not any(me[6:])
            highest = max((p for p in range(6, 0, -1) if me[p - 1]), default=0) if home else 0
            for src in sources:
                dst = src - die
                hit = False
                if dst >= 1:
                    opposing = opp[24 - dst]
                    if opposing >= 2 or me[dst - 1] >= cap:
                        continue
                    hit = opposing == 1
                elif not home or (dst < 0 and src != highest):
                    continue
                else:
                    dst = OFF_POINT
                moved = True
                new_list = list(me)
                new_list[src - 1] -= 1
                if dst:
                    new_list[dst - 1] += 1
                new_me = tuple(new_list)
                new_opp = opp
                if hit:
                    opp_list = list(opp)
                    opp_list[24 - dst] = 0
                    opp_list[BAR] += 1
                    new_opp = tuple(opp_list)
                if not rest:
                    # The last die: record the position here rather than descend one more level.
                    pos = (new_opp, new_me)
                    if pos not in found or found[pos][0] < len(moves) + 1:
                        found[pos] = (len(moves) + 1, (*moves, Move(src, dst, hit)))
                    continue
                key = (new_me, new_opp, rest)
                if key not in seen:
                    seen.add(key)
                    walk(new_me, new_opp, rest, (*moves, Move(src, dst, hit)), src if ordered else BAR_POINT)
        if not moved:
            used = len(moves)
            pos = (opp, me)
            if pos not in found or found[pos][0] < used:
                found[pos] = (used, moves)

    opp0, me0 = board
    for order in orders:
        walk(me0, opp0, order, (), BAR_POINT)
    most = max(used for used, _ in found.values())
    plays = [Play(moves, pos) for pos, (used, moves) in found.items() if used == most]
    if most == 1 and hi != lo:
        # Only one die can be used: the higher one when it can be. A bear-off may use fewer pips
        # than its die, so the die is told by the positions a move of the higher die reaches.
        with_hi = {pos for _, pos in single_moves(board, hi, rules)}
        if with_hi:
            plays = [p for p in plays if p.result in with_hi]
    return tuple(plays)
