"""Computer players by game and name, for the arena (``python -m engine arena``).

``players.PLAYERS`` is what the bot plays with (one player per game); this table lists every player
a game has (its kit's ``players``), by the names the arena accepts: ``random``, ``greedy``, the levels
``easy``, ``medium``, ``hard`` and ``expert`` as far as the game has them, and any player of its own.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.ai.players import PLAYERS, ComputerPlayer
from engine.protocol import Action, GameView
from kits import KITS, KitTable

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "LEVEL_PLAYERS",
    "LEVEL_TITLES",
    "ComputerPlayer",
    "UnknownPlayerError",
    "find_player",
    "level_player",
    "levels_of",
    "seeded_move",
]

LEVELS = ("easy", "medium", "hard", "expert")
"""The levels players choose from (``/challenge level:``), weakest first (``expert``: backgammon only)."""
LEVEL_TITLES = {
    "easy": "easy",
    "medium": "medium",
    "hard": "hard",
    "expert": "expert: world class (backgammon)",
}
"""How ``/challenge level:`` lists each level (``expert``: GNU Backgammon's "world class", at the depth
of the hints)."""
DEFAULT_LEVEL = "medium"
"""The level of a computer match when the player names none (if the game has it)."""

LEVEL_PLAYERS: Mapping[str, Mapping[str, ComputerPlayer]] = KitTable(KITS, lambda kit: kit.players)
"""Every computer player of each game by name, from the kits (``GameKit.players``)."""


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


def levels_of(game: str) -> tuple[str, ...]:
    """Which of ``LEVELS`` the game's computer plays at."""
    table = LEVEL_PLAYERS.get(game, {})
    return tuple(level for level in LEVELS if level in table)


def level_player(game: str, level: str | None) -> ComputerPlayer:
    """The computer player of ``game`` at ``level``; ``None`` (a match saved before levels, or a game
    without levels yet) is the game's one registered player, ``players.PLAYERS``."""
    if level is None:
        if game not in PLAYERS:
            raise UnknownPlayerError(f"no computer player for game {game!r}")
        return PLAYERS[game]
    if level not in levels_of(game):
        known = ", ".join(levels_of(game)) or "none yet"
        raise UnknownPlayerError(f"{game} has no computer level {level!r} (levels: {known})")
    return LEVEL_PLAYERS[game][level]


def seeded_move(game: str, level: str | None, view: GameView, seed: int) -> Action:
    """The move of ``level_player(game, level)`` in ``view`` with ``random.Random(seed)`` as its
    randomness: a pure function of its arguments, so the bot may compute it in another process (it
    draws the seed from its own source) and a test's seeded games stay the same wherever it runs."""
    return level_player(game, level)(view, random.Random(seed))
