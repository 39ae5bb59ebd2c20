"""How many random games a second the rules play on one core.

    python bench/selfplay.py [--game space] [--games 10000] [--seed 1]

Plays ``--games`` games between two uniformly random players with ``engine.ai.selfplay.selfplay``
(what ``python -m engine selfplay`` runs: chance sampled from ``random.Random(seed)``, every legal
action equally likely, each game played to its end) and prints one JSON line: the game, games,
seed, ``games_per_second`` (wall clock) and ``games_per_cpu_second`` (the process's own CPU time:
one core's figure even while other work shares the machine), the mean and largest number of turns,
wins per seat and per way of winning, and the load average when it ended. It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from engine.ai.selfplay import selfplay  # noqa: E402
from engine.protocol import Variant  # noqa: E402
from engine.registry import VARIANTS  # noqa: E402


def variant_of(key: str) -> Variant:
    if key in VARIANTS:
        return VARIANTS[key]
    raise SystemExit(f"unknown game {key!r}: one of {', '.join(sorted(VARIANTS))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="space")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cpu = time.process_time()
    report = selfplay(variant_of(args.game), args.games, args.seed).to_json()
    cpu = time.process_time() - cpu
    report["cpu_seconds"] = round(cpu, 3)
    report["games_per_cpu_second"] = round(args.games / cpu, 1) if cpu else None
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(report, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
