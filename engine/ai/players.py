"""Computer players: one function per game from what its seat may see (a view) to an action, registered by game key.

Every registered game has an entry, even if it is only ``random_choice``: a game is never left to a
silent fallback (``tests/test_registries.py`` checks the keys against ``VARIANTS``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from engine.protocol import Action, GameView
from kits import KITS, KitTable, Part

ComputerPlayer = Callable[[GameView, random.Random], Action]
"""A computer player sees what its seat may see, never the opponent's secrets."""

PLAYERS: Mapping[str, ComputerPlayer] = KitTable(KITS, lambda kit: Part(kit.players.get()[kit.bot_player]))
"""The player of a computer match saved without a level, per game (the kit's ``bot_player``)."""


class NoComputerPlayerError(LookupError):
    """The game has no registered computer player (a registry bug, not a user's mistake)."""


def computer_action(view: GameView, rng: random.Random) -> Action:
    """The registered computer player's choice, from what its seat may see."""
    try:
        player = PLAYERS[view.variant_key]
    except KeyError:
        known = ", ".join(sorted(PLAYERS))
        raise NoComputerPlayerError(
            f"no computer player is registered for {view.variant_key!r} (registered: {known})"
        ) from None
    return player(view, rng)
