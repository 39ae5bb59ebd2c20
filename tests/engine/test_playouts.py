"""Random playouts of every registered game, with the game's invariants checked at every step."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from engine import VARIANTS, GameState
from engine.ai.random_player import random_action
from engine.backgammon.board import CHECKERS, POINTS, check_board
from engine.backgammon.game import BackgammonState, Phase
from engine.ring import TOKENS, RingState
from engine.space.game import SpaceState
from tests.engine.test_space_playouts import check_state as space_check_state

GAMES_PER_VARIANT = 2000  # marked slow: about a minute for ring
QUICK_GAMES_PER_VARIANT = 30  # the everyday run
QUICK_GAMES = {"backgammon": 12, "space": 2}  # whole matches, each step checked: about 6 s
SLOW_GAMES = {"backgammon": 60, "space": 20}  # about 30 s


def ring_invariants(state: GameState) -> None:
    assert isinstance(state, RingState)
    for seat in (0, 1):
        assert state.on_board(seat) + state.piles[seat] == TOKENS, "tokens are conserved"
    # One signed count per space: a space can never hold both colours.
    assert len(state.board) == 12 and all(isinstance(v, int) for v in state.board)


def backgammon_invariants(state: GameState) -> None:
    assert isinstance(state, BackgammonState)
    check_board((state.sides[0], state.sides[1]))  # 15 checkers at most a side, no point shared
    for side in state.sides:
        assert sum(side) <= CHECKERS
        assert max(side[:POINTS]) <= state.rules.point_cap, "Old English: five checkers a point at most"
    assert state.cube & (state.cube - 1) == 0, "the cube is a power of two"
    assert state.cube == 1 or state.uses_cube
    if not state.is_terminal():
        assert max(state.score) < state.length, "a match goes on only while nobody has won it"
    if state.crawford:
        assert not state.may_double(0) and not state.may_double(1), "no double in the Crawford game"
    if state.phase is Phase.PLAY:
        assert state.legal_actions(), "a play in progress can always be finished"


def space_invariants(state: GameState) -> None:
    assert isinstance(state, SpaceState)
    space_check_state(state)  # units and cards conserved, views hide the secrets


INVARIANTS: dict[str, Callable[[GameState], None]] = {
    "ring": ring_invariants,
    "backgammon": backgammon_invariants,
    "space": space_invariants,
}

PLAYOUT_OPTIONS: dict[str, list[dict[str, object]]] = {
    "backgammon": [
        {},
        {"length": 5},
        {"length": 3, "rules": "nackgammon"},
        {"length": 3, "rules": "oldenglish"},
    ],
}
"""Options the playouts go through in turn, for games with options (default: the defaults)."""


def test_every_registered_game_has_invariants() -> None:
    assert set(INVARIANTS) == set(VARIANTS)


def play_random_games(key: str, games: int, seed: int) -> None:
    """``games`` random games of ``key``, checking invariants, JSON round-trips and notation at every step."""
    variant = VARIANTS[key]
    check = INVARIANTS[key]
    rng = random.Random(seed)
    for game in range(games):
        choices = PLAYOUT_OPTIONS.get(key, [{}])
        state = variant.new_game(choices[game % len(choices)])
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
    play_random_games(key, QUICK_GAMES.get(key, QUICK_GAMES_PER_VARIANT), seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_random_playouts(key: str) -> None:
    play_random_games(key, SLOW_GAMES.get(key, GAMES_PER_VARIANT), seed=20261122)
