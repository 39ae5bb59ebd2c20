"""Where a ring computer player loses: its stacks at the start of each opponent turn, and how often
that turn ended the game for the opponent.

```
.venv/bin/python bench/ring_losses.py --players hard,random --games 400 --seed 1
```

Plays the games ``python -m engine arena`` plays with the same arguments (the same seats, the same
dice and the same random sources, so game N here is game N there). At the start of every turn of
the second player, the first player's stacks are noted by size (``2+1``: a stack of two and a single
token); a turn that ends with the second player winning is charged to the stacks the first player
had when it began. Prints one line per stack shape, most frequent first: opponent turns begun with
it, turns the opponent won, and the share. Figures, not a test: bench/README.md has a reading.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai.arena import benchmark_player
from engine.ai.random_player import sample_outcome
from engine.ring import VARIANT, RingState


def shape(state: RingState, seat: int) -> str:
    """``seat``'s stacks by size, largest first (``3+1``), or ``none``."""
    sign = 1 if seat == 0 else -1
    sizes = sorted((v * sign for v in state.board if v * sign > 0), reverse=True)
    return "+".join(str(n) for n in sizes) or "none"


def tally(names: tuple[str, str], games: int, seed: int) -> tuple[Counter[str], Counter[str], int]:
    """(opponent turns begun per shape of the first player's stacks, of those the opponent won,
    the first player's wins)."""
    players = (benchmark_player("ring", names[0]), benchmark_player("ring", names[1]))
    chance_rng = random.Random(seed)
    begun: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    wins = 0
    for game in range(games):
        a_seat = game % 2
        order = (0, 1) if a_seat == 0 else (1, 0)
        seated = (players[order[0]], players[order[1]])
        rngs = (
            random.Random(f"{seed}:{game}:{'AB'[order[0]]}"),
            random.Random(f"{seed}:{game}:{'AB'[order[1]]}"),
        )
        state = VARIANT.new_game(None)
        current: str | None = None  # the first player's stacks as the opponent's turn began
        turn: tuple[int, int | None] = (-1, None)
        while state.outcome() is None:
            if (state.turn_number, state.turn_seat) != turn:
                turn = (state.turn_number, state.turn_seat)
                current = None
                if state.turn_seat == 1 - a_seat:
                    current = shape(state, a_seat)
                    begun[current] += 1
            spec = state.chance()
            if spec is not None:
                state = state.apply(state.chance_action(sample_outcome(spec, chance_rng)))
                continue
            seat = state.to_move()
            state = state.apply(seated[seat](state.view(seat), rngs[seat]))
        outcome = state.outcome()
        assert outcome is not None
        if outcome.winner == a_seat:
            wins += 1
        elif current is not None:
            lost[current] += 1
    return begun, lost, wins


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="hard,random", help="first,second (as the arena names them)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    first, _, second = args.players.partition(",")
    begun, lost, wins = tally((first, second), args.games, args.seed)
    print(f"{first} won {wins} of {args.games} games against {second} (seed {args.seed})")
    print(f"{'stacks of ' + first:<18} {'opponent turns':>14} {'opponent won':>12} {'share':>7}")
    for stacks, count in begun.most_common():
        print(f"{stacks:<18} {count:>14} {lost[stacks]:>12} {lost[stacks] / count:>7.3f}")
    elsewhere = args.games - wins - sum(lost.values())
    print(f"games lost on {first}'s own turn or drawn: {elsewhere}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
