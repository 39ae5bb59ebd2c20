"""Random playouts of every registered game, with the game's invariants checked at every step.

Every game of ``VARIANTS`` is played: each step's JSON must round-trip and each legal action must
apply and read back from its notation. A game's own part (its invariants, its options, how many games)
is the module ``tests/engine/playouts/<game>.py`` if it has one (see that package): nothing here
names a game, so a new game is played as soon as its kit is registered.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType

import pytest

from engine import VARIANTS, GameState
from engine.ai.random_player import random_action
from engine.protocol import Variant

GAMES_PER_VARIANT = 2000  # marked slow: about a minute for ring
QUICK_GAMES_PER_VARIANT = 30  # the everyday run
PROFILES = "tests.engine.playouts"
"""The package of each game's own part of the playouts, a module per game named by its key."""


def profile(key: str) -> ModuleType | None:
    """The game's module of ``PROFILES``, if it has one."""
    name = f"{PROFILES}.{key}"
    return importlib.import_module(name) if importlib.util.find_spec(name) is not None else None


def no_invariants(state: GameState) -> None:
    """A game without invariants of its own: the generic checks of ``play_random_games`` only."""


def invariants(key: str) -> Callable[[GameState], None]:
    check: Callable[[GameState], None] = getattr(profile(key), "check", no_invariants)
    return check


def playout_options(key: str) -> list[Mapping[str, object]]:
    """The options the playouts go through in turn (default: the game's defaults)."""
    options: list[Mapping[str, object]] = getattr(profile(key), "OPTIONS", [{}])
    return options


def games_to_play(key: str, slow: bool) -> int:
    default = GAMES_PER_VARIANT if slow else QUICK_GAMES_PER_VARIANT
    count: int = getattr(profile(key), "SLOW_GAMES" if slow else "QUICK_GAMES", default)
    return count


def test_every_playout_module_is_a_registered_game() -> None:
    package = Path(__file__).with_name("playouts")
    modules = {p.stem for p in package.glob("*.py")} - {"__init__"}
    assert modules <= set(VARIANTS), f"playouts of no registered game: {sorted(modules - set(VARIANTS))}"


def play_random_games(key: str, games: int, seed: int, variant: Variant | None = None) -> None:
    """``games`` random games of ``key``, checking invariants, JSON round-trips and notation at every step."""
    variant = variant or VARIANTS[key]
    check = invariants(key)
    choices = playout_options(key)
    rng = random.Random(seed)
    for game in range(games):
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
    play_random_games(key, games_to_play(key, slow=False), seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_random_playouts(key: str) -> None:
    play_random_games(key, games_to_play(key, slow=True), seed=20261122)
