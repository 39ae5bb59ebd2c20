"""Heavy work beside play, on a machine whose cores are kept busy by another program: board pictures
and the event loop while two long replays, two analyses and an imported 25-point match's analysis
run at once, and what became of each heavy job.

    python bench/heavy_work.py [--replay-actions 4000] [--analysis-length 5] [--import-length 25]
                               [--analysis-level 2ply] [--busy 2] [--picture-every 0.2]
                               [--moves 4] [--heavy-workers 2] [--seed 1] [--alone]

One run, in the bot's own worker lanes (``app.render_pool.RenderPool()``: as many board and compute
workers as CPUs, ``--heavy-workers`` heavy slots at ``HEAVY_NICE``), prints one JSON object:

- ``busy``: ``--busy`` other processes (``python -c "while True: pass"``, at the bot's own priority)
  keep the cores busy for the whole contention phase; they are killed at its end.
- ``jobs``: started at once, each in its own heavy slot when one is free (the others wait in the
  bot, and their CPU budget does not count the wait): two replays of a backgammon match of at least
  ``--replay-actions`` actions (a 25-point match of random play without doubling: the frames
  rebuilt from the log and the GIF drawn), the analyses of two ``--analysis-length``-point matches
  (medium against easy), and the analysis of an imported ``--import-length``-point match (played
  medium against easy, written as a Jellyfish ``.mat`` file and read back as ``/analyse file:``
  does). Each job's outcome (``done`` or the error it was told: nothing may be dropped), wall
  seconds, and for the analyses the progress reports that reached the bot and the last one.
  Analyses run at ``--analysis-level`` (``engine.ai.backgammon_analysis.LEVEL``; the bot's is 3-ply,
  2-ply keeps the run to a few minutes).
- ``pictures_ms``: meanwhile a board picture of a varied position of the three games is asked for
  every ``--picture-every`` seconds: latency (asked → PNG back) p50/p99/max. Target: p99 under 1 s.
- ``loop_lag_ms``: meanwhile a task sleeps 5 ms again and again and records how late it wakes (the
  event loop's lag), while ``--moves`` hard backgammon moves are also computed one after another.
  Target: p99 under 20 ms.

``load_before``/``load_after``: the machine's load averages (``os.getloadavg``). Other programs on the
machine change the figures: report them with the load. ``--alone`` first times each kind of heavy
job by itself, before the busy processes start.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import engine.ai.backgammon_analysis as backgammon_analysis  # noqa: E402
from app.render_pool import HEAVY_WORKERS, RenderPool  # noqa: E402
from bench.analysis import match_log  # noqa: E402
from bench.render import positions  # noqa: E402
from engine.ai.selfplay import notations_played  # noqa: E402
from engine.backgammon.variant import VARIANT  # noqa: E402
from engine.protocol import CHANCE, Action, GameView, replay_states  # noqa: E402
from render import Caption  # noqa: E402
from render.replay import SavedMatch  # noqa: E402

NAMES = ("Alice Liddell", "bob")
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


def imported_match(length: int, seed: int) -> tuple[dict[str, Any], list[str]]:
    """A ``length``-point match (medium against easy) written as a ``.mat`` file and read back."""
    log = match_log(length, seed)
    written = VARIANT.export_match({"length": length}, log, NAMES)
    assert written is not None
    read = VARIANT.import_match(written.data)
    return dict(read.options), list(read.log)


def percentiles(values: list[float]) -> dict[str, float | int]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0}

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)

    return {"n": len(ordered), "p50": at(0.5), "p99": at(0.99), "max": round(ordered[-1], 1)}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def outcome(name: str, work: Callable[[Callable[[int, int], None]], Awaitable[Any]]) -> dict[str, Any]:
    """Run one heavy job; what became of it (never raises: a failure is what it was told)."""
    heard: list[tuple[int, int]] = []
    started = time.perf_counter()
    found: dict[str, Any] = {"job": name}
    try:
        await work(lambda done, total: heard.append((done, total)))
        found["outcome"] = "done"
    except Exception as exc:
        found["outcome"] = f"failed: {type(exc).__name__}: {exc}"
    found["wall_s"] = round(time.perf_counter() - started, 1)
    if heard:
        found["progress_reports"] = len(heard)
        found["last_progress"] = list(heard[-1])
    return found


async def pictures_while(
    running: Callable[[], bool], every: float, seed: int, pool: RenderPool
) -> list[float]:
    """Ask for a board picture every ``every`` s while ``running()``; their latencies in ms."""
    views = [s.view(None) for game in ("ring", "backgammon", "space") for s in positions(100, seed, game)]
    random.Random(seed).shuffle(views)
    latencies: list[float] = []

    async def one(view: GameView) -> None:
        start = time.perf_counter()
        await pool.png(view, Caption(names=NAMES))
        latencies.append((time.perf_counter() - start) * 1000)

    asked = []
    n = 0
    while running():
        asked.append(asyncio.create_task(one(views[n % len(views)])))
        n += 1
        await asyncio.sleep(every)
    await asyncio.gather(*asked)
    return latencies


async def lag_while(running: Callable[[], bool]) -> list[float]:
    """The event loop's lag (ms late per ``LAG_TICK`` sleep) while ``running()``."""
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    while running():
        start = loop.time()
        await asyncio.sleep(LAG_TICK)
        lags.append((loop.time() - start - LAG_TICK) * 1000)
    return lags


def hard_positions(options: dict[str, Any], log: list[str], count: int) -> list[GameView]:
    """``count`` positions of the match where a seat moves checkers, in that seat's view."""
    found = []
    for state in replay_states(VARIANT, options, log):
        if state.to_move() != CHANCE and len(state.legal_actions()) > 3:
            found.append(state.view(state.to_move()))
    step = max(1, len(found) // count)
    return found[::step][:count]


def start_busy(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` processes that keep a core busy each, at the bot's own priority."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop_busy(busy: list[subprocess.Popen[bytes]]) -> None:
    for process in busy:
        process.kill()
    for process in busy:
        process.wait()


async def alone(
    pool: RenderPool, saved: SavedMatch, analysed: tuple[dict[str, Any], list[str]]
) -> dict[str, Any]:
    """Each kind of heavy job by itself, wall seconds."""
    started = time.perf_counter()
    await pool.replay(saved)
    replay_s = round(time.perf_counter() - started, 1)
    started = time.perf_counter()
    await pool.analyse("backgammon", analysed[0], analysed[1], lambda: False)
    return {"replay_s": replay_s, "analysis_s": round(time.perf_counter() - started, 1)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"load_before": load(), "cpus": os.cpu_count()}
    # Read at each analysis, in the workers too: they are forked after this.
    backgammon_analysis.LEVEL = args.analysis_level
    options, long_log = long_match(args.replay_actions, args.seed)
    saved = SavedMatch("backgammon", options, tuple(long_log), NAMES)
    imported = imported_match(args.import_length, args.seed)
    analyses = [
        ({"length": args.analysis_length}, match_log(args.analysis_length, args.seed + n)) for n in (1, 2)
    ]
    moves = hard_positions(analyses[0][0], analyses[0][1], args.moves)
    report["replay_actions"] = len(long_log)
    report["analysis_actions"] = [len(log) for _, log in analyses]
    report["imported_actions"] = len(imported[1])
    report["analysis_level"] = args.analysis_level
    with RenderPool(heavy_workers=args.heavy_workers) as pool:
        report["lanes"] = {lane.name: lane.workers for lane in pool.lanes}
        if args.alone:
            report["alone"] = await alone(pool, saved, analyses[0])
        busy = start_busy(args.busy)
        report["busy"] = {"processes": len(busy), "load_at_start": load()}
        try:

            def analysis(opts: dict[str, Any], log: list[str]) -> Callable[[Any], Awaitable[Any]]:
                return lambda progress: pool.analyse("backgammon", opts, log, lambda: False, progress)

            jobs = [
                asyncio.create_task(outcome("replay 1", lambda _: pool.replay(saved))),
                asyncio.create_task(outcome("replay 2", lambda _: pool.replay(saved))),
                asyncio.create_task(outcome("analysis 1", analysis(*analyses[0]))),
                asyncio.create_task(outcome("analysis 2", analysis(*analyses[1]))),
                asyncio.create_task(
                    outcome(f"imported {args.import_length}-point analysis", analysis(*imported))
                ),
            ]

            def running() -> bool:
                return not all(job.done() for job in jobs)

            async def hard_moves() -> None:
                for n, view in enumerate(moves):
                    await pool.computer_move("backgammon", "hard", view, n)

            started = time.perf_counter()
            latencies, lags, _ = await asyncio.gather(
                pictures_while(running, args.picture_every, args.seed, pool), lag_while(running), hard_moves()
            )
            report["jobs"] = [job.result() for job in jobs]
            report["contention_s"] = round(time.perf_counter() - started, 1)
            report["load_during"] = load()
        finally:
            stop_busy(busy)
        report["pictures_ms"] = percentiles(latencies)
        report["loop_lag_ms"] = percentiles(lags)
        report["heavy_restarts"] = pool.heavy.restarts
        report["restarts"] = pool.restarts
    report["load_after"] = load()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay-actions", type=int, default=4000, help="actions of the replayed match")
    parser.add_argument("--analysis-length", type=int, default=5, help="points of the two analysed matches")
    parser.add_argument("--import-length", type=int, default=25, help="points of the imported match")
    parser.add_argument("--analysis-level", default="2ply", help="depth of the analyses (the bot's: 3ply)")
    parser.add_argument("--busy", type=int, default=2, help="other processes keeping a core busy each")
    parser.add_argument("--picture-every", type=float, default=0.2, help="seconds between two pictures")
    parser.add_argument("--moves", type=int, default=4, help="hard computer moves during the run")
    parser.add_argument("--heavy-workers", type=int, default=HEAVY_WORKERS, help="heavy slots")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alone", action="store_true", help="first time each heavy job by itself")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
