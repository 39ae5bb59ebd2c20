"""A one-step greedy backgammon player: of the legal plays it keeps the best-looking position.

The evaluation is a handful of rules of thumb (pips, blots within reach of the opponent, points
made, checkers hit and borne off); it never doubles, always takes, and declines resignation offers.
A fair but beatable opponent, not a strong one: stronger computer players come with their own issue.
"""

from __future__ import annotations

import random

from engine.backgammon.board import BAR, Board, borne_off, pip_count
from engine.backgammon.game import (
    BackgammonState,
    Checkers,
    DeclineResignation,
    Phase,
    RollOn,
    Take,
)
from engine.backgammon.plays import Play
from engine.protocol import Action, GameView


def _exposed(board: Board) -> float:
    """How much of the mover's blots (``board[1]``) the opponent's checkers can hit directly."""
    opp, me = board
    danger = 0.0
    for i in range(24):
        if me[i] != 1:
            continue
        point = i + 1
        # An opponent checker on my point q (its point 25 - q) hits my blot on ``point`` from q > point.
        shooters = sum(opp[24 - q] for q in range(point + 1, min(point + 12, 24) + 1)) + opp[BAR]
        if shooters:
            danger += 1.0 + (0.5 if point > 6 else 1.0) * min(shooters, 3)
    return danger


def evaluate(board: Board) -> float:
    """Higher is better for ``board[1]``, the side that just moved."""
    opp, me = board
    made = sum(1 for i in range(24) if me[i] >= 2)
    home_points = sum(1 for i in range(6) if me[i] >= 2)
    race = pip_count(opp) - pip_count(me)
    return (
        race * 0.6
        + made * 1.5
        + home_points * 2.0
        + opp[BAR] * 4.0
        + borne_off(me) * 2.5
        - _exposed(board) * 2.2
        - me[BAR] * 3.0
    )


def cubeless_plays(state: BackgammonState) -> Action | list[Play]:
    """A cubeless player's answer outside checker play (roll on rather than double, take, decline a
    resignation offer), else the legal plays to choose from; ``ValueError`` when there is nothing
    to decide (the caller asked out of turn)."""
    if state.phase is Phase.DECIDE:
        return RollOn()
    if state.phase is Phase.TAKE:
        return Take()
    if state.phase is Phase.RESIGN:
        return DeclineResignation()
    plays = state.plays()
    if not plays:
        raise ValueError(f"no play to choose in phase {state.phase.value}")
    return list(plays)


def choose(view: GameView, rng: random.Random) -> Action:
    state = view
    assert isinstance(state, BackgammonState)
    plays = cubeless_plays(state)
    if not isinstance(plays, list):
        return plays
    scored = [(evaluate(p.result) + rng.random() * 1e-3, p) for p in plays]
    _, chosen = max(scored, key=lambda pair: pair[0])
    return Checkers(chosen.moves, chosen.result)
