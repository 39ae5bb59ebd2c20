"""Every end of a ring turn, computed on bare positions for the computer's look-ahead.

The engine's ``RingState.apply`` builds a full state with the text of every step, which a search
that meets tens of thousands of positions per decision cannot afford. This module plays the same
rules (``engine/ring/``, the rulings of cogs/rules/ring.md) on a bare position, a board tuple and
the two piles, and returns only where a turn can end and who, if anyone, has won there
(``roll_ends``), or where the uniform random player's turn ends (``random_turn``, for the rollouts
of bench/ring_headroom.py). tests/engine/test_ring_turns.py checks both against the engine over
many positions and rolls, so the engine stays the one authority on the rules.
"""

from __future__ import annotations

import random

from engine.memo import bytes_lru, deep_size
from engine.ring import FIVE_MASKS, QUARTERS, SPACES, can_step

Board = tuple[int, ...]
Piles = tuple[int, int]
Ends = dict[tuple[Board, Piles], int | None]
"""Where a turn can end, (board, piles), each with the seat that has won there or ``None``."""

_SHAPE_MASKS = tuple(q.mask for q in QUARTERS) + tuple(mask for mask, _ in FIVE_MASKS)


def _seat_wins(mine: int, enemy: int) -> bool:
    if enemy == 0 or mine.bit_count() >= 9:
        return True
    return any(mine & mask == mask for mask in _SHAPE_MASKS)


def winner(board: Board, mover: int) -> int | None:
    """The seat that has won on ``board``, the mover checked first (ruling 10), or ``None``."""
    red = blue = 0
    for i, v in enumerate(board):
        if v > 0:
            red |= 1 << i
        elif v < 0:
            blue |= 1 << i
    occupied = (red, blue)
    for seat in (mover, 1 - mover):
        if _seat_wins(occupied[seat], occupied[1 - seat]):
            return seat
    return None


def _steps(board: Board, sign: int, die: int) -> list[tuple[int, int]]:
    """Every single step with ``die`` as (source index, tokens moved), must-move aside (ruling 8)."""
    steps = []
    for i, v in enumerate(board):
        mine = v * sign
        if mine <= 0:
            continue
        there = board[(i + die) % SPACES] * sign
        smallest = -there if there < 0 else 1
        for count in range(smallest, mine + 1):
            steps.append((i, count))
    return steps


def _after_step(
    board: Board, piles: Piles, seat: int, source: int, count: int, die: int
) -> tuple[Board, Piles]:
    sign = 1 if seat == 0 else -1
    cells = list(board)
    cells[source] -= count * sign
    target = (source + die) % SPACES
    captured = 0
    if cells[target] * sign < 0:
        captured = -cells[target] * sign
        cells[target] = 0
    cells[target] += count * sign
    if captured:
        piles = (piles[0] + captured, piles[1]) if seat == 1 else (piles[0], piles[1] + captured)
    return tuple(cells), piles


def _legal_steps(board: Board, piles: Piles, seat: int, dice: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """The steps (source, count, die) the must-move rule allows (rulings 9 and 12)."""
    sign = 1 if seat == 0 else -1
    if len(dice) == 1:
        return [(source, count, dice[0]) for source, count in _steps(board, sign, dice[0])]
    first, second = dice
    both: list[tuple[int, int, int]] = []
    single: list[tuple[int, int, int]] = []
    stranding: list[tuple[tuple[int, int, int], Board]] = []
    for die, other in ((first, second), (second, first)) if first != second else ((first, second),):
        for source, count in _steps(board, sign, die):
            step = (source, count, die)
            single.append(step)
            after, _ = _after_step(board, piles, seat, source, count, die)
            if can_step(after, sign, other):
                both.append(step)
            else:
                stranding.append((step, after))
    if not both or not stranding:
        return both if both else single
    winning = {step for step, after in stranding if winner(after, seat) == seat}
    if not winning:
        return both
    stranded = {step for step, _ in stranding}
    return [step for step in single if step in winning or step not in stranded]


def _move_ends(board: Board, piles: Piles, seat: int, dice: tuple[int, ...], ends: Ends) -> None:
    sign = 1 if seat == 0 else -1
    for source, count, die in _legal_steps(board, piles, seat, dice):
        after, after_piles = _after_step(board, piles, seat, source, count, die)
        won = winner(after, seat)
        left = dice[1:] if dice[0] == die else dice[:1]
        if won is None and left and _steps(after, sign, left[0]):
            _move_ends(after, after_piles, seat, left, ends)
        else:
            ends.setdefault((after, after_piles), won)


def _place(
    board: Board, piles: Piles, seat: int, space: int, wanted: int, blocked_by: int
) -> tuple[Board, Piles] | None:
    """Tokens from the pile onto ``space`` (rulings 4 and 7), capturing what is there; ``None`` if
    blocked or the pile is empty."""
    sign = 1 if seat == 0 else -1
    index = space - 1
    enemy_here = max(-board[index] * sign, 0)
    if enemy_here >= blocked_by or piles[seat] == 0:
        return None
    placing = min(wanted, piles[seat])
    cells = list(board)
    cells[index] = (0 if enemy_here else cells[index]) + placing * sign
    counts = [piles[0], piles[1]]
    counts[seat] -= placing
    counts[1 - seat] += enemy_here
    return tuple(cells), (counts[0], counts[1])


ROLL_ENDS_BYTES = 16 << 20
"""Bytes of (position, roll) results kept (about 1 KB each, so some 16,000): about a third of the
look-ahead's calls find theirs here (hard against random, 60 games)."""


def _before_moving(
    board: Board, piles: Piles, seat: int, white1: int, white2: int, black: int
) -> list[tuple[Board, Piles]] | None:
    """What the roll does before the move phase (rulings 4 to 7): the positions it can end the turn
    in, one per choice the engine offers and in the engine's order (the placement; each swap, own
    stack then enemy stack; each knock-out; the position unchanged when odds or evens find nothing
    to act on), or ``None`` when the turn goes on to the move phase."""
    ordered = sorted((white1, white2, black))
    if white1 == white2 == black:
        placed = _place(board, piles, seat, white1, wanted=2, blocked_by=3)
        if placed is not None:
            return [placed]
    elif ordered in ([1, 3, 5], [2, 4, 6]):
        sign = 1 if seat == 0 else -1
        own = [i for i, v in enumerate(board) if v * sign > 0]
        enemy = [i for i, v in enumerate(board) if v * sign < 0]
        if ordered[0] == 1 and own and enemy:
            swaps = []
            for a in own:
                for b in enemy:
                    cells = list(board)
                    cells[a], cells[b] = cells[b], cells[a]
                    swaps.append((tuple(cells), piles))
            return swaps
        if ordered[0] == 2 and enemy:
            knocks = []
            for b in enemy:
                cells = list(board)
                cells[b] = 0
                n = abs(board[b])
                knocks.append(
                    (tuple(cells), (piles[0] + n, piles[1]) if seat == 1 else (piles[0], piles[1] + n))
                )
            return knocks
        return [(board, piles)]
    if white1 == white2:
        placed = _place(board, piles, seat, white1, wanted=1, blocked_by=2)
        if placed is not None:
            return [placed]
    return None


@bytes_lru(ROLL_ENDS_BYTES, deep_size)
def roll_ends(board: Board, piles: Piles, seat: int, white1: int, white2: int, black: int) -> Ends:
    """Where the turn of ``seat`` can end once it has rolled ``white1``-``white2``-``black`` (rulings
    3 to 12), each end with its winner (or ``None``). The result is cached: do not change it."""
    ends: Ends = {}
    chosen = _before_moving(board, piles, seat, white1, white2, black)
    if chosen is not None:
        for position in chosen:
            ends.setdefault(position, winner(position[0], seat))
        return ends
    _move_ends(board, piles, seat, (white1, white2), ends)
    if not ends:
        ends[(board, piles)] = None
    return ends


def random_turn(
    board: Board, piles: Piles, seat: int, white1: int, white2: int, black: int, rng: random.Random
) -> tuple[Board, Piles, int | None]:
    """The end of a turn played by the uniform random player (``random_player.random_choice``): at
    every decision the engine would ask for, one of its legal actions, drawn with ``rng`` exactly as
    that player draws it (same lists in the same order, one ``choice`` per decision), so a seeded
    game here is the game the engine plays. Returns the board, the piles and the winner (or ``None``).
    For rollouts: a bare turn is far cheaper than the engine's."""
    chosen = _before_moving(board, piles, seat, white1, white2, black)
    if chosen is not None:
        # The engine asks only for a swap or a knock-out (a placement is not a choice), and a swap
        # or knock-out always changes the board.
        decided = sorted((white1, white2, black)) in ([1, 3, 5], [2, 4, 6]) and chosen[0] != (board, piles)
        end_board, end_piles = rng.choice(chosen) if decided else chosen[0]
        return end_board, end_piles, winner(end_board, seat)
    sign = 1 if seat == 0 else -1
    dice: tuple[int, ...] = (white1, white2)
    while dice:
        steps = _legal_steps(board, piles, seat, dice)
        if not steps:
            break
        source, count, die = rng.choice(steps)
        board, piles = _after_step(board, piles, seat, source, count, die)
        won = winner(board, seat)
        if won is not None:
            return board, piles, won
        dice = dice[1:] if dice[0] == die else dice[:1]
        if dice and not _steps(board, sign, dice[0]):
            break
    return board, piles, None
