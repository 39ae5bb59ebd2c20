"""Points and tie-breaks, from the decided tables only.

A win is one point, a bye one point, a loss (a both-forfeit too) none. Buchholz is the sum of the
points of everyone a player met; Sonneborn-Berger the sum of the points of everyone they beat. Swiss
ranks by points, Buchholz, Sonneborn-Berger, then rating; knockout by how far a player got."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.tournament.model import Entrant, Pairing, Result, Standing


@dataclass(slots=True)
class Record:
    """One player's decided tables, as the standings need them."""

    points: float = 0.0
    wins: int = 0
    losses: int = 0
    byes: int = 0
    met: list[int] = field(default_factory=list)
    beat: list[int] = field(default_factory=list)
    reached: int = 0
    lost: bool = False


def records(
    entrants: Sequence[Entrant], pairings: Iterable[Pairing], results: Mapping[tuple[int, int], Result]
) -> dict[int, Record]:
    table = {e.player: Record() for e in entrants}
    for pairing in pairings:
        for player in pairing.players:
            table[player].reached = max(table[player].reached, pairing.round)
        result = results.get((pairing.round, pairing.table))
        if result is None:
            continue
        if pairing.second is None:
            table[pairing.first].byes += 1
            table[pairing.first].points += 1
            continue
        for player, other in ((pairing.first, pairing.second), (pairing.second, pairing.first)):
            record = table[player]
            record.met.append(other)
            if result.winner == player:
                record.wins += 1
                record.points += 1
                record.beat.append(other)
            else:
                record.losses += 1
                record.lost = True
    return table


def standings(
    entrants: Sequence[Entrant],
    table: Mapping[int, Record],
    out: frozenset[int],
    knockout: bool,
) -> list[Standing]:
    """The rows best first; ranks are 1, 2, 3 ... with no shared places (the last key is sign-up)."""
    buchholz = {p: sum(table[o].points for o in r.met) for p, r in table.items()}
    sonneborn = {p: sum(table[o].points for o in r.beat) for p, r in table.items()}

    def swiss_key(e: Entrant) -> tuple[float, ...]:
        return (-table[e.player].points, -buchholz[e.player], -sonneborn[e.player], -e.rating, e.joined)

    def knockout_key(e: Entrant) -> tuple[float, ...]:
        return (e.player in out, -table[e.player].reached, *swiss_key(e))

    ordered = sorted(entrants, key=knockout_key if knockout else swiss_key)
    return [
        Standing(
            rank=rank,
            player=e.player,
            points=table[e.player].points,
            buchholz=buchholz[e.player],
            sonneborn_berger=sonneborn[e.player],
            wins=table[e.player].wins,
            losses=table[e.player].losses,
            byes=table[e.player].byes,
            out=e.player in out,
        )
        for rank, e in enumerate(ordered, start=1)
    ]
