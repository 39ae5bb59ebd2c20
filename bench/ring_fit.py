"""Fit the weights of the learnt ring evaluation (engine/ai/ring_eval.py) from self-play.

```
.venv/bin/python bench/ring_fit.py --games 3000 --seed 1 [--weights w1,w2,... | --bootstrap]
```

Plays ``--games`` games (a third each: the planner against itself, against ``greedy`` and against
``random``; a tenth of the planner's choices are random actions, so the data sees more than one
line of play), records every position at the start of a turn with the result for the side that has
just played, and fits a logistic regression of the result on ``ring_eval.features`` by Newton's
method (with a small ridge). The planner plans its turn (no look-ahead, so the games are quick) by
``ring_eval.win_probability`` with the weights given by ``--weights`` (default: those in
ring_eval.py), or with ``--bootstrap`` is ``medium``. Prints the weights, ready to paste, the fit's
mean log loss and the CPU time of the games (about 30 ms a game).

The weights in ring_eval.py come from ``--games 3000 --seed 1`` with the turn planner of the
previous ``hard`` (commit 2138d15, a hand-tuned score) as the planner. A second round from games of
the planner with those weights (``--seed 2 --weights ...``) fitted its data better (log loss 0.48
against 0.50) but did not play better in the arena with ``hard``'s look-ahead (bench/README.md).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import ring_eval, ring_greedy, ring_levels
from engine.ai.random_player import random_choice, sample_outcome
from engine.protocol import Action, GameView
from engine.ring import VARIANT, Phase

Player = Callable[[GameView, random.Random], Action]
Sample = tuple[list[float], int]
EXPLORE = 0.1


def play(players: tuple[Player, Player], rng: random.Random, explore: tuple[float, float]) -> list[Sample]:
    """One game; every turn-start position as (features for the side that just played, 1 if it won)."""
    state = VARIANT.new_game()
    seen: list[tuple[list[float], int]] = []
    while state.outcome() is None:
        spec = state.chance()
        if spec is not None:
            if state.phase is Phase.ROLL and state.turn_number > 1:
                assert state.turn_seat is not None
                me = 1 - state.turn_seat
                seen.append((ring_eval.features(state.board, state.piles, me), me))
            state = state.apply(state.chance_action(sample_outcome(spec, rng)))
            continue
        seat = state.to_move()
        exploring = rng.random() < explore[seat]
        action = random_choice(state, rng) if exploring else players[seat](state, rng)
        state = state.apply(action)
    outcome = state.outcome()
    assert outcome is not None
    return [(x, 1 if outcome.winner == me else 0) for x, me in seen]


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the systems are 20 by 20)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            if f:
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def fit(samples: Sequence[Sample], ridge: float = 1.0, iterations: int = 12) -> tuple[list[float], float]:
    """Logistic regression by Newton's method: (weights, mean log loss)."""
    k = len(samples[0][0])
    w = [0.0] * k
    loss = 0.0
    for _ in range(iterations):
        grad = [-ridge * wi for wi in w]
        hess = [[ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        loss = 0.0
        for x, y in samples:
            z = sum(wi * xi for wi, xi in zip(w, x, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            loss -= math.log(max(1e-12, p if y else 1 - p))
            g = y - p
            s = p * (1 - p)
            for i in range(k):
                xi = x[i]
                if xi:
                    grad[i] += g * xi
                    sxi = s * xi
                    row = hess[i]
                    for j in range(i + 1):
                        row[j] += sxi * x[j]
        for i in range(k):
            for j in range(i):
                hess[j][i] = hess[i][j]
        step = solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
    return w, loss / len(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", help="comma-separated weights of the planner (default: ring_eval's)")
    parser.add_argument("--bootstrap", action="store_true", help="plan by ring_greedy (medium) instead")
    args = parser.parse_args()
    weights = tuple(float(w) for w in args.weights.split(",")) if args.weights else ring_eval.WEIGHTS
    if len(weights) != len(ring_eval.FEATURE_NAMES):
        parser.error(
            f"--weights takes {len(ring_eval.FEATURE_NAMES)} numbers ({', '.join(ring_eval.FEATURE_NAMES)})"
        )
    if args.bootstrap:
        planner: Player = ring_levels.medium
    else:
        planner = ring_levels.planner(lambda state, seat: ring_eval.win_probability(state, seat, weights))
    opponents: tuple[Player, ...] = (planner, ring_greedy.choose, random_choice)
    rng = random.Random(args.seed)
    samples: list[Sample] = []
    start = time.process_time()
    for game in range(args.games):
        opponent = opponents[game % 3]
        seats = (planner, opponent) if game % 2 == 0 else (opponent, planner)
        explore = (EXPLORE, EXPLORE if opponent is planner else 0.0)
        if game % 2:
            explore = (explore[1], explore[0])
        samples.extend(play(seats, rng, explore))
    played = time.process_time() - start
    w, loss = fit(samples)
    print(f"# {args.games} games, {len(samples)} positions, {played:.0f} s CPU; log loss {loss:.4f}")
    print("WEIGHTS = (")
    for name, value in zip(ring_eval.FEATURE_NAMES, w, strict=True):
        print(f"    {value:.4f},  # {name}")
    print(")")
    print(",".join(f"{v:.4f}" for v in w))
    return 0


if __name__ == "__main__":
    sys.exit(main())
