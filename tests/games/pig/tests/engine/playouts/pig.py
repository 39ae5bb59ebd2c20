"""Pig's invariants in random playouts."""

from __future__ import annotations

from engine import GameState
from engine.pig import GOAL, PigState


def check(state: GameState) -> None:
    assert isinstance(state, PigState)
    assert state.total >= 0 and all(0 <= score < GOAL for score in state.scores), "a score is banked below 30"
    if state.is_terminal():
        assert state.scores[state.seat] + state.total >= GOAL, "the winner reached 30"
