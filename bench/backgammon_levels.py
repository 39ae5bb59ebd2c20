"""Decision times of the backgammon computer levels in matches with the cube, by kind of decision.

    python bench/backgammon_levels.py [--levels easy,medium,hard] [--matches 2] [--length 5] [--seed 1]

Each level plays ``--matches`` matches to ``--length`` points against itself, the doubling cube in
play, chance drawn from a seeded ``random.Random``. Every decision's wall time is recorded by kind:
``play`` (checker play), ``cube`` (double or roll), ``take`` (take or pass). Prints one JSON line:
per level and kind the count, median, 95th percentile and maximum in seconds, and ``p95_all`` over
every decision of the level. The issue's targets: p95 at most 1 s at hard, 0.2 s at easy. (The arena
times checker play only: its backgammon games are cubeless money play.)
"""

from __future__ import annotations

import argparse
import json
import random
import time

from engine.ai.arena import percentile
from engine.ai.levels import find_player
from engine.ai.random_player import sample_outcome
from engine.backgammon.game import BackgammonState, Phase
from engine.registry import find_variant

KINDS = {Phase.PLAY: "play", Phase.DECIDE: "cube", Phase.TAKE: "take", Phase.RESIGN: "resign"}


def level_times(level: str, matches: int, length: int, seed: int) -> dict[str, list[float]]:
    player = find_player("backgammon", level)
    variant = find_variant("backgammon")
    chance = random.Random(seed)
    rng = random.Random(seed + 1)
    times: dict[str, list[float]] = {kind: [] for kind in KINDS.values()}
    for _ in range(matches):
        state = variant.new_game({"length": length})
        while state.outcome() is None:
            spec = state.chance()
            if spec is not None:
                state = state.apply(state.chance_action(sample_outcome(spec, chance)))
                continue
            assert isinstance(state, BackgammonState)
            kind = KINDS[state.phase]
            start = time.perf_counter()
            action = player(state.view(state.to_move()), rng)
            times[kind].append(time.perf_counter() - start)
            state = state.apply(action)
    return times


def summary(values: list[float]) -> dict[str, float | int]:
    return {
        "count": len(values),
        "median_s": round(percentile(values, 0.5), 4),
        "p95_s": round(percentile(values, 0.95), 4),
        "max_s": round(max(values, default=0.0), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    report: dict[str, object] = {"matches": args.matches, "length": args.length, "seed": args.seed}
    for level in args.levels.split(","):
        times = level_times(level, args.matches, args.length, args.seed)
        every = [t for values in times.values() for t in values]
        report[level] = {kind: summary(values) for kind, values in times.items() if values} | {
            "p95_all_s": round(percentile(every, 0.95), 4)
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
