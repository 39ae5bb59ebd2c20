"""How fast the board pictures are drawn and how big they are.

    python bench/render.py [--game ring|backgammon|space] [--positions 300] [--seed 1] [--pool WORKERS]

Collects positions from seeded random games of ``--game`` (ring by default; backgammon: 5-point
matches, so the cube and the score show) (every state of each game, in order, until there are
enough), renders each once (with two players' names, as the bot does) after one warm-up
picture (which loads the fonts and the fixed palette and draws and compresses the cached empty
board, about 0.4 s once per process), and prints one JSON object: the median and 95th percentile render
time in milliseconds and the median and largest PNG in KB. It asserts nothing; the figures depend
on the machine and on what else runs on it (measure the commit to compare against in the same
minutes).

``--pool WORKERS`` (0: as many as CPUs) also draws all the positions at once through
``app.render_pool.RenderPool`` (``asyncio.gather`` of ``pool.png``, after ``start()``) and adds
``pool_wall_s`` (all pictures done) and ``inline_wall_s`` (the same pictures one after another on
the event loop) and checks the bytes are the same as inline.
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

# Run as a script, this file's folder comes first on sys.path and its own name would shadow the
# ``render`` package: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from app.render_pool import RenderPool  # noqa: E402
from engine import find_variant  # noqa: E402
from engine.ai.random_player import random_action  # noqa: E402
from engine.protocol import GameState  # noqa: E402
from render import Caption, render_board  # noqa: E402

CAPTION = Caption(names=("Alice Liddell", "bob"))
"""Players' names as the bot draws them on every board."""


GAMES = ("ring", "backgammon", "space")
OPTIONS: dict[str, dict[str, object]] = {"backgammon": {"length": 5}}
"""The options of the benchmarked games: backgammon as 5-point matches."""


def positions(count: int, seed: int, game_key: str = "ring") -> list[GameState]:
    """``count`` positions: every state of seeded random games of ``game_key``, game after game."""
    variant = find_variant(game_key)
    found: list[GameState] = []
    game = seed
    while len(found) < count:
        rng = random.Random(game)
        state = variant.new_game(OPTIONS.get(game_key))
        found.append(state)
        while state.outcome() is None and len(found) < count:
            state = state.apply(random_action(state, rng))
            found.append(state)
        game += 1
    return found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def through_pool(states: list[GameState], workers: int | None) -> dict[str, float | int]:
    views = [state.view(None) for state in states]
    inline = time.perf_counter()
    expected = [render_board(view, CAPTION) for view in views]
    inline_s = time.perf_counter() - inline
    with RenderPool(workers) as pool:
        start = time.perf_counter()
        pictures = await asyncio.gather(*(pool.png(view, CAPTION) for view in views))
        pool_s = time.perf_counter() - start
        assert list(pictures) == expected, "the pool drew other bytes than render_board"
        return {
            "pool_workers": pool.workers,
            "pool_wall_s": round(pool_s, 3),
            "inline_wall_s": round(inline_s, 3),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, default="ring", help="the game drawn (ring)")
    parser.add_argument("--positions", type=int, default=300, help="how many positions to render (300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first random game (1)")
    parser.add_argument("--pool", type=int, help="also draw them all at once in a RenderPool of N (0: CPUs)")
    args = parser.parse_args()
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    states = positions(args.positions, args.seed, args.game)
    draw = render_board
    draw(states[0].view(None))  # fonts, palette and the cached board, once
    times: list[float] = []
    sizes: list[int] = []
    for state in states:
        start = time.perf_counter()
        png = draw(state.view(None), CAPTION)
        times.append((time.perf_counter() - start) * 1000)
        sizes.append(len(png))
    pooled: dict[str, float | int] = {}
    if args.pool is not None:
        pooled = asyncio.run(through_pool(states, args.pool or None))
    print(
        json.dumps(
            {
                **pooled,
                "game": args.game,
                "positions": len(states),
                "seed": args.seed,
                "median_ms": round(statistics.median(times), 2),
                "p95_ms": round(percentile(times, 0.95), 2),
                "median_kb": round(statistics.median(sizes) / 1024, 1),
                "max_kb": round(max(sizes) / 1024, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
