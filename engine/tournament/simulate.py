"""Whole tournaments played without matches, for tests, benchmarks and the sandbox: a rule decides
every open table, rounds are advanced until a champion is known."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.tournament.model import Entrant, Pairing, Result
from engine.tournament.state import Tournament

Decide = Callable[[Tournament, Pairing], Result]


def favourite_wins(t: Tournament, pairing: Pairing) -> Result:
    """The better seed wins every table."""
    assert pairing.second is not None
    winner = min(pairing.players, key=t.seed)
    return Result(pairing.round, pairing.table, winner, "played")


def play_round(t: Tournament, decide: Decide = favourite_wins) -> Tournament:
    """Every open table of the current round decided by ``decide``."""
    for pairing in t.open_pairings():
        t = t.record(decide(t, pairing))
    return t


def play_out(t: Tournament, decide: Decide = favourite_wins) -> Tournament:
    """Rounds played and advanced until the tournament is finished."""
    while True:
        t = play_round(t, decide)
        if t.finished:
            return t
        t = t.advance()


def field(size: int) -> list[Entrant]:
    """``size`` entrants, players 1..size, rated so that player 1 is the best."""
    return [Entrant(player, 2000.0 - 10 * player, player) for player in range(1, size + 1)]


def everyone(entrants: Sequence[Entrant]) -> dict[int, str]:
    """Made-up names for a field, some long, for pictures of simulated events."""
    return {
        e.player: f"Player {e.player}" if e.player % 5 else f"A rather long name {e.player}" for e in entrants
    }
