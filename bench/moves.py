"""Time to list every legal backgammon play for the 21 rolls, ours against GNU Backgammon's C code.

    python bench/moves.py [--positions 2000] [--seed 1]

Positions come from seeded random games played to the end (contact, hits, the bar, bear-offs). For
each position and each of the 21 rolls both generators list their distinct resulting positions:
``engine.backgammon.plays.legal_plays`` and ``gnubg_nn.moves(board, d1, d2, 1)`` (gnubg-nn is a
test-only dependency). Prints one JSON line: milliseconds per position (21 rolls) for each, and the
ratio. The issue's target: within 20 times GNU Backgammon's.
"""

from __future__ import annotations

import argparse
import json
import random
import time

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    boards = positions(args.positions, args.seed)
    lists = [[list(b[0]), list(b[1])] for b in boards]

    start = time.perf_counter()
    ours = sum(len(legal_plays(b, d1, d2)) for b in boards for d1, d2 in ROLLS)
    ours_s = time.perf_counter() - start

    start = time.perf_counter()
    theirs = sum(max(1, len(gnubg_nn.moves(b, d1, d2, 1))) for b in lists for d1, d2 in ROLLS)
    theirs_s = time.perf_counter() - start

    per = 1000 / len(boards)
    print(
        json.dumps(
            {
                "positions": len(boards),
                "plays": ours,
                "plays_gnubg": theirs,
                "ours_ms_per_position": round(ours_s * per, 3),
                "gnubg_ms_per_position": round(theirs_s * per, 3),
                "ratio": round(ours_s / theirs_s, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
