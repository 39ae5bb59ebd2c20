"""Fights (RULINGS space 7): force totals, who wins, and which units the winner may keep."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.memo import MB, bytes_lru, deep_size
from engine.space.board import FORCE


def force_total(units: Iterable[int], bonus: int = 0) -> int:
    """The sum of the units' force values plus the card bonuses."""
    return sum(FORCE[u] for u in units) + bonus


def winner_is_attacker(attacker_total: int, defender_total: int) -> bool:
    """The higher total wins; a tie goes to the defender."""
    return attacker_total > defender_total


def may_keep(units: Sequence[int], kept: Sequence[int], difference: int) -> bool:
    """Whether the winner, with ``units`` in the sector, may keep ``kept``: at least one unit, all
    of them the winner's there, either force totalling at most ``difference`` or a single unit."""
    if not kept or len(set(kept)) != len(kept) or not set(kept) <= set(units):
        return False
    return len(kept) == 1 or force_total(kept) <= difference


def keep_choices(units: Sequence[int], difference: int) -> list[tuple[int, ...]]:
    """Every distinct choice of units to keep, up to units of equal force (the lowest-numbered units
    of each force stand for their kind): the choices ``legal_actions`` lists."""
    return list(_keep_choices(tuple(sorted(units)), difference))


@bytes_lru(2 * MB, deep_size)
def _keep_choices(units: tuple[int, ...], difference: int) -> tuple[tuple[int, ...], ...]:
    by_force: dict[int, list[int]] = {}
    for u in units:
        by_force.setdefault(FORCE[u], []).append(u)
    forces = sorted(by_force, reverse=True)
    choices: set[tuple[int, ...]] = {(by_force[f][0],) for f in forces}  # any single unit
    counts = [0] * len(forces)

    def extend(i: int, budget: int) -> None:
        """Every count of each force from ``forces[i]`` on that keeps the total within ``budget``."""
        if i == len(forces):
            kept = tuple(sorted(u for f, n in zip(forces, counts, strict=True) for u in by_force[f][:n]))
            if kept:
                choices.add(kept)
            return
        force = forces[i]
        for n in range(min(len(by_force[force]), budget // force) + 1):
            counts[i] = n
            extend(i + 1, budget - n * force)
        counts[i] = 0

    extend(0, difference)
    return tuple(sorted(choices, key=lambda k: (-force_total(k), k)))
