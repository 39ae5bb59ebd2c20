"""Computer players: one function per game from a state to an action, registered by game key."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.ai import ring_greedy
from engine.ai.random_player import random_action
from engine.protocol import Action, GameState

ComputerPlayer = Callable[[GameState, random.Random], Action]

PLAYERS: dict[str, ComputerPlayer] = {
    "ring": ring_greedy.choose,
}


def computer_action(state: GameState, rng: random.Random) -> Action:
    """The registered computer player's choice; games without one get a random legal action."""
    player = PLAYERS.get(state.variant_key, random_action)
    return player(state, rng)
