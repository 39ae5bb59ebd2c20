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
from engine.protocol import Variant
from engine.ring import TOKENS, RingState
from engine.space.board import PLANETS, SCRAP, SECTORS, UNITS_PER_SIDE, controller, units_of
from engine.space.cards import DECK_SIZE
from engine.space.game import SpaceState, SpaceWin
from tests.engine.test_space_playouts import check_state as space_check_state

GAMES_PER_VARIANT = 2000  # marked slow: about a minute for ring
QUICK_GAMES_PER_VARIANT = 30  # the everyday run
QUICK_GAMES = {"backgammon": 12, "space": 8}  # whole matches or long games, each step checked: 6 s, 3 s
SLOW_GAMES = {"backgammon": 60, "space": 100}  # about 30 s, about a minute


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
    positions = state.positions
    assert len(positions) == 2 * UNITS_PER_SIDE and all(0 <= p <= SECTORS for p in positions)
    for seat in (0, 1):
        on_board = sum(1 for u in units_of(seat) if positions[u] != SCRAP)
        scrapped = sum(1 for u in units_of(seat) if positions[u] == SCRAP)
        assert on_board + scrapped == 15, "units are conserved between the board and the scrap heap"
    cards = sorted((*state.deck, *state.hands[0], *state.hands[1], *state.vortex))
    assert cards == list(range(DECK_SIZE)) == list(range(50)), "cards are conserved: deck, hands, vortex"
    outcome = state.outcome()
    if outcome is not None and outcome.winner is not None:
        if outcome.reason == SpaceWin.ALL_PLANETS:
            assert all(controller(positions, p) == outcome.winner for p in PLANETS)
        else:
            assert all(positions[u] == SCRAP for u in units_of(1 - outcome.winner)), "the loser has no unit"
    space_check_state(state)  # and the views hide the secrets


INVARIANTS: dict[str, Callable[[GameState], None]] = {
    "ring": ring_invariants,
    "backgammon": backgammon_invariants,
    "space": space_invariants,
}
"""Keyed by game: a game's invariants run as soon as it is in the registry."""

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
    assert set(VARIANTS) <= set(INVARIANTS)


def play_random_games(key: str, games: int, seed: int, variant: Variant | None = None) -> None:
    """``games`` random games of ``key``, checking invariants, JSON round-trips and notation at every step."""
    variant = variant or VARIANTS[key]
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
