"""Backgammon's invariants in random playouts, through its rule sets and match lengths."""

from __future__ import annotations

from engine import GameState
from engine.backgammon.board import CHECKERS, POINTS, check_board
from engine.backgammon.game import BackgammonState, Phase

OPTIONS: list[dict[str, object]] = [
    {},
    {"length": 5},
    {"length": 3, "rules": "nackgammon"},
    {"length": 3, "rules": "oldenglish"},
]
QUICK_GAMES = 12  # whole matches, each step checked: 6 s
SLOW_GAMES = 60  # about 30 s


def check(state: GameState) -> None:
    assert isinstance(state, BackgammonState)
    check_board((state.sides[0], state.sides[1]))  # 15 checkers at most a side, no point shared
    for side in state.sides:
        assert sum(side) <= CHECKERS
        assert max(side[:POINTS]) <= state.rules.point_cap, "Old English: five checkers a point at most"
    assert state.cube & (state.cube - 1) == 0, "the cube is a power of two"
    assert state.cube == 1 or state.uses_cube
    if not state.is_terminal():
        assert max(state.score) < state.length, "a match goes on only while nobody has won it"
    if state.crawford:
        assert not state.may_double(0) and not state.may_double(1), "no double in the Crawford game"
    if state.phase is Phase.PLAY:
        assert state.legal_actions(), "a play in progress can always be finished"
