"""Time to list every legal backgammon play for the 21 rolls, ours against GNU Backgammon's C code.

    python bench/moves.py [--positions 2000] [--seed 1] [--repeat 3]

Positions come from seeded random games played to the end (contact, hits, the bar, bear-offs). For
each position and each of the 21 rolls, before anything is timed, the bench checks that both sides
reach the same set of distinct positions (gnubg-nn is a test-only dependency; an empty answer from
it means no play, which ours gives as the one play that leaves the position as it was).

Two comparisons, each side timed over all positions and rolls, ``--repeat`` times, alternating
(the median of the repeats is printed):

- ``like_for_like``: what each side needs to say which positions a roll can reach. Ours:
  ``engine.backgammon.plays.legal_plays``, whose plays' results are the distinct positions (each play
  also carries the move list that reaches it, which the bot needs: ours does a little more).
  GNU Backgammon: ``gnubg_nn.moves(board, d1, d2, 0)``, the distinct positions' keys only.
- ``with_gnubg_moves`` (what this bench printed before): ours the same; GNU Backgammon
  ``gnubg_nn.moves(board, d1, d2, 1)``, which also turns each position's moves into Python tuples,
  work that is not in its generator and made the ratio look smaller.

Prints one JSON line: milliseconds per position (21 rolls) for each side and the ratios. The
target (issue 21): ours within 20 times GNU Backgammon's on the like-for-like comparison.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

import gnubg_nn

from engine.backgammon.board import Board, borne_off, starting_board, swap
from engine.backgammon.plays import legal_plays

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]


def positions(count: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    b = starting_board()
    while len(out) < count:
        out.append(b)
        b = swap(rng.choice(legal_plays(b, rng.randint(1, 6), rng.randint(1, 6))).result)
        if borne_off(b[0]) == 15:
            b = starting_board()
    return out


def gnubg_positions(board: Board, d1: int, d2: int) -> set[Board]:
    """The positions gnubg-nn's generator reaches (the position itself when nothing can be played)."""
    keys = gnubg_nn.moves([list(board[0]), list(board[1])], d1, d2, 0)
    if not keys:
        return {board}
    return {(tuple(b[0]), tuple(b[1])) for b in map(gnubg_nn.board_from_position_key, keys)}


def check_same_positions(boards: list[Board]) -> int:
    """Raise unless both sides reach the same positions for every position and roll; their number."""
    total = 0
    for board in boards:
        for d1, d2 in ROLLS:
            ours = {play.result for play in legal_plays(board, d1, d2)}
            theirs = gnubg_positions(board, d1, d2)
            if ours != theirs:
                raise AssertionError(f"the generators disagree on {board} with {d1}-{d2}")
            total += len(ours)
    return total


def seconds(run: Callable[[], int]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="timings of each side; the median is kept")
    args = parser.parse_args()
    if args.positions < 1 or args.repeat < 1:
        parser.error("--positions and --repeat must be at least 1")
    boards = positions(args.positions, args.seed)
    lists = [[list(b[0]), list(b[1])] for b in boards]
    reached = check_same_positions(boards)

    # The sums keep nothing alive: each answer is freed before the next, as a caller would.
    sides: dict[str, Callable[[], int]] = {
        "ours": lambda: sum(len(legal_plays(b, d1, d2)) for b in boards for d1, d2 in ROLLS),
        "gnubg_positions": lambda: sum(len(gnubg_nn.moves(b, d1, d2, 0)) for b in lists for d1, d2 in ROLLS),
        "gnubg_with_moves": lambda: sum(len(gnubg_nn.moves(b, d1, d2, 1)) for b in lists for d1, d2 in ROLLS),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.repeat):
        for name, run in sides.items():
            times[name].append(seconds(run))
    median = {name: statistics.median(values) for name, values in times.items()}

    def ms_per_position(name: str) -> float:
        return round(median[name] * 1000 / len(boards), 3)

    print(
        json.dumps(
            {
                "positions": len(boards),
                "rolls": len(boards) * len(ROLLS),
                "positions_reached": reached,
                "same_positions_every_roll": True,
                "repeat": args.repeat,
                "ours_ms_per_position": ms_per_position("ours"),
                "like_for_like": {
                    "gnubg": "moves(board, d1, d2, 0): the distinct positions' keys",
                    "gnubg_ms_per_position": ms_per_position("gnubg_positions"),
                    "ratio": round(median["ours"] / median["gnubg_positions"], 1),
                },
                "with_gnubg_moves": {
                    "gnubg": "moves(board, d1, d2, 1): the keys and each position's moves (printed before)",
                    "gnubg_ms_per_position": ms_per_position("gnubg_with_moves"),
                    "ratio": round(median["ours"] / median["gnubg_with_moves"], 1),
                },
                "ours": "legal_plays: the distinct positions, each with the moves reaching it",
                "target": "like_for_like ratio under 20",
            }
        )
    )


if __name__ == "__main__":
    main()
