"""How long a tournament round's pairing and its pictures take, for 8, 64 and 256 players.

    python bench/tournament.py [--sizes 8,64,256] [--repeat 3] [--seed 1]

Each event is played out with simulated results (seeded: the better-rated player wins two tables
in three; one table in twenty is a both-forfeit), knockout and Swiss (ceil(log2 n) rounds). Timed
at every round, as the bot does them after a round's last result:

- ``pair_ms``: ``Tournament.advance()``, the next round's pairing (for Swiss it ranks the field
  first, and searches pairings without rematches);
- ``bracket_ms`` (knockout) or ``standings_ms`` (both): the picture of the default page as PNG
  bytes (``render.tournament``), drawn after each result of the round would be the same work;
- ``save_load_ms``: ``to_json`` and ``from_json`` of the state, which the service does per result.

``--all-rounds`` gives Swiss its most rounds (n - 1) instead: late rounds then often have no
pairing without a rematch, and pairing falls back to the weighted matching (the slow case).

Prints one JSON line per format and size with the median and the maximum of each over all rounds
of all ``--repeat`` events.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and ``bench/render.py`` would shadow
# the ``render`` package: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from engine.tournament import Format, Pairing, Result, Tournament  # noqa: E402
from engine.tournament.simulate import everyone, field, play_round  # noqa: E402
from render.tournament import render_bracket, render_standings  # noqa: E402


def simulated(rng: random.Random) -> Callable[[Tournament, Pairing], Result]:
    def decide(t: Tournament, pairing: Pairing) -> Result:
        if rng.random() < 0.05:
            return Result(pairing.round, pairing.table, None, "both forfeit")
        better, worse = sorted(pairing.players, key=t.seed)
        winner = better if rng.random() < 2 / 3 else worse
        return Result(pairing.round, pairing.table, winner, "played")

    return decide


def timed(work: Callable[[], Any], into: list[float]) -> Any:
    start = time.perf_counter()
    value = work()
    into.append((time.perf_counter() - start) * 1000)
    return value


def event(format: Format, size: int, seed: int, times: dict[str, list[float]], all_rounds: bool) -> int:
    """One event played to its end; returns its rounds."""
    decide = simulated(random.Random(seed))
    names = everyone(field(size))
    t = Tournament.start(format, field(size), size - 1 if all_rounds and format == "swiss" else None)
    while True:
        t = play_round(t, decide)
        if format == "knockout":
            timed(lambda t=t: render_bracket(t, names, title="Bench cup"), times["bracket_ms"])
        timed(lambda t=t: render_standings(t, names, title="Bench cup", player=size), times["standings_ms"])
        timed(lambda t=t: Tournament.from_json(t.to_json()), times["save_load_ms"])
        if t.finished:
            return t.rounds
        t = timed(t.advance, times["pair_ms"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="8,64,256")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--all-rounds", action="store_true", help="Swiss with n - 1 rounds")
    args = parser.parse_args()
    for format in ("swiss",) if args.all_rounds else ("knockout", "swiss"):
        for size in (int(s) for s in args.sizes.split(",")):
            times: dict[str, list[float]] = {
                "pair_ms": [],
                "bracket_ms": [],
                "standings_ms": [],
                "save_load_ms": [],
            }
            rounds = 0
            for repeat in range(args.repeat):
                rounds = event(format, size, args.seed + repeat, times, args.all_rounds)  # type: ignore[arg-type]
            line: dict[str, Any] = {
                "format": format,
                "players": size,
                "rounds": rounds,
                "events": args.repeat,
            }
            for key, values in times.items():
                if values:
                    line[key] = round(statistics.median(values), 2)
                    line[key.replace("_ms", "_max_ms")] = round(max(values), 2)
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
