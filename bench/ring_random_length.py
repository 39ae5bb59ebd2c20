"""How many decisions a ring game takes when both players click at random, as the black box's members
do (``fakediscord.blackbox``): the basis of its limit before the player on turn resigns.

```
.venv/bin/python bench/ring_random_length.py --games 1500 --seed 1
```

Each decision is one click on the controls the player is shown (``cogs.panels.ring``): Roll, an option
of the first select (a stack to narrow the steps to counts as a click of its own), else a button other
than Back; a step with one legal answer is played for the player, as the session manager does. Prints
the median, p90, p99 and largest number of decisions per game, and how many games took more than
``--limit``. Figures, not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cogs.panels.base import ROLL, SelectSpec
from cogs.panels.ring import PANEL
from engine.ai.random_player import sample_outcome
from engine.protocol import CHANCE, GameState
from engine.ring import VARIANT


def decisions_of_one_game(rng: random.Random, cap: int) -> int:
    state: GameState = VARIANT.new_game({})
    decisions, selection = 0, ""
    while not state.is_terminal() and decisions < cap:
        chance = state.chance() if state.to_move() == CHANCE else None
        if chance is not None and chance.prompt_seat is None:
            state = state.apply(state.chance_action(sample_outcome(chance, rng)))
            continue
        if chance is None and len(state.legal_actions()) == 1:
            state = state.apply(state.legal_actions()[0])
            continue
        spec = PANEL.controls(state, selection)
        selects = [row for row in spec.rows if isinstance(row, SelectSpec)]
        if selects:
            value = rng.choice(selects[0].options).value
        else:
            value = rng.choice(
                [b for row in spec.rows if not isinstance(row, SelectSpec) for b in row if b.label != "Back"]
            ).value
        decisions += 1
        if value.startswith("n:"):
            selection = value[2:]
            continue
        selection = ""
        if value == ROLL:
            assert chance is not None
            state = state.apply(state.chance_action(sample_outcome(chance, rng)))
        else:
            state = state.apply(VARIANT.parse_action(state, value.removeprefix("a:")))
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=int, default=200, help="count the games longer than this")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lengths = sorted(decisions_of_one_game(rng, cap=10 * args.limit) for _ in range(args.games))

    def at(share: float) -> int:
        return lengths[min(len(lengths) - 1, int(share * len(lengths)))]

    print(
        f"{args.games} games: decisions per game median {statistics.median(lengths):g}, p90 {at(0.9)}, "
        f"p99 {at(0.99)}, max {lengths[-1]}; over {args.limit}: {sum(n > args.limit for n in lengths)}"
    )


if __name__ == "__main__":
    main()
