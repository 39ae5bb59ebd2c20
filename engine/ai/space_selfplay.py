"""Random playouts of space without the registry (a driver: the rules in ``engine/space`` draw no random
number, this module resolves their chance steps): ``random_playout(seed)`` resolves every chance
step with a seeded RNG and picks uniformly among the legal actions; ``selfplay_space`` plays many."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from engine.protocol import CHANCE, ChanceKind
from engine.space.game import SpaceState
from engine.space.variant import VARIANT

MAX_ACTIONS = 20000
"""A bound no random game has come near; a game still going after it is a bug."""


def random_playout(
    seed: int, check: Callable[[SpaceState], None] | None = None, max_actions: int = MAX_ACTIONS
) -> tuple[SpaceState, int]:
    """Play one random game from the start; the final state and the number of actions taken."""
    rng = random.Random(seed)
    state = VARIANT.new_game()
    actions = 0
    while state.outcome() is None:
        if actions >= max_actions:
            raise RuntimeError(f"game {seed} did not end within {max_actions} actions")
        if check is not None:
            check(state)
        if state.to_move() == CHANCE:
            spec = state.chance()
            assert spec is not None
            if spec.kind is ChanceKind.SHUFFLE:
                order = list(range(spec.count))
                rng.shuffle(order)
                action = state.chance_action(order)
            else:
                action = state.chance_action([rng.randint(1, spec.sides) for _ in range(spec.count)])
        else:
            action = rng.choice(state.legal_actions())
        state = state.apply(action)
        actions += 1
    if check is not None:
        check(state)
    return state, actions


def selfplay_space(games: int, seed: int = 0) -> tuple[int, float]:
    """Play ``games`` random games; (total actions, games per second)."""
    start = time.perf_counter()
    total = 0
    for i in range(games):
        _, n = random_playout(seed + i)
        total += n
    elapsed = time.perf_counter() - start
    return total, games / elapsed if elapsed > 0 else float("inf")
