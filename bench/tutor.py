"""How long the tutor's check takes (``engine.ai.backgammon_tutor.tutor_check``), asked before every
final checker play and cube decision of a player with the tutor on, at several depths.

    python bench/tutor.py [--positions 60] [--seed 1] [--length 7] [--levels 1ply,2ply,3ply]

Positions are the checker plays and cube decisions of seeded 7-point matches played by the medium
computer; at each, the choice checked is the easy computer's (a noisy player: some of its choices are
errors the tutor warns of). Each depth is warmed on a play and a cube decision, then every position timed in this process
(what a compute worker does). Prints one JSON line per depth: the median, 95th percentile and
maximum in milliseconds for checker plays and for cube decisions, and how many warnings it gave.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from engine import find_variant  # noqa: E402
from engine.ai.backgammon_bgsage import SagePlayer  # noqa: E402
from engine.ai.backgammon_tutor import tutor_check  # noqa: E402
from engine.ai.levels import seeded_move  # noqa: E402
from engine.ai.random_player import sample_outcome  # noqa: E402
from engine.backgammon.game import BackgammonState, MoveChecker, Phase  # noqa: E402

Decision = tuple[BackgammonState, list[str]]


def play_steps(state: BackgammonState, notation: str) -> list[str]:
    """A whole play (a ``Checkers`` notation) as the one-checker steps the bot saves (found by a
    search of the steps reaching the play's position); a cube action as itself."""
    action = state.parse(notation)
    result = getattr(action, "result", None)
    if result is None:
        return [notation]
    seat = state.turn_seat or 0

    def search(position: BackgammonState, steps: list[str]) -> list[str] | None:
        if position.phase is not Phase.PLAY or position.turn_seat != seat or not position.plays():
            reached = (position.sides[1 - seat], position.sides[seat])
            return steps if reached == result else None
        for step in position.legal_actions():
            if isinstance(step, MoveChecker):
                found = search(position.apply(step), [*steps, step.notation])
                if found is not None:
                    return found
        return None

    found = search(state, [])
    assert found is not None, notation
    return found


def decisions(count: int, seed: int, length: int) -> list[Decision]:
    """``count`` decisions (a position and the easy computer's choice there, as steps)."""
    rng = random.Random(seed)
    found: list[Decision] = []
    variant = find_variant("backgammon")
    while len(found) < count:
        state = variant.new_game({"length": length})
        while not state.is_terminal() and len(found) < count:
            spec = state.chance()
            if spec is not None:
                state = state.apply(state.chance_action(sample_outcome(spec, rng)))
                continue
            seat = state.to_move()
            if state.phase in (Phase.PLAY, Phase.DECIDE, Phase.TAKE) and len(state.legal_actions()) > 1:
                assert isinstance(state, BackgammonState)
                choice = seeded_move("backgammon", "easy", state.view(seat), rng.getrandbits(64))
                found.append((state, play_steps(state, choice.notation)))
            state = state.apply(seeded_move("backgammon", "medium", state.view(seat), rng.getrandbits(64)))
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def figures(times: list[float]) -> dict[str, float]:
    ms = [t * 1000 for t in times]
    return {
        "count": len(ms),
        "median_ms": round(statistics.median(ms), 1) if ms else 0.0,
        "p95_ms": round(percentile(ms, 0.95), 1),
        "max_ms": round(max(ms), 1) if ms else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--length", type=int, default=7)
    parser.add_argument("--levels", default="1ply,2ply,3ply")
    args = parser.parse_args()
    found = decisions(args.positions, args.seed, args.length)
    for level in args.levels.split(","):
        player = SagePlayer(f"tutor-{level}", level, level, level)
        for kind in (True, False):  # warm a play's evaluator and a cube decision's
            warm = next(((st, steps) for st, steps in found if (st.phase is Phase.PLAY) is kind), None)
            if warm is not None:
                tutor_check(*warm, player=player)
        plays: list[float] = []
        cubes: list[float] = []
        warned = 0
        for state, steps in found:
            started = time.perf_counter()
            note = tutor_check(state, steps, player=player)
            (plays if state.phase is Phase.PLAY else cubes).append(time.perf_counter() - started)
            warned += note is not None
        print(
            json.dumps({"level": level, "plays": figures(plays), "cubes": figures(cubes), "warnings": warned})
        )


if __name__ == "__main__":
    main()
