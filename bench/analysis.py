"""How long the analysis of a finished backgammon match takes (``engine.ai.backgammon_analysis``).

    python bench/analysis.py [--lengths 1,5] [--matches 3] [--seed 1] [--level 3ply] [--threads N] [--hints 0]

For each match length, ``--matches`` matches are played by the medium level (seat 0) against the
easy one (seat 1), the cube in play from 3 points on, chance drawn from a seeded ``random.Random``;
each is then analysed once on ``--threads`` threads (the bot's ``THREADS`` by default), timed by the
wall clock and the process's CPU clock. Prints one JSON line: per length the actions, rolls and
decisions of each match, the wall and CPU seconds of each analysis, their medians, and the median
milliseconds per roll (wall). With
``--hints N``, a ``/hint`` (``engine.ai.backgammon_hints.hint``, at the same depth) is timed on the
first N checker plays with a choice and the first N cube decisions of the first 5-point match: median,
95th percentile and maximum seconds of each kind.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from engine.ai.backgammon_analysis import LEVEL, THREADS, analyse  # noqa: E402
from engine.ai.backgammon_bgsage import EASY, MEDIUM, analyzer  # noqa: E402
from engine.ai.backgammon_hints import hint  # noqa: E402
from engine.ai.selfplay import notations_played  # noqa: E402
from engine.backgammon.game import BackgammonState, Phase  # noqa: E402
from engine.backgammon.variant import VARIANT  # noqa: E402
from engine.protocol import replay_states  # noqa: E402


def match_log(length: int, seed: int) -> list[str]:
    """A match to ``length`` points, medium (seat 0) against easy: its action log."""
    return list(notations_played(VARIANT, {"length": length}, (MEDIUM, EASY), random.Random(seed)))


def hint_times(count: int, seed: int) -> dict[str, dict[str, float]]:
    """Seconds of a hint on the first ``count`` plays with a choice and cube decisions of a 5-point match."""
    options = {"length": 5}
    states = [
        s for s in replay_states(VARIANT, options, match_log(5, seed)) if isinstance(s, BackgammonState)
    ]
    kinds = {
        "play": [s for s in states if s.phase is Phase.PLAY and not s.played and len(s.plays()) > 1],
        "cube": [s for s in states if s.phase in (Phase.DECIDE, Phase.TAKE)],
    }
    out = {}
    for kind, found in kinds.items():
        times = []
        for state in found[:count]:
            started = time.perf_counter()
            hint(state)
            times.append(time.perf_counter() - started)
        times.sort()
        out[kind] = {
            "count": len(times),
            "median_s": round(statistics.median(times), 3),
            "p95_s": round(times[int(0.95 * (len(times) - 1))], 3),
            "max_s": round(times[-1], 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="1,5")
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default=LEVEL, help="the depth of every decision (the bot's: %(default)s)")
    parser.add_argument("--threads", type=int, default=THREADS, help="threads of each analysis (%(default)s)")
    parser.add_argument("--hints", type=int, default=0, help="time this many hints of each kind")
    args = parser.parse_args()
    analyzer(args.level, True), analyzer("1ply", True)  # the networks are loaded before the clock starts
    report: dict[str, object] = {"level": args.level, "threads": args.threads}
    for length in (int(x) for x in args.lengths.split(",")):
        runs = []
        for n in range(args.matches):
            log = match_log(length, args.seed + n)
            options = {"length": length}
            cpu, started = time.process_time(), time.perf_counter()
            analysis = analyse(options, log, level=args.level, threads=args.threads)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            rolls = sum(p.rolls for p in analysis.players)
            runs.append(
                {
                    "actions": len(log),
                    "rolls": rolls,
                    "decisions": len(analysis.decisions),
                    "seconds": round(seconds, 2),
                    "cpu_seconds": round(cpu, 2),
                    "ms_per_roll": round(1000 * seconds / max(1, rolls), 1),
                }
            )
        if not runs:
            continue  # --matches 0: only the hints are timed
        report[f"{length}-point"] = {
            "matches": runs,
            "median_seconds": round(statistics.median(r["seconds"] for r in runs), 2),
            "median_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in runs), 2),
            "median_ms_per_roll": round(statistics.median(r["ms_per_roll"] for r in runs), 1),
        }
    if args.hints:
        report["hints"] = hint_times(args.hints, args.seed)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
