"""Heavy work beside play: board pictures while replays and an analysis run, the event loop while
the computer and the analysis think, and each heavy job's own time.

    python bench/heavy_work.py [--replay-actions 8000] [--analysis-length 5] [--pictures 200]
                               [--moves 4] [--seed 1] [--skip-threads]

One run, in the bot's own worker lanes (``app.render_pool.RenderPool()``: as many board and compute
workers as CPUs, ``HEAVY_WORKERS`` heavy ones at ``HEAVY_NICE``), prints one JSON object:

- ``alone``: each heavy job by itself, wall seconds as the bot awaits it: a replay of a backgammon
  match of at least ``--replay-actions`` actions (the frames rebuilt from the log and the GIF
  drawn in a heavy worker; a 25-point match of random play without doubling), the analysis of a ``--analysis-length``-point match (medium against easy)
  and its chart.
- ``pictures_under_heavy_work``: two replays of that long match and the analysis started at once;
  meanwhile a board picture of a varied position of the three games is asked for every 50 ms (up to
  ``--pictures``, while the heavy work runs): its latency (asked → PNG back) p50/p99/max in ms, and
  the heavy jobs' own seconds under that load. The issue's target: p99 under 1 s.
- ``loop_lag``: an analysis and ``--moves`` hard backgammon moves (2-ply) at once, while a task
  sleeps 5 ms again and again and records how late it wakes (the event loop's lag) p50/p99/max in ms;
  ``workers`` in the lanes, ``threads`` the way the bot did it before (``asyncio.to_thread``; skipped
  with ``--skip-threads``). The issue's target: p99 at most 20 ms.

``load_before``/``load_after``: the machine's 1-minute load average. Latency figures depend on what
else runs on the machine: report them with the load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from app.render_pool import RenderPool  # noqa: E402
from bench.analysis import match_log  # noqa: E402
from bench.render import positions  # noqa: E402
from engine.ai.selfplay import notations_played  # noqa: E402
from engine.backgammon.variant import VARIANT  # noqa: E402
from engine.protocol import CHANCE, Action, GameView, replay_states  # noqa: E402
from render import SEAT_STYLES, Caption  # noqa: E402
from render.replay import SavedMatch  # noqa: E402

NAMES = ("Alice Liddell", "bob")
PICTURE_EVERY = 0.05
"""Seconds between two board pictures asked for while the heavy work runs."""
LAG_TICK = 0.005
"""Seconds the lag sampler sleeps each time."""


def never_doubles(view: GameView, rng: random.Random) -> Action:
    """Random play that never offers the cube, so a 25-point match lasts thousands of actions."""
    legal = view.legal_actions()
    return rng.choice([a for a in legal if "double" not in a.notation.lower()] or legal)


def long_match(actions: int, seed: int) -> tuple[dict[str, Any], list[str]]:
    """The first 25-point match of random play (no doubling) from ``seed`` on with at least
    ``actions`` actions (the longest of ten, if none has)."""
    options = {"length": 25}
    longest: list[str] = []
    for n in range(10):
        log = list(notations_played(VARIANT, options, (never_doubles,) * 2, random.Random(seed + n), 10**6))
        longest = max(longest, log, key=len)
        if len(log) >= actions:
            break
    return options, longest


def percentiles(values: list[float]) -> dict[str, float | int]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0}

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)

    return {"n": len(ordered), "p50": at(0.5), "p99": at(0.99), "max": round(ordered[-1], 1)}


async def timed(job: Awaitable[Any]) -> float:
    start = time.perf_counter()
    await job
    return round(time.perf_counter() - start, 2)


async def pictures_while(running: Callable[[], bool], limit: int, seed: int, pool: RenderPool) -> list[float]:
    """Ask for a board picture every ``PICTURE_EVERY`` s while ``running()``; their latencies in ms."""
    views = [s.view(None) for game in ("ring", "backgammon", "space") for s in positions(limit, seed, game)]
    random.Random(seed).shuffle(views)
    latencies: list[float] = []

    async def one(view: GameView) -> None:
        start = time.perf_counter()
        await pool.png(view, Caption(names=NAMES))
        latencies.append((time.perf_counter() - start) * 1000)

    asked = []
    for view in views[:limit]:
        if not running():
            break
        asked.append(asyncio.create_task(one(view)))
        await asyncio.sleep(PICTURE_EVERY)
    await asyncio.gather(*asked)
    return latencies


async def lag_while(work: Awaitable[Any]) -> dict[str, float | int]:
    """The event loop's lag (ms late per ``LAG_TICK`` sleep) while ``work`` runs."""
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    task = asyncio.ensure_future(work)
    while not task.done():
        start = loop.time()
        await asyncio.sleep(LAG_TICK)
        lags.append((loop.time() - start - LAG_TICK) * 1000)
    await task
    return percentiles(lags)


def hard_positions(options: dict[str, Any], log: list[str], count: int) -> list[GameView]:
    """``count`` positions of the analysed match where a seat moves checkers, in that seat's view."""
    found = []
    for state in replay_states(VARIANT, options, log):
        if state.to_move() != CHANCE and len(state.legal_actions()) > 3:
            found.append(state.view(state.to_move()))
    step = max(1, len(found) // count)
    return found[::step][:count]


async def thinking(pool: RenderPool, analysis_log: list[str], length: int, moves: list[GameView]) -> None:
    """An analysis and the hard moves at once (the moves one after another, as a match's turns)."""

    async def hard_moves() -> None:
        for n, view in enumerate(moves):
            await pool.computer_move("backgammon", "hard", view, n)

    await asyncio.gather(
        pool.analyse("backgammon", {"length": length}, analysis_log, lambda: False), hard_moves()
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"load_before": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    options, long_log = long_match(args.replay_actions, args.seed)
    analysis_log = match_log(args.analysis_length, args.seed)
    analysis_options = {"length": args.analysis_length}
    report["replay_actions"] = len(long_log)
    saved = SavedMatch("backgammon", options, tuple(long_log), NAMES)
    report["analysis_actions"] = len(analysis_log)
    moves = hard_positions(analysis_options, analysis_log, args.moves)
    with RenderPool() as pool:
        report["lanes"] = {lane.name: lane.workers for lane in pool.lanes}
        # each heavy job alone
        replay_s = await timed(pool.replay(saved))
        started = time.perf_counter()
        analysis = await pool.analyse("backgammon", analysis_options, analysis_log, lambda: False)
        analysis_s = round(time.perf_counter() - started, 2)
        styles = SEAT_STYLES["backgammon"]
        chart_s = await timed(pool.chart(analysis.chances, 0, NAMES[0], (styles[0], styles[1])))
        report["alone"] = {"replay_s": replay_s, "analysis_s": analysis_s, "chart_s": chart_s}

        # board pictures while two long replays and an analysis run
        heavy = [
            asyncio.create_task(timed(pool.replay(saved))),
            asyncio.create_task(timed(pool.replay(saved))),
            asyncio.create_task(
                timed(pool.analyse("backgammon", analysis_options, analysis_log, lambda: False))
            ),
        ]
        latencies = await pictures_while(
            lambda: not all(t.done() for t in heavy), args.pictures, args.seed, pool
        )
        replay1, replay2, analysed = await asyncio.gather(*heavy)
        report["pictures_under_heavy_work"] = {
            "latency_ms": percentiles(latencies),
            "replays_s": [replay1, replay2],
            "analysis_s": analysed,
            "restarts": pool.restarts,
        }

        # the event loop while the analysis and the hard moves think
        lag = {"workers": await lag_while(thinking(pool, analysis_log, args.analysis_length, moves))}
    if not args.skip_threads:
        threads = RenderPool(0)
        lag["threads"] = await lag_while(thinking(threads, analysis_log, args.analysis_length, moves))
    report["loop_lag_ms"] = lag
    report["load_after"] = round(os.getloadavg()[0], 2)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay-actions", type=int, default=8000, help="actions of the replayed match")
    parser.add_argument("--analysis-length", type=int, default=5, help="points of the analysed match")
    parser.add_argument("--pictures", type=int, default=200, help="board pictures asked for at most")
    parser.add_argument("--moves", type=int, default=4, help="hard computer moves during the lag sample")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-threads", action="store_true", help="no lag sample with threads")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
