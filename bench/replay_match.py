"""How long ``/replay`` takes to make a backgammon match's GIF, and how many frames it shows.

    python bench/replay_match.py [--games 7] [--runs 3] [--seed 1]

A match of random play (no doubling) to 25 points is cut after its ``--games``-th game ends, as if
it had been resigned there; ``render.replay.replay_match`` makes its GIF in this process ``--runs``
times. Prints one JSON object: the match (actions, games), the GIF (frames shown of all, bytes) and
the seconds of each run with their median. ``load_before``/``load_after``: the machine's 1-minute
load average; the seconds depend on it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from bench.heavy_work import never_doubles  # noqa: E402
from engine.ai.selfplay import notations_played  # noqa: E402
from engine.backgammon.variant import VARIANT  # noqa: E402
from engine.protocol import replay_states  # noqa: E402
from render.replay import SavedMatch, replay_match  # noqa: E402


def match_of(games: int, seed: int) -> tuple[dict[str, int], list[str]]:
    """The first ``games`` games of a random 25-point match (its log up to the start of the next)."""
    options = {"length": 25}
    log = list(notations_played(VARIANT, options, (never_doubles,) * 2, random.Random(seed), 10**6))
    cut = []
    for state, text in zip(replay_states(VARIANT, options, log), log, strict=False):
        if getattr(state, "game_number", 1) > games:
            break
        cut.append(text)
    return options, cut


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    options, log = match_of(args.games, args.seed)
    saved = SavedMatch("backgammon", options, tuple(log), ("Alice", "Bob"))
    load_before = os.getloadavg()[0]
    seconds = []
    made = None
    for _ in range(args.runs):
        start = time.perf_counter()
        made = replay_match(saved)
        seconds.append(round(time.perf_counter() - start, 2))
    assert made is not None
    print(
        json.dumps(
            {
                "actions": len(log),
                "games": args.games,
                "frames_shown": made.shown,
                "frames_total": made.total,
                "bytes": len(made.data),
                "seconds": seconds,
                "median_seconds": statistics.median(seconds),
                "load_before": round(load_before, 2),
                "load_after": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
