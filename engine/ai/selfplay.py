"""Self-play: games between two uniformly random players, for measuring and for smoke-testing rules,
and the action log of a game between any two computer players (``notations_played``)."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.ai.random_player import random_action, sample_outcome
from engine.protocol import CHANCE, GameState, Variant

if TYPE_CHECKING:  # the players table imports every game's players (bgsage): not needed to run
    from engine.ai.players import ComputerPlayer

MAX_ACTIONS = 100_000


@dataclass(frozen=True, slots=True)
class SelfplayReport:
    game: str
    games: int
    seed: int
    wins: tuple[int, int]
    draws: int
    wins_by_condition: dict[str, int]
    mean_turns: float
    max_turns: int
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "games": self.games,
            "seed": self.seed,
            "wins_per_seat": {"0": self.wins[0], "1": self.wins[1]},
            "draws": self.draws,
            "wins_per_condition": dict(sorted(self.wins_by_condition.items())),
            "mean_turns": round(self.mean_turns, 2),
            "max_turns": self.max_turns,
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games / self.seconds, 1) if self.seconds else None,
        }


def random_states(
    variant: Variant, rng: random.Random, max_actions: int = MAX_ACTIONS
) -> Iterator[GameState]:
    """Every state of one game between random players (chance sampled from ``rng`` too), from the
    new game to the end; ``RuntimeError`` if it has not ended after ``max_actions`` actions."""
    state = variant.new_game()
    yield state
    for _ in range(max_actions):
        if state.outcome() is not None:
            return
        state = state.apply(random_action(state, rng))
        yield state
    raise RuntimeError(f"a random game of {variant.key} did not end within {max_actions} actions")


def notations_played(
    variant: Variant,
    options: Mapping[str, Any] | None,
    players: Sequence[ComputerPlayer],
    rng: random.Random,
    max_actions: int = MAX_ACTIONS,
) -> Iterator[str]:
    """The notations of the actions of one game or match played by ``players`` (seat 0, seat 1),
    in order (its action log), chance and players drawing from ``rng``; ``RuntimeError`` if it has
    not ended after ``max_actions`` actions."""
    state = variant.new_game(options)
    for _ in range(max_actions):
        if state.outcome() is not None:
            return
        seat = state.to_move()
        if seat == CHANCE:
            spec = state.chance()
            assert spec is not None
            action = state.chance_action(sample_outcome(spec, rng))
        else:
            action = players[seat](state.view(seat), rng)
        yield action.notation
        state = state.apply(action)
    raise RuntimeError(f"a game of {variant.key} did not end within {max_actions} actions")


def play_random_game(variant: Variant, rng: random.Random) -> tuple[str, int | None, int]:
    """Play one game between random players: (win reason, winner, turns)."""
    state = variant.new_game()
    for _ in range(MAX_ACTIONS):
        outcome = state.outcome()
        if outcome is not None:
            return outcome.reason, outcome.winner, state.turn_number
        state = state.apply(random_action(state, rng))
    raise RuntimeError(f"a random game of {variant.key} did not end within {MAX_ACTIONS} actions")


def selfplay(variant: Variant, games: int, seed: int) -> SelfplayReport:
    rng = random.Random(seed)
    wins = [0, 0]
    draws = 0
    reasons: Counter[str] = Counter()
    turns: list[int] = []
    start = time.perf_counter()
    for _ in range(games):
        reason, winner, n = play_random_game(variant, rng)
        reasons[reason] += 1
        if winner is None:
            draws += 1
        else:
            wins[winner] += 1
        turns.append(n)
    seconds = time.perf_counter() - start
    return SelfplayReport(
        game=variant.key,
        games=games,
        seed=seed,
        wins=(wins[0], wins[1]),
        draws=draws,
        wins_by_condition=dict(reasons),
        mean_turns=sum(turns) / len(turns) if turns else 0.0,
        max_turns=max(turns, default=0),
        seconds=seconds,
    )
