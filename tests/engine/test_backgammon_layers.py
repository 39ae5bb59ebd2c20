"""Backgammon as match ∘ game ∘ position (issue 22): each field lives in one layer, a change rebuilds
only the layers it touches, and the state reads, saves and travels (pickle) as before."""

from __future__ import annotations

import dataclasses
import pickle
import random

from engine.ai.random_player import random_action
from engine.backgammon.game import BackgammonState
from engine.backgammon.layers import GAME_FIELDS, MATCH_FIELDS, POSITION_FIELDS, Game, Match, Position
from engine.backgammon.variant import VARIANT


def played(seed: int, count: int) -> BackgammonState:
    rng = random.Random(seed)
    state = VARIANT.new_game({"length": 5})
    for _ in range(count):
        state = state.apply(random_action(state, rng))
    assert isinstance(state, BackgammonState)
    return state


def test_every_field_lives_in_exactly_one_layer() -> None:
    layers = {
        Position: POSITION_FIELDS,
        Game: (*GAME_FIELDS, "position"),
        Match: (*MATCH_FIELDS, "game"),
    }
    for layer, names in layers.items():
        assert {f.name for f in dataclasses.fields(layer)} == set(names)
    assert not set(POSITION_FIELDS) & set(GAME_FIELDS) | set(GAME_FIELDS) & set(MATCH_FIELDS)


def test_a_change_rebuilds_only_the_layers_it_touches() -> None:
    state = played(3, 60)
    scored = state.but(score=(2, 1))
    assert scored.score == (2, 1) and scored.match.game is state.match.game
    moved = state.but(dice_left=())
    assert moved.match.game.position is not state.match.game.position
    assert moved.match.game.cube == state.cube and moved.score == state.score
    doubled = state.but(cube=4, cube_owner=1)
    assert doubled.match.game.position is state.match.game.position and doubled.cube == 4
    said = state.but(last="hello")
    assert said.match is state.match and said.last == "hello"


def test_made_from_fields_by_name_and_read_back_the_same() -> None:
    state = played(5, 80)
    fields = {name: getattr(state, name) for name in (*POSITION_FIELDS, *GAME_FIELDS, *MATCH_FIELDS)}
    again = BackgammonState(
        **fields,
        turn_number=state.turn_number,
        game_start_turn=state.game_start_turn,
        last=state.last,
        continues=state.continues,
    )
    assert again == state and again.to_json() == state.to_json()
    assert dataclasses.replace(state, score=(1, 1)) == state.but(score=(1, 1))
    assert pickle.loads(pickle.dumps(state)) == state
    assert VARIANT.from_json(state.to_json()) == state
