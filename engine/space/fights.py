"""Fights (RULINGS space 7): force totals, who wins, and which units the winner may keep."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import product

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


@lru_cache(maxsize=4096)
def _keep_choices(units: tuple[int, ...], difference: int) -> tuple[tuple[int, ...], ...]:
    by_force: dict[int, list[int]] = {}
    for u in sorted(units):
        by_force.setdefault(FORCE[u], []).append(u)
    forces = sorted(by_force, reverse=True)
    choices: set[tuple[int, ...]] = set()
    for counts in product(*(range(len(by_force[f]) + 1) for f in forces)):
        total = sum(f * n for f, n in zip(forces, counts, strict=True))
        n_units = sum(counts)
        if n_units == 0 or (total > difference and n_units != 1):
            continue
        kept = tuple(sorted(u for f, n in zip(forces, counts, strict=True) for u in by_force[f][:n]))
        choices.add(kept)
    return tuple(sorted(choices, key=lambda k: (-force_total(k), k)))
