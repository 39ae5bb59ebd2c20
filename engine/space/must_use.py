"""The must-use rule's search (RULINGS space 11): how many of the dice plain moves can use.

The state asks it for the dice still usable (``Table.dice_usable``) and the move lister for the
moves that keep them in use (``legal``); both hand over the units free to move as (sector, dice
used) pairs, the enemy's sectors and the direction of the side on turn.
"""

from __future__ import annotations

from engine.memo import MB, bytes_lru, deep_size
from engine.space.board import step


@bytes_lru(2 * MB, deep_size)
def max_dice(
    movers: tuple[tuple[int, int], ...], dice: tuple[int, ...], enemy: frozenset[int], direction: int
) -> int:
    """How many of ``dice`` can be used by plain moves of ``movers`` ((sector, dice used) of each unit
    free to move, sorted): a unit takes at most two dice and stops when a step ends on an enemy
    sector. Any unit can move by any die, so as many units as dice use them all; otherwise (two or
    three dice, fewer units) the few ways are tried."""
    if len(movers) >= len(dice):
        return len(dice)
    if not movers:
        return 0
    best = 0
    for d in sorted(set(dice)):
        rest = list(dice)
        rest.remove(d)
        for mover in sorted(set(movers)):
            got = 1 + max_dice(after_step(movers, mover, d, enemy, direction), tuple(rest), enemy, direction)
            if got > best:
                best = got
                if best == len(dice):
                    return best
    return best


def after_step(
    movers: tuple[tuple[int, int], ...],
    mover: tuple[int, int],
    value: int,
    enemy: frozenset[int],
    direction: int,
) -> tuple[tuple[int, int], ...]:
    """``movers`` after ``mover`` took the die ``value`` (``max_dice``'s step of the search): it may take a second die unless it stopped
    on an enemy sector or has now taken two."""
    others = list(movers)
    others.remove(mover)
    sector, used = mover
    target = step(sector, direction * value)
    if used == 0 and target not in enemy:
        others.append((target, 1))
    return tuple(sorted(others))
