"""A knockout bracket: seeding, the first round's byes, and who meets whom next.

The bracket is positional: table ``t`` of round ``r`` feeds table ``(t + 1) // 2`` of round
``r + 1``, so the seeds' paths are fixed from the start and seeds 1 and 2 can meet only in the final.
A table that sends nobody on (both forfeited, or its winner withdrew) gives the next opponent a bye."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.tournament.model import Entrant, Pairing, Result


def seeded(entrants: Sequence[Entrant]) -> list[Entrant]:
    """Best rating first; equal ratings by sign-up order."""
    return sorted(entrants, key=lambda e: (-e.rating, e.joined))


def rounds_for(field: int) -> int:
    """Rounds to a champion: log2 of the field rounded up to a power of two."""
    return (field - 1).bit_length()


def bracket_order(size: int) -> list[int]:
    """Seeds in bracket order for a power-of-two ``size``: 1 v size, and each half again split so
    that the better seed of every table is in line to meet the best seed last (8: 1 8 4 5 2 7 3 6)."""
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, mirror - top)]
    return order


def first_round(entrants: Sequence[Entrant]) -> list[Pairing]:
    """Round 1: seed s meets seed size+1-s; where that seed does not exist the top seed has a bye, so
    exactly the byes needed make round 2 a power of two."""
    seeds = seeded(entrants)
    size = 1 << rounds_for(len(seeds))
    order = bracket_order(size)
    pairings = []
    for index in range(size // 2):
        top, bottom = order[2 * index], order[2 * index + 1]
        second = seeds[bottom - 1].player if bottom <= len(seeds) else None
        pairings.append(Pairing(1, index + 1, seeds[top - 1].player, second))
    return pairings


def tables_in(round_: int, rounds: int) -> int:
    """How many table positions round ``round_`` has in a bracket of ``rounds`` rounds."""
    return 1 << (rounds - round_)


def going_on(
    round_: int,
    rounds: int,
    results: Mapping[tuple[int, int], Result],
    withdrawn: frozenset[int],
) -> list[int | None]:
    """Per table position of ``round_``, the player it sends on (None: nobody)."""
    winners: list[int | None] = []
    for table in range(1, tables_in(round_, rounds) + 1):
        result = results.get((round_, table))
        winner = result.winner if result is not None else None
        winners.append(winner if winner is not None and winner not in withdrawn else None)
    return winners


def next_round(
    round_: int,
    rounds: int,
    results: Mapping[tuple[int, int], Result],
    withdrawn: frozenset[int],
) -> list[Pairing]:
    """The pairings of round ``round_ + 1``; a position nobody reaches has no pairing at all."""
    winners = going_on(round_, rounds, results, withdrawn)
    pairings = []
    for index in range(len(winners) // 2):
        upper, lower = winners[2 * index], winners[2 * index + 1]
        if upper is None and lower is None:
            continue
        if upper is None:
            upper, lower = lower, None
        assert upper is not None
        pairings.append(Pairing(round_ + 1, index + 1, upper, lower))
    return pairings
