"""Random playouts of every registered game, with the game's invariants checked at every step."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from engine import VARIANTS, GameState
from engine.ai.random_player import random_action
from engine.ring import TOKENS, RingState

GAMES_PER_VARIANT = 2000  # marked slow: about a minute for ring
QUICK_GAMES_PER_VARIANT = 30  # the everyday run


def ring_invariants(state: GameState) -> None:
    assert isinstance(state, RingState)
    for seat in (0, 1):
        assert state.on_board(seat) + state.piles[seat] == TOKENS, "tokens are conserved"
    # One signed count per space: a space can never hold both colours.
    assert len(state.board) == 12 and all(isinstance(v, int) for v in state.board)


INVARIANTS: dict[str, Callable[[GameState], None]] = {
    "ring": ring_invariants,
}


def test_every_registered_game_has_invariants() -> None:
    assert set(INVARIANTS) == set(VARIANTS)


def play_random_games(key: str, games: int, seed: int) -> None:
    """``games`` random games of ``key``, checking invariants, JSON round-trips and notation at every step."""
    variant = VARIANTS[key]
    check = INVARIANTS[key]
    rng = random.Random(seed)
    for game in range(games):
        state = variant.new_game()
        for _step in range(10_000):
            check(state)
            data = state.to_json()
            again = variant.from_json(json.loads(json.dumps(data)))
            assert again == state and again.to_json() == data, "the JSON form round-trips exactly"
            if state.is_terminal():
                break
            legal = state.legal_actions()
            for action in legal:  # every legal action applies and its notation reads back
                state.apply(action)
                assert variant.parse_action(state, action.notation) == action
            state = state.apply(random_action(state, rng))
        else:
            pytest.fail(f"{key} game {game} did not end within 10000 actions")


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_a_few_random_playouts(key: str) -> None:
    play_random_games(key, QUICK_GAMES_PER_VARIANT, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_random_playouts(key: str) -> None:
    play_random_games(key, GAMES_PER_VARIANT, seed=20261122)
