"""Computer players by game and name, for the arena (``python -m engine arena``).

``players.PLAYERS`` is what the bot plays with (one player per game); this table lists every player
a game has, by the names the arena accepts: ``random``, ``greedy`` and, for ring and backgammon,
``easy``, ``medium`` and ``hard`` (ring also ``lookahead``, an experimental expectimax player, not
stronger than ``hard`` so far; backgammon also ``pubeval``, Tesauro's benchmark evaluator).
"""

from __future__ import annotations

from engine.ai import backgammon_bgsage, backgammon_greedy, pubeval, ring_greedy, ring_levels
from engine.ai.players import ComputerPlayer
from engine.ai.random_player import random_choice

__all__ = ["LEVEL_PLAYERS", "ComputerPlayer", "UnknownPlayerError", "find_player"]

LEVEL_PLAYERS: dict[str, dict[str, ComputerPlayer]] = {
    "ring": {
        "random": random_choice,
        "greedy": ring_greedy.choose,
        "easy": ring_levels.easy,
        "medium": ring_levels.medium,
        "hard": ring_levels.hard,
        "lookahead": ring_levels.lookahead,
    },
    "backgammon": {
        "random": random_choice,
        "greedy": backgammon_greedy.choose,
        "pubeval": pubeval.choose,
        "easy": backgammon_bgsage.EASY,
        "medium": backgammon_bgsage.MEDIUM,
        "hard": backgammon_bgsage.HARD,
    },
}


class UnknownPlayerError(LookupError):
    """A player name the game does not have (the message is a sentence for the user)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def find_player(game: str, name: str) -> ComputerPlayer:
    """The player called ``name`` of ``game``; raises ``UnknownPlayerError`` naming the choices."""
    table = LEVEL_PLAYERS.get(game)
    if table is None:
        known = ", ".join(sorted(LEVEL_PLAYERS))
        raise UnknownPlayerError(f"no computer players for game {game!r} (games: {known})")
    try:
        return table[name.strip().lower()]
    except KeyError:
        known = ", ".join(table)
        raise UnknownPlayerError(f"{game} has no player called {name!r} (players: {known})") from None
