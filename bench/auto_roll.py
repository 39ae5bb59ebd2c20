"""How long the auto-roll judge takes: the coach's cheap cube decision asked at every roll-or-double
question of a player whose ``auto_roll`` preference is on (``engine.ai.coaches.double_not_sensible``).

    python bench/auto_roll.py [--positions 60] [--seed 1] [--length 7]

Positions are the roll-or-double questions of seeded 7-point matches played by the medium computer.
Each is judged once to warm the evaluator, then timed: in this process (what a compute worker does)
and, with ``--workers``, through the bot's render pool (the worker's round trip as the session
manager sees it). Prints one JSON line: the median and 95th percentile in milliseconds, and how many
of the positions the judge rolled on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and ``bench/render.py`` would shadow
# the ``render`` package: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from app.render_pool import RenderPool  # noqa: E402
from engine import GameState, find_variant  # noqa: E402
from engine.ai.coaches import double_not_sensible  # noqa: E402
from engine.ai.levels import seeded_move  # noqa: E402
from engine.ai.random_player import sample_outcome  # noqa: E402


def questions(count: int, seed: int, length: int) -> list[GameState]:
    """``count`` roll-or-double questions (``GameState.roll_on``) from seeded medium-level matches."""
    rng = random.Random(seed)
    found: list[GameState] = []
    variant = find_variant("backgammon")
    while len(found) < count:
        state = variant.new_game({"length": length})
        while not state.is_terminal() and len(found) < count:
            spec = state.chance()
            if spec is not None:
                state = state.apply(state.chance_action(sample_outcome(spec, rng)))
                continue
            seat = state.to_move()
            if state.roll_on() is not None:
                found.append(state.view(seat))  # type: ignore[arg-type]
            state = state.apply(seeded_move("backgammon", "medium", state.view(seat), rng.getrandbits(64)))
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def through_pool(positions: list[GameState], workers: int) -> list[float]:
    times: list[float] = []
    with RenderPool(workers) as pool:
        await pool.double_not_sensible("backgammon", positions[0].view(positions[0].to_move()))
        for state in positions:
            started = time.perf_counter()
            await pool.double_not_sensible("backgammon", state.view(state.to_move()))
            times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--length", type=int, default=7)
    parser.add_argument("--workers", type=int, default=0, help="also time through a render pool of N workers")
    args = parser.parse_args()
    positions = questions(args.positions, args.seed, args.length)
    double_not_sensible("backgammon", positions[0])
    times, rolled = [], 0
    for state in positions:
        started = time.perf_counter()
        rolled += double_not_sensible("backgammon", state)
        times.append(time.perf_counter() - started)
    report = {
        "positions": len(positions),
        "rolled_on": rolled,
        "in_process_ms": {"median": 1000 * statistics.median(times), "p95": 1000 * percentile(times, 0.95)},
    }
    if args.workers:
        pooled = asyncio.run(through_pool(positions, args.workers))
        report["render_pool_ms"] = {
            "median": 1000 * statistics.median(pooled),
            "p95": 1000 * percentile(pooled, 0.95),
        }
    print(
        json.dumps(
            {
                k: ({n: round(v, 1) for n, v in x.items()} if isinstance(x, dict) else x)
                for k, x in report.items()
            }
        )
    )


if __name__ == "__main__":
    main()
