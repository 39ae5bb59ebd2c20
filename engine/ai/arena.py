"""Arena: two computer players play each other for N games and the figures come out as one JSON object.

Seats alternate: player A sits in seat 0 in even-numbered games (0, 2, ...) and in seat 1 in odd ones.
Chance steps are drawn from one ``random.Random(seed)``; each player gets its own random source per
game, seeded from the seed, the game number and the player's letter, so the same seed gives the same
games (only the measured decision times differ from run to run).

Backgammon is measured as the field measures it, cubeless money play: every game is a single game
(a 1-point match, which has no cube) scoring 1, 2 or 3 points for a single win, a gammon or a
backgammon, and the bgsage levels are told to play it for money (gammons count) rather than as a
1-point match (``BENCHMARK_OPTIONS``, ``backgammon_bgsage.for_money``). The match rules players get
in real games are unchanged.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from engine.ai.levels import ComputerPlayer, find_player
from engine.ai.random_player import sample_outcome
from engine.protocol import Variant
from kits import KITS

MAX_ACTIONS = 100_000
Z95 = 1.959963984540054


def _as_is(player: ComputerPlayer) -> ComputerPlayer:
    return player


@dataclass(frozen=True)
class Benchmark:
    """How the arena plays a game: the options of each game, whether an outcome's points vary (the
    arena then reports points per game) and the form a player is seated in."""

    options: Mapping[str, object] | None = None
    points: bool = False
    seat: Callable[[ComputerPlayer], ComputerPlayer] = _as_is


PLAIN = Benchmark()
"""A game whose kit declares no benchmark: default options, one point a game, players as they are."""


def benchmark_of(game: str) -> Benchmark:
    kit = KITS.get(game)
    return kit.benchmark.get() if kit is not None and kit.benchmark is not None else PLAIN


def benchmark_player(game: str, name: str) -> ComputerPlayer:
    """The player called ``name`` as the arena seats it (its kit's ``Benchmark.seat``)."""
    return benchmark_of(game).seat(find_player(game, name))


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% with the default ``z``); (0, 1) with no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


def mean_interval(values: list[int] | list[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the mean with a normal-approximation 95% interval (sample deviation)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    return mean, mean - half, mean + half


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass
class PlayerTally:
    name: str
    wins: int = 0
    points: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One arena game: the winning seat (``None``: a draw), points, actions and how it ended."""

    winner: int | None
    points: int
    actions: int
    reason: str


def play_game(
    variant: Variant,
    seated: tuple[ComputerPlayer, ComputerPlayer],
    chance_rng: random.Random,
    player_rngs: tuple[random.Random, random.Random],
    timings: tuple[list[float], list[float]],
    options: Mapping[str, object] | None = None,
) -> GameRecord:
    """Play one game, ``seated[s]`` deciding for seat ``s``.

    Each decision's wall time is appended to ``timings`` of the deciding seat.
    """
    state = variant.new_game(options)
    for count in range(MAX_ACTIONS):
        outcome = state.outcome()
        if outcome is not None:
            return GameRecord(outcome.winner, outcome.points, count, str(outcome.reason))
        spec = state.chance()
        if spec is not None:
            state = state.apply(state.chance_action(sample_outcome(spec, chance_rng)))
            continue
        seat = state.to_move()
        view = state.view(seat)
        start = time.perf_counter()
        action = seated[seat](view, player_rngs[seat])
        timings[seat].append(time.perf_counter() - start)
        state = state.apply(action)
    raise RuntimeError(f"an arena game of {variant.key} did not end within {MAX_ACTIONS} actions")


def arena(variant: Variant, names: tuple[str, str], games: int, seed: int) -> dict[str, object]:
    """Play ``games`` games between the players called ``names`` and return the figures as JSON.

    Raises ``UnknownPlayerError`` for a player name the game does not have.
    """
    players = (benchmark_player(variant.key, names[0]), benchmark_player(variant.key, names[1]))
    options = benchmark_of(variant.key).options
    tallies = (PlayerTally(names[0]), PlayerTally(names[1]))
    chance_rng = random.Random(seed)
    draws = 0
    reasons: Counter[str] = Counter()
    total_actions = 0
    seats_of_a: list[int] = []
    start = time.perf_counter()
    for game in range(games):
        a_seat = game % 2
        seats_of_a.append(a_seat)
        order = (0, 1) if a_seat == 0 else (1, 0)  # order[seat] = index of the player in that seat
        seated = (players[order[0]], players[order[1]])
        rngs = (
            random.Random(f"{seed}:{game}:{'AB'[order[0]]}"),
            random.Random(f"{seed}:{game}:{'AB'[order[1]]}"),
        )
        timings: tuple[list[float], list[float]] = ([], [])
        record = play_game(variant, seated, chance_rng, rngs, timings, options)
        winner, points = record.winner, record.points
        total_actions += record.actions
        reasons[record.reason] += 1
        for seat in (0, 1):
            tally = tallies[order[seat]]
            tally.seconds.extend(timings[seat])
            if winner is None:
                tally.points.append(0)
            elif winner == seat:
                tally.wins += 1
                tally.points.append(points)
            else:
                tally.points.append(-points)
        if winner is None:
            draws += 1
    seconds = time.perf_counter() - start
    report: dict[str, object] = {
        "game": variant.key,
        "games": games,
        "seed": seed,
        "players": [_player_json(t, games, benchmark_of(variant.key).points) for t in tallies],
        "draws": draws,
        "wins_per_condition": dict(sorted(reasons.items())),
        "seats_of_first_player": "".join(str(s) for s in seats_of_a[:8]) + ("..." if games > 8 else ""),
        "mean_actions_per_game": round(total_actions / games, 2) if games else 0.0,
        "seconds": round(seconds, 3),
    }
    return report


def _player_json(tally: PlayerTally, games: int, with_points: bool) -> dict[str, object]:
    low, high = wilson_interval(tally.wins, games)
    data: dict[str, object] = {
        "name": tally.name,
        "wins": tally.wins,
        "win_rate": round(tally.wins / games, 4) if games else 0.0,
        "win_rate_ci95": [round(low, 4), round(high, 4)],
    }
    if with_points:
        mean, p_low, p_high = mean_interval(tally.points)
        data["points_per_game"] = round(mean, 4)
        data["points_per_game_ci95"] = [round(p_low, 4), round(p_high, 4)]
    data["decisions"] = len(tally.seconds)
    data["mean_seconds_per_decision"] = (
        round(sum(tally.seconds) / len(tally.seconds), 6) if tally.seconds else 0.0
    )
    data["p95_seconds_per_decision"] = round(percentile(tally.seconds, 0.95), 6)
    return data


TIMING_KEYS = frozenset({"seconds", "mean_seconds_per_decision", "p95_seconds_per_decision"})
"""The keys of an arena report that measure time and so differ between runs of the same seed."""
