"""Computer players: one function per game from a state to an action, registered by game key."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.ai import ring_greedy
from engine.ai.random_player import random_choice
from engine.protocol import Action, GameView

ComputerPlayer = Callable[[GameView, random.Random], Action]
"""A computer player sees what its seat may see, never the opponent's secrets."""

PLAYERS: dict[str, ComputerPlayer] = {
    "ring": ring_greedy.choose,
}


def computer_action(view: GameView, rng: random.Random) -> Action:
    """The registered computer player's choice; games without one get a random legal action."""
    player = PLAYERS.get(view.variant_key, random_choice)
    return player(view, rng)
