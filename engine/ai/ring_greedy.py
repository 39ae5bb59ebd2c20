"""A one-step greedy ring player: wins at once when it can, otherwise keeps the best-looking position.

The evaluation counts what the win conditions reward: tokens on the board, occupied spaces, the
longest run of neighbouring spaces and the best quarter, for both sides. Ties are broken at random
so the computer does not always play the same game.
"""

from __future__ import annotations

import random

from engine.protocol import Action, GameView
from engine.ring import QUARTERS, SPACES, RingState


def _occupied(board: tuple[int, ...], seat: int) -> list[bool]:
    return [(v > 0) if seat == 0 else (v < 0) for v in board]


def _longest_run(occupied: list[bool]) -> int:
    if all(occupied):
        return SPACES
    best = run = 0
    for flag in occupied + occupied:  # twice round, so runs across 12-1 count
        run = run + 1 if flag else 0
        best = max(best, run)
    return min(best, SPACES)


def _side_score(state: RingState, seat: int) -> float:
    occupied = _occupied(state.board, seat)
    spaces = sum(occupied)
    tokens = state.on_board(seat)
    quarter = max(sum(occupied[s - 1] for s in range(1, 13) if q.mask >> (s - 1) & 1) for q in QUARTERS)
    run = _longest_run(occupied)
    # Single tokens are easy to capture; reward them less than tokens in stacks of two or more.
    safe = sum(1 for v in state.board if (v >= 2 if seat == 0 else v <= -2))
    return 3.0 * spaces + 1.0 * tokens + 2.5 * quarter * quarter / 4 + 2.0 * run * run / 5 + 0.5 * safe


def evaluate(state: RingState, seat: int) -> float:
    outcome = state.outcome()
    if outcome is not None:
        return 1e6 if outcome.winner == seat else -1e6
    return _side_score(state, seat) - _side_score(state, 1 - seat)


def choose(view: GameView, rng: random.Random) -> Action:
    """The action with the best immediate score; ring has no secrets, so its view is the position."""
    state = view
    assert isinstance(state, RingState)
    seat = state.to_move()
    actions = state.legal_actions()
    best: list[Action] = []
    best_score = float("-inf")
    for action in actions:
        score = evaluate(state.apply(action), seat)
        if score > best_score + 1e-9:
            best, best_score = [action], score
        elif abs(score - best_score) <= 1e-9:
            best.append(action)
    return best[rng.randrange(len(best))]
