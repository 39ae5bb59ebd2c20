"""Sample positions of a game, found by playing seeded random games: the pictures of
``python -m render sample`` and the boards of the rules pages. Each game lists its situations in
``render/<game>_samples.py`` (a ``SampleSet``, named by its kit)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine import find_variant
from engine.ai.random_player import random_action
from engine.protocol import GameState

MAX_GAMES = 3000
"""How many seeded games the search plays at most before it gives up on what it has not found."""


@dataclass(frozen=True, slots=True)
class SampleSet:
    """The sample pictures of one game: every name it may write, and the search that finds them."""

    names: tuple[str, ...]
    find: Callable[[int, frozenset[str]], list[tuple[str, GameState]]]


def seeded_games(key: str, seed: int) -> Iterator[list[GameState]]:
    """Whole random games, one per seed from ``seed`` on, each as its list of states."""
    variant = find_variant(key)
    for n in range(seed, seed + MAX_GAMES):
        rng = random.Random(n)
        state = variant.new_game()
        states = [state]
        while state.outcome() is None:
            state = state.apply(random_action(state, rng))
            states.append(state)
        yield states


def situation_samples(
    game: str,
    situations: dict[str, Callable[[Any], bool]],
    ways_to_win: int,
    seed: int,
    wanted: frozenset[str],
) -> list[tuple[str, GameState]]:
    """The first state of seeded random games of ``game`` in each of ``situations``, in their order,
    and one finished game per way of winning. The search stops once it has everything (every
    situation and ``ways_to_win`` endings), or as soon as it has the ``wanted`` names if given."""
    found: dict[str, GameState] = {"start": find_variant(game).new_game()}
    wins: dict[str, GameState] = {}
    for states in seeded_games(game, seed):
        for state in states:
            for name, test in situations.items():
                if name not in found and test(state):
                    found[name] = state
            outcome = state.outcome()
            if outcome is not None and f"won-{outcome.reason}" not in wins:
                wins[f"won-{outcome.reason}"] = state
        if wanted and wanted <= set(found) | set(wins):
            break
        if len(found) == len(situations) + 1 and len(wins) >= ways_to_win:
            break
    ordered = [(name, found[name]) for name in ("start", *situations) if name in found]
    return ordered + sorted(wins.items())
