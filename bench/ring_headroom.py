"""How much better than the learnt one-turn planner a ring player could get against random, measured
by one step of policy improvement with rollouts.

```
.venv/bin/python bench/ring_headroom.py --games 120 --plans 6 --rollouts 300 --seed 1 --jobs 2
```

The base player is the one-turn planner that rates the ends of its turn by ``ring_eval`` (the
evaluation ``hard`` searches with; without ``hard``'s look-ahead it wins about 89% against random,
``hard`` about 90%). The improved player plays games against the uniform random player, and at each
of its decisions with a choice it rolls out its ``--plans`` best-rated turn ends ``--rollouts``
times each (the rest of the game: the base player against random, the same dice for every plan of a
rollout) and plays the one that won most. It is the base player made better by one step of policy
improvement, the rollout method of Tesauro and Galperin (1996), with the random opponent simulated
exactly (``ring_turns.random_turn``).

What it gains is measured twice: by its games (win rate against random, beside the base player's
on the same dice), and, with far less noise, by the sum over each game of the advantage of its
choice over the base player's choice, both re-measured on fresh rollouts. By the performance
difference lemma that sum is an unbiased estimate of how much more often the improved player wins.
A gain close to zero says the planner's choices are already close to the best ones given how it
plays on: no small change of its decisions is worth much against random. Figures, not a test:
bench/README.md has a reading.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import ring_eval, ring_turns
from engine.ai.arena import mean_interval, wilson_interval
from engine.ai.ring_turns import Board, Piles
from engine.ring import VARIANT

MAX_TURNS = 1000
Turn = tuple[Board, Piles, int | None]


def _dice(rng: random.Random) -> tuple[int, int, int]:
    return rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6)


def _plans(
    board: Board, piles: Piles, seat: int, dice: tuple[int, int, int]
) -> tuple[Turn | None, list[Turn]]:
    """(a turn end that wins for ``seat``, if any; the other ends, best first by ``ring_eval``)."""
    rated: list[tuple[float, Turn]] = []
    for (end_board, end_piles), winner in ring_turns.roll_ends(board, piles, seat, *dice).items():
        if winner == seat:
            return (end_board, end_piles, winner), []
        chance = 0.0 if winner is not None else ring_eval.position_probability(end_board, end_piles, seat)
        rated.append((chance, (end_board, end_piles, winner)))
    rated.sort(key=lambda item: -item[0])
    return None, [turn for _, turn in rated]


def base_turn(board: Board, piles: Piles, seat: int, dice: tuple[int, int, int]) -> Turn:
    """The base player's turn: the end ``ring_eval`` rates best (a winning end if there is one)."""
    won, rated = _plans(board, piles, seat, dice)
    return won if won is not None else rated[0]


Decide = Callable[[Board, Piles, tuple[int, int, int], int], Turn]
"""How the non-random side plays its turn: (board, piles, dice, turn number) -> the end it plays."""


def play_against_random(
    board: Board,
    piles: Piles,
    seat: int,
    me: int,
    decide: Decide,
    dice_rng: random.Random,
    choice_rng: random.Random,
) -> int | None:
    """Play on from ``board`` with ``seat`` to roll, ``me`` by ``decide`` and the other side as the
    random player (dice from ``dice_rng``, its choices from ``choice_rng``); the winner, ``None`` if
    the game outlasts ``MAX_TURNS``."""
    for turn_number in range(MAX_TURNS):
        dice = _dice(dice_rng)
        if seat == me:
            board, piles, winner = decide(board, piles, dice, turn_number)
        else:
            board, piles, winner = ring_turns.random_turn(board, piles, seat, *dice, choice_rng)
        if winner is not None:
            return winner
        seat = 1 - seat
    return None


def rollout(board: Board, piles: Piles, me: int, dice_rng: random.Random, choice_rng: random.Random) -> float:
    """1 if ``me`` (the base player, who has just played) wins the game from here against random."""

    def base(board: Board, piles: Piles, dice: tuple[int, int, int], _: int) -> Turn:
        return base_turn(board, piles, me, dice)

    winner = play_against_random(board, piles, 1 - me, me, base, dice_rng, choice_rng)
    return 0.5 if winner is None else 1.0 if winner == me else 0.0


def rollout_value(turn: Turn, me: int, key: str, rollouts: int) -> float:
    """The share of ``rollouts`` games from ``turn``'s end that ``me`` wins; the dice of rollout j
    depend only on ``key`` and j, so plans compared under one key meet the same dice."""
    board, piles, _ = turn
    won = 0.0
    for j in range(rollouts):
        won += rollout(board, piles, me, random.Random(f"{key}:{j}:dice"), random.Random(f"{key}:{j}:choice"))
    return won / rollouts


def play_game(game: int, seed: int, plans: int, rollouts: int) -> dict[str, float | int]:
    """One game of the improved player against random, and the base player's game on the same dice."""
    start = VARIANT.new_game()
    me = game % 2
    first = random.Random(f"{seed}:{game}:first").randrange(2)
    result: dict[str, float | int] = {"decisions": 0, "changed": 0, "gain": 0.0}

    def base(board: Board, piles: Piles, dice: tuple[int, int, int], _: int) -> Turn:
        return base_turn(board, piles, me, dice)

    def improved(board: Board, piles: Piles, dice: tuple[int, int, int], turn_number: int) -> Turn:
        won, rated = _plans(board, piles, me, dice)
        if won is not None or len(rated) == 1:
            return won if won is not None else rated[0]
        key = f"{seed}:{game}:{turn_number}"
        candidates = rated[:plans]
        values = [rollout_value(turn, me, key, rollouts) for turn in candidates]
        best = max(range(len(candidates)), key=values.__getitem__)
        result["decisions"] = int(result["decisions"]) + 1
        if best != 0:
            fresh = key + ":fresh"
            advantage = rollout_value(candidates[best], me, fresh, rollouts) - rollout_value(
                candidates[0], me, fresh, rollouts
            )
            result["changed"] = int(result["changed"]) + 1
            result["gain"] = float(result["gain"]) + advantage
        return candidates[best]

    for who, decide in (("improved", improved), ("base", base)):
        winner = play_against_random(
            start.board,
            start.piles,
            first,
            me,
            decide,
            random.Random(f"{seed}:{game}:dice"),
            random.Random(f"{seed}:{game}:random"),
        )
        result[who] = 1 if winner == me else 0
    return result


def _stacks(board: Board, seat: int) -> int:
    sign = 1 if seat == 0 else -1
    return sum(1 for v in board if v * sign > 0)


def last_stack_game(game: int, seed: int, rollouts: int) -> list[tuple[float, float]]:
    """One game of the base player against random; at each of its turns that it ends with one stack
    though it could have kept two or more, the rollout values (same dice) of its choice and of the
    best-rated end with two or more stacks."""
    start = VARIANT.new_game()
    me = game % 2
    found: list[tuple[float, float]] = []

    def base_noting_last_stacks(
        board: Board, piles: Piles, dice: tuple[int, int, int], turn_number: int
    ) -> Turn:
        won, rated = _plans(board, piles, me, dice)
        if won is not None:
            return won
        if _stacks(rated[0][0], me) == 1:
            kept = [turn for turn in rated if turn[2] is None and _stacks(turn[0], me) >= 2]
            if kept:
                key = f"{seed}:{game}:{turn_number}"
                found.append(
                    (rollout_value(rated[0], me, key, rollouts), rollout_value(kept[0], me, key, rollouts))
                )
        return rated[0]

    play_against_random(
        start.board,
        start.piles,
        random.Random(f"{seed}:{game}:first").randrange(2),
        me,
        base_noting_last_stacks,
        random.Random(f"{seed}:{game}:dice"),
        random.Random(f"{seed}:{game}:random"),
    )
    return found


def last_stack_report(games: list[list[tuple[float, float]]]) -> dict[str, object]:
    """``--last-stack``: how much keeping two stacks would have won or lost where the planner kept one."""
    pairs = [pair for game in games for pair in game]
    difference, low, high = mean_interval([kept - one for one, kept in pairs])
    return {
        "decisions": len(pairs),
        "one_stack_mean": round(sum(one for one, _ in pairs) / len(pairs), 4) if pairs else 0.0,
        "two_stacks_mean": round(sum(kept for _, kept in pairs) / len(pairs), 4) if pairs else 0.0,
        "two_minus_one": round(difference, 4),
        "two_minus_one_ci95": [round(low, 4), round(high, 4)],
        "two_stacks_better": sum(1 for one, kept in pairs if kept > one),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--plans", type=int, default=6, help="turn ends rolled out per decision")
    parser.add_argument("--rollouts", type=int, default=300, help="rollouts per turn end")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument(
        "--last-stack",
        action="store_true",
        help="instead: where the planner ends its turn with one stack though it could keep two, "
        "the rollout value of its choice against the best-rated end with two stacks",
    )
    args = parser.parse_args()
    began = time.perf_counter()
    if args.last_stack:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            found = list(
                pool.map(
                    last_stack_game, range(args.games), [args.seed] * args.games, [args.rollouts] * args.games
                )
            )
        report = {
            "games": args.games,
            "seed": args.seed,
            "rollouts": args.rollouts,
            **last_stack_report(found),
        }
        report["seconds"] = round(time.perf_counter() - began, 1)
        print(json.dumps(report, indent=2))
        return 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        games = list(
            pool.map(
                play_game,
                range(args.games),
                [args.seed] * args.games,
                [args.plans] * args.games,
                [args.rollouts] * args.games,
            )
        )
    n = len(games)
    improved = sum(int(g["improved"]) for g in games)
    base = sum(int(g["base"]) for g in games)
    gain, low, high = mean_interval([float(g["gain"]) for g in games])
    report = {
        "games": n,
        "seed": args.seed,
        "plans": args.plans,
        "rollouts": args.rollouts,
        "improved_wins": improved,
        "improved_win_rate_ci95": [round(x, 4) for x in wilson_interval(improved, n)],
        "base_wins_same_dice": base,
        "base_win_rate_ci95": [round(x, 4) for x in wilson_interval(base, n)],
        "decisions": sum(int(g["decisions"]) for g in games),
        "decisions_changed": sum(int(g["changed"]) for g in games),
        "gain_per_game": round(gain, 4),
        "gain_per_game_ci95": [round(low, 4), round(high, 4)],
        "seconds": round(time.perf_counter() - began, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
